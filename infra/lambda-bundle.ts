import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { type BuildOptions, buildSync, type Metafile } from 'esbuild';
import { repoPath } from './paths.ts';

/**
 * The Lambda bundle of a Handback function, built at synth by esbuild itself rather than by `NodejsFunction`: CDK
 * 2.276 always passes `--outfile=index.mjs`, which esbuild refuses beside `--splitting`, so its bundles cannot have
 * chunks. Here every dynamic `import()` (the pause checks, the JSON Schema checks with ajv and re2js) becomes a chunk
 * of its own in `chunks/`, read and parsed only when a request first needs it, not at every cold start.
 */

/**
 * Lets the ESM bundle load the CommonJS dependencies esbuild inlines (they call `require` for Node built-ins), and
 * names it so it cannot clash with a `require` binding esbuild emits. Every chunk gets it: each is a module of its own.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __handbackCreateRequire } from 'node:module'; const require = __handbackCreateRequire(import.meta.url);";

/** The hand-off targets a function may be bundled for. */
export type BundledHandoffTarget = 'sqs' | 'eventbridge' | 'lambda' | 'none';

/**
 * The esbuild `define`s of a function bundled for `handoffTarget` (the other targets' clients become dead code) and,
 * when `policies` is said, with or without the deployment's policies (§17): without them the policy engine and the
 * seam that applies it are dead code, and no chunk of theirs is in the bundle.
 */
export function bundleDefines(
  handoffTarget: BundledHandoffTarget | undefined,
  policies?: boolean,
): Record<string, string> {
  return {
    ...(handoffTarget === undefined
      ? {}
      : { 'globalThis.HANDBACK_BUNDLED_HANDOFF_TARGET': JSON.stringify(handoffTarget) }),
    ...(policies === undefined ? {} : { 'globalThis.HANDBACK_BUNDLED_POLICIES': JSON.stringify(String(policies)) }),
  };
}

/**
 * The options every Lambda bundle is built with (the bench builds its floors with them too): Node.js 24's target,
 * ESM with code splitting, minified, source maps beside each file without the sources, every dependency inlined (the
 * versions we test are the versions we run) and `module` before `main`.
 */
export const LAMBDA_ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  splitting: true,
  entryNames: 'index',
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  external: [],
  banner: { js: ESM_REQUIRE_BANNER },
  logLevel: 'error',
} as const satisfies BuildOptions;

/**
 * Packages the Lambda bundles hold a stub of instead: the MCP SDK's default JSON Schema validator (ajv draft-07 with
 * its formats, ~130 KB minified at init) is never used, Handback's server bringing its own (functions/mcp/server.ts).
 * An alias covers a package's subpaths too, so the one Handback's checks import, ajv/dist/2020.js, is named again, as
 * itself.
 */
export const BUNDLE_STUBS: Record<string, string> = {
  ajv: repoPath('infra/bundle-stubs/ajv.ts'),
  'ajv/dist/2020.js': createRequire(import.meta.url).resolve('ajv/dist/2020.js'),
  'ajv-formats': repoPath('infra/bundle-stubs/ajv.ts'),
};

/** What one bundle holds: its entry file and its chunks, relative to the bundle's directory. */
export interface LambdaBundle {
  dir: string;
  entry: string;
  chunks: string[];
  metafile: Metafile;
}

/**
 * The check appended to an entry file: every chunk present beside it, or the cold start fails naming the one that is
 * missing. A chunk the entry imports statically would fail the import anyway; one loaded on first use would otherwise
 * fail only at the first request that needs it, long after the deploy looked healthy.
 */
