import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { buildInbox } from '../functions/inbox/build.ts';
import { ESM_REQUIRE_BANNER } from '../infra/lambda-bundle.ts';

/**
 * `npm run build` (also run by `prepack`, so `npm pack` builds what it packs): builds the inbox's generated module
 * first (the bin bundles the API handler, which imports it, and a fresh clone has none), then compiles the package
 * entries in tsconfig.build.json to JavaScript and declarations in a fresh directory and swaps it in for dist/, so no
 * file of a renamed source lingers in the tarball, and a process loading dist/ meanwhile (the examples' tests, while
 * the pack test's `npm pack` rebuilds) never finds it missing or half written.
 *
 * Plain tsc would do, but for one gap: `rewriteRelativeImportExtensions` turns the sources' `./x.ts` specifiers into
 * `./x.js` in the JavaScript only; the declarations keep `./x.ts` (microsoft/TypeScript#61037). TypeScript reads
 * that, but other tools that follow declaration imports do not, so one declaration transformer rewrites them too.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const configPath = join(root, 'tsconfig.build.json');

const parsed = ts.getParsedCommandLineOfConfigFile(
  configPath,
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => fail([diagnostic]),
  },
);
if (parsed === undefined) throw new Error(`Cannot read ${configPath}.`);
if (parsed.errors.length > 0) fail(parsed.errors);

const outDir = parsed.options.outDir ?? join(root, 'dist');
// Written only when it changed: a second build, or the test setup's, leaves it as it is.
await buildInbox();
// Beside dist/ (one file system, so renames are atomic), in a directory no tool looks into.
const work = join(root, 'node_modules', '.cache', 'handback-build');
const staging = join(work, `dist-${process.pid}`);
const previous = join(work, `previous-${process.pid}`);
rmSync(staging, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, outDir: staging } });
const emitted = program.emit(undefined, undefined, undefined, false, { afterDeclarations: [rewriteTsSpecifiers] });
const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
if (diagnostics.length > 0 || emitted.emitSkipped) {
  rmSync(staging, { recursive: true, force: true });
  fail(diagnostics);
}
await buildCli(staging);
// Two renames: dist/ is absent only between them, not for the whole compile.
if (existsSync(outDir)) renameSync(outDir, previous);
renameSync(staging, outDir);
rmSync(previous, { recursive: true, force: true });

/**
 * The `handback` bin (`dist/cli/main.js`): one esbuild bundle, since the local service it starts reaches modules the
 * library entries do not (the API handler, the inbox, the channels) and their devDependencies. The package's own
 * dependencies and peers stay imports, resolved from the installing project; each command's heavy part is a chunk
 * loaded when it runs, so `handback --help` loads none of it.
 */
async function buildCli(outDir: string): Promise<void> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<
    string,
    Record<string, string>
  >;
  const external = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})];
  await build({
    entryPoints: [join(root, 'functions', 'cli', 'main.ts')],
    outdir: join(outDir, 'cli'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    minify: true,
    external: external.flatMap((name) => [name, `${name}/*`]),
    banner: { js: ESM_REQUIRE_BANNER },
    logLevel: 'error',
  });
}

function fail(diagnostics: readonly ts.Diagnostic[]): never {
  const host: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  };
  process.stderr.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
  process.exit(1);
}

/** `./a.ts` → `./a.js` (and `.mts`/`.cts` alike) for relative specifiers; anything else is left as it is. */
function jsSpecifier(specifier: string): string {
  return /^\.\.?\//.test(specifier) ? specifier.replace(/\.([mc]?)ts$/, '.$1js') : specifier;
}

/** Rewrites the relative `.ts` specifiers of a declaration file's imports, exports and `import("…")` types. */
function rewriteTsSpecifiers(context: ts.TransformationContext) {
  const { factory } = context;
  const literal = (node: ts.Expression | undefined) => {
    if (node === undefined || !ts.isStringLiteral(node)) return undefined;
    const rewritten = jsSpecifier(node.text);
    return rewritten === node.text ? undefined : factory.createStringLiteral(rewritten);
  };
  const visit = (node: ts.Node): ts.Node => {
    if (ts.isImportDeclaration(node)) {
      const specifier = literal(node.moduleSpecifier);
      if (specifier !== undefined) {
        return factory.updateImportDeclaration(node, node.modifiers, node.importClause, specifier, node.attributes);
      }
    } else if (ts.isExportDeclaration(node)) {
      const specifier = literal(node.moduleSpecifier);
      if (specifier !== undefined) {
        return factory.updateExportDeclaration(
          node,
          node.modifiers,
          node.isTypeOnly,
          node.exportClause,
          specifier,
          node.attributes,
        );
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const specifier = literal(node.argument.literal as ts.Expression);
      if (specifier !== undefined) {
        return factory.updateImportTypeNode(
          node,
          factory.updateLiteralTypeNode(node.argument, specifier),
          node.attributes,
          node.qualifier,
          node.typeArguments,
          node.isTypeOf,
        );
      }
    }
    return ts.visitEachChild(node, visit, context);
  };
  return (file: ts.SourceFile | ts.Bundle) => ts.visitNode(file, visit) as typeof file;
}
