import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
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
  return `import{existsSync as __handbackChunkExists}from'node:fs';for(const c of ${JSON.stringify(chunks)})if(!__handbackChunkExists(new URL(c,import.meta.url)))throw new Error(\`This bundle is incomplete: chunk \${c} is missing beside \${new URL(import.meta.url).pathname}; redeploy the function's whole asset.\`);`;
}

/**
 * Builds `entry` into `dir` (index.mjs and chunks/), with the check that every chunk is there at cold start; for
 * `handoffTarget`, and with or without policies when `policies` says (`bundleDefines`); with `BUNDLE_STUBS` unless
 * `stubs` is false (the benchmark's bundles of an earlier commit, which had none).
 */
export function buildLambdaBundle(
  entry: string,
  dir: string,
  handoffTarget?: BundledHandoffTarget,
  policies?: boolean,
  stubs = true,
): LambdaBundle {
  mkdirSync(dir, { recursive: true });
  const result = buildSync({
    ...LAMBDA_ESBUILD_OPTIONS,
    define: bundleDefines(handoffTarget, policies),
    ...(stubs ? { alias: BUNDLE_STUBS } : {}),
    entryPoints: [entry],
    outdir: dir,
    metafile: true,
  });
  const chunksDir = join(dir, 'chunks');
  let chunks: string[] = [];
  try {
    chunks = readdirSync(chunksDir)
      .filter((name) => name.endsWith('.mjs'))
      .map((name) => `./${relative(dir, join(chunksDir, name))}`)
      .sort();
  } catch {
    // No dynamic import, no chunk.
  }
  const index = join(dir, 'index.mjs');
  if (chunks.length > 0) {
    // Appended before the source map comment, so no mapping of the lines above moves.
    const code = readFileSync(index, 'utf8');
    const at = code.lastIndexOf('//# sourceMappingURL=');
    const [body, tail] = at < 0 ? [code, ''] : [code.slice(0, at), code.slice(at)];
    writeFileSync(index, `${body.endsWith('\n') ? body : `${body}\n`}${chunkCheck(chunks)}\n${tail}`);
  }
  return { dir, entry: index, chunks, metafile: result.metafile };
}

/**
 * The output files a cold start reads (keys of `metafile.outputs`): the entry and, transitively, the chunks it
 * imports statically; every other chunk is read on first use.
 */
export function outputsAtInit(metafile: Metafile): Set<string> {
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((name) => name.endsWith('index.mjs'));
  const seen = new Set<string>();
  const visit = (name: string | undefined) => {
    if (name === undefined || seen.has(name)) return;
    seen.add(name);
    for (const imported of outputs[name]?.imports ?? []) {
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    }
  };
  visit(entry);
  return seen;
}