export function chunkCheck(chunks: readonly string[]): string {
  // One read of chunks/ (a missing directory reads as empty), not a file system call per chunk.
  const names = chunks.map((chunk) => chunk.replace(/^\.\/chunks\//, ''));
  return `import{readdirSync as __handbackChunks}from'node:fs';{let h=[];try{h=__handbackChunks(new URL('./chunks/',import.meta.url))}catch{}const have=new Set(h);for(const c of ${JSON.stringify(names)})if(!have.has(c))throw new Error(\`This bundle is incomplete: chunk ./chunks/\${c} is missing beside \${new URL(import.meta.url).pathname}; redeploy the function's whole asset.\`)}`;
}

/**
 * Builds `entry` into `dir` (index.mjs and chunks/), with the check that every chunk is there at cold start; for
 * `handoffTarget`, and with or without policies when `policies` says (`bundleDefines`); with `BUNDLE_STUBS` unless
 * `stubs` is false (the benchmark's bundles of an earlier commit that had none).
 *
 * Three passes. esbuild splits (the first pass) by which entry points reach a module, so code init needs that a chunk
 * loaded on use needs too lands in a chunk of its own, read at init beside the entry: 27 files at the SQS trigger's
 * init, each compressed on its own in the function's zip and each a module Node loads and links. The second pass
 * (`joinInit`) joins the files init reads into `index.mjs`, one module, esbuild bundling the first pass's output with
 * its source maps composed, each joined file left as a facade re-exporting, from `index.mjs`, the names the chunks
 * loaded on use import from it. The third (`importIndexDirectly`) bundles those chunks again with the facades
 * inlined, so each imports from `index.mjs` itself, sharing the one instance of every module, and the facades go.
 *
 * Init must not wait for a chunk loaded on use (a top-level `await import()`): the chunk imports `index.mjs`, which
 * would still be evaluating, and the cold start would never finish.
 */
export function buildLambdaBundle(
  entry: string,
  dir: string,
  handoffTarget?: BundledHandoffTarget,
  policies?: boolean,
  stubs = true,
): LambdaBundle {
  mkdirSync(dir, { recursive: true });
  const split = buildSync({
    ...LAMBDA_ESBUILD_OPTIONS,
    define: bundleDefines(handoffTarget, policies),
    ...(stubs ? { alias: BUNDLE_STUBS } : {}),
    entryPoints: [entry],
    // The first pass's entry beside its chunks, removed by the second.
    entryNames: 'chunks/[name]-[hash]',
    outdir: dir,
    metafile: true,
  });
  const metafile = joinInit(split.metafile, entry, dir);
  const chunksDir = join(dir, 'chunks');
  const chunks = readdirSync(chunksDir)
    .filter((name) => name.endsWith('.mjs'))
    .map((name) => `./${relative(dir, join(chunksDir, name))}`)
    .sort();
  const index = join(dir, 'index.mjs');
  if (chunks.length === 0) {
    // No `import()`, no chunk: the first pass's entry was the only file of chunks/.
    rmSync(chunksDir, { recursive: true, force: true });
    return { dir, entry: index, chunks, metafile };
  }
  // Appended before the source map comment, so no mapping of the lines above moves.
  const code = readFileSync(index, 'utf8');
  const at = code.lastIndexOf('//# sourceMappingURL=');
  const [body, tail] = at < 0 ? [code, ''] : [code.slice(0, at), code.slice(at)];
  writeFileSync(index, `${body.endsWith('\n') ? body : `${body}\n`}${chunkCheck(chunks)}\n${tail}`);
  return { dir, entry: index, chunks, metafile };
}

/**
 * The second pass of `buildLambdaBundle`, and the third after it: the first pass's entry and the chunks it imports
 * statically joined into `index.mjs`, those chunks made facades of it for the third pass and then removed, as is the
 * first pass's entry. Returns the metafile of the bundle as it now is: `index.mjs`, whose inputs are every source the
 * joined files held; the chunks loaded on use with the sources the first pass gave them, importing `index.mjs`.
 */
function joinInit(split: Metafile, entry: string, dir: string): Metafile {
  const outputs = split.outputs;
  // The entry's output; each chunk loaded on use is an entry point of esbuild's too, a dynamic one.
  const first = Object.keys(outputs).find(
    (name) => resolve(process.cwd(), outputs[name]?.entryPoint ?? '') === resolve(entry),
  ) as string;
  const atInit = [...outputsFrom(split, first)];
  const absolute = (name: string) => resolve(process.cwd(), name);
  const index = join(dir, 'index.mjs');
  const onUse = Object.keys(outputs).filter((name) => name.endsWith('.mjs') && !atInit.includes(name));
  const wanted = namesImported(onUse.map(absolute), new Set(atInit.map((name) => basename(name))));
  // Every name a chunk loaded on use imports from a joined file (the facade of each, by its place among them),
  // exported by `index.mjs` under a name of its own.
  const facades = new Map<string, { at: number; names: string[] }>();
  // `$`, the file's place, its name (an identifier, so never starting with a digit): short, as every chunk loaded on
  // use now lists each name it imports from index.mjs, and unambiguous. The entry's own exports are not of that form.
  const aliasOf = (at: number, exported: string) => `${ALIAS}${at}${exported}`;
  const clash = (outputs[first]?.exports ?? []).find(
    (exported) => exported.startsWith(ALIAS) && /\d/.test(exported.charAt(ALIAS.length)),
  );
  if (clash !== undefined) throw new Error(`${entry} exports ${clash}, a name joinInit keeps for its own exports`);
  const lines = [`export * from ${JSON.stringify(absolute(first))};`];
  atInit.forEach((name, i) => {
    if (name === first) return;
    const exports = outputs[name]?.exports ?? [];
    const asked = wanted.get(basename(name));
    const names = asked === 'all' ? exports : exports.filter((exported) => asked?.has(exported));
    facades.set(name, { at: i, names });
    if (names.length > 0) {
      const list = names.map((exported) => `${exported} as ${aliasOf(i, exported)}`).join(', ');
      lines.push(`export { ${list} } from ${JSON.stringify(absolute(name))};`);
    }
  });
  const joiner = join(dir, 'chunks', '.join.mjs');
  writeFileSync(joiner, `${lines.join('\n')}\n`);
  const joined = buildSync({
    ...LAMBDA_ESBUILD_OPTIONS,
    splitting: false,
    entryPoints: [joiner],
    outfile: index,
    entryNames: undefined,
    chunkNames: undefined,
    outExtension: undefined,
    // Named by their absolute paths, the chunks loaded on use stay where they are, and esbuild writes each
    // `import()` of one relative to index.mjs (`./chunks/<chunk>.mjs`).
    external: onUse.map(absolute),
    metafile: true,
  });
  rmSync(joiner);
  rmSync(absolute(first));
  rmSync(`${absolute(first)}.map`, { force: true });
  for (const [name, { at, names }] of facades) {
    const path = relative(dirname(absolute(name)), index);
    const from = JSON.stringify(path.startsWith('.') ? path : `./${path}`);
    const list = names.map((exported) => `${aliasOf(at, exported)} as ${exported}`).join(', ');
    writeFileSync(absolute(name), names.length === 0 ? `import ${from};\n` : `export { ${list} } from ${from};\n`);
    rmSync(`${absolute(name)}.map`, { force: true });
  }
  const indexKey = relative(process.cwd(), index);
  const rebuilt = importIndexDirectly(onUse.map(absolute), index);
  for (const name of facades.keys()) rmSync(absolute(name));
  const inputs: Metafile['outputs'][string]['inputs'] = {};
  for (const name of atInit) {
    for (const [path, input] of Object.entries(outputs[name]?.inputs ?? {})) {
      inputs[path] = { bytesInOutput: (inputs[path]?.bytesInOutput ?? 0) + input.bytesInOutput };
    }
  }
  const joinedOutput = joined.metafile.outputs[indexKey];
  // The chunks loaded on use keep the sources the first pass gave them; they import from index.mjs, not a facade.
  const kept = Object.entries(outputs)
    .filter(([name]) => !atInit.includes(name.replace(/\.map$/, '')))
    .map(([name, output]): [string, Metafile['outputs'][string]] => {
      const now = rebuilt.get(absolute(name));
      if (now === undefined) return [name, output];
      const imports = new Map<string, Metafile['outputs'][string]['imports'][number]>();
      for (const imported of output.imports) {
        const path = atInit.includes(imported.path) ? indexKey : imported.path;
        imports.set(`${imported.kind} ${path}`, { ...imported, path });
      }
      return [name, { ...output, bytes: now.bytes, imports: [...imports.values()] }];
    });
  return {
    inputs: split.inputs,
    outputs: {
      ...Object.fromEntries(kept),
      [indexKey]: {
        ...(joinedOutput ?? { bytes: 0, exports: [] }),
        inputs,
        imports: onUse.map((name) => ({ path: name, kind: 'dynamic-import' as const })),
        entryPoint: outputs[first]?.entryPoint,
      },
    },
  };
}

/**
 * The third pass of `buildLambdaBundle`: each chunk loaded on use (`files`) bundled again by esbuild with the
 * facades it imports inlined, so it imports what init holds from `index.mjs` itself, and the facades can go. A facade
 * is a module of its own: a format's chunk imported six of them, each a file Node reads, parses and links at the
 * first request that loads the chunk. The chunks stay external to each other (each keeps its one instance), as does
 * `index.mjs`; their source maps are composed. Returns each chunk's new size in bytes.
 */
function importIndexDirectly(files: string[], index: string): Map<string, { bytes: number }> {
  if (files.length === 0) return new Map();
  const rebuilt = buildSync({
    ...LAMBDA_ESBUILD_OPTIONS,
    splitting: false,
    // Each chunk has the banner already, from the first pass.
    banner: undefined,
    entryPoints: files,
    outdir: dirname(files[0] as string),
    entryNames: '[name]',
    chunkNames: undefined,
    allowOverwrite: true,
    external: [index, ...files],
    metafile: true,
  });
  return new Map(
    Object.entries(rebuilt.metafile.outputs)
      .filter(([name]) => name.endsWith('.mjs'))
      .map(([name, output]) => [resolve(process.cwd(), name), { bytes: output.bytes }]),
  );
}

/**
 * The names `files` (chunks loaded on use) import from each of `joined` (by file name), read from esbuild's own
 * output: `import{a as b,c}from"./chunk-X.mjs"` (and `export{…}from`). A joined file a chunk names any other way (a
 * bare or a namespace import) keeps all its names ('all').
 */
function namesImported(files: string[], joined: Set<string>): Map<string, Set<string> | 'all'> {
  const wanted = new Map<string, Set<string> | 'all'>();
  for (const file of files) {
    const code = readFileSync(file, 'utf8');
    const named = new Set<string>();
    for (const [, names, from] of code.matchAll(
      /(?:import|export)\s*\{([^}]*)\}\s*from\s*["']\.\/([^"']+\.mjs)["']/g,
    )) {
      const seen = wanted.get(from as string);
      named.add(from as string);
      if (!joined.has(from as string) || seen === 'all') continue;
      const set = seen ?? new Set<string>();
      for (const part of (names as string).split(',')) {
        const name = part.trim().split(/\s+as\s+/)[0];
        if (name) set.add(name);
      }
      wanted.set(from as string, set);
    }
    for (const [, from] of code.matchAll(/["']\.\/([^"']+\.mjs)["']/g)) {
      if (joined.has(from as string) && !named.has(from as string)) wanted.set(from as string, 'all');
    }
  }
  return wanted;
}

/** The prefix of the names `index.mjs` exports for the chunks loaded on use. */
const ALIAS = '$';

/** `from` and, transitively, the outputs it imports statically. */
function outputsFrom(metafile: Metafile, from: string | undefined): Set<string> {
  const outputs = metafile.outputs;
  const seen = new Set<string>();
  const visit = (name: string | undefined) => {
    if (name === undefined || seen.has(name)) return;
    seen.add(name);
    for (const imported of outputs[name]?.imports ?? []) {
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    }
  };
  visit(from);
  return seen;
}

/**
 * The output files a cold start reads (keys of `metafile.outputs`): the entry and, transitively, the chunks it
 * imports statically; every other chunk is read on first use.
 */
export function outputsAtInit(metafile: Metafile): Set<string> {
  return outputsFrom(
    metafile,
    Object.keys(metafile.outputs).find((name) => name.endsWith('index.mjs')),
  );
}
