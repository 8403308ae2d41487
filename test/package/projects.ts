import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { docPages, fencedBlocks, readPage } from '../docs/markdown.ts';

/**
 * The package as `npm pack` makes it, for the tests that install it into fresh projects (`pack.slow.test.ts`,
 * `newcomer.slow.test.ts`).
 *
 * **Packed from a copy.** `npm pack` runs `prepack`, which builds the inbox and dist/ and swaps package.json for the
 * published one until `postpack`. Run in the repository, that rewrites files other processes read at the same moment:
 * a test run's global setup rebuilding a stale dist/, a second `npm pack`, an `npm run` finding no scripts in the
 * stripped manifest; and every pack left package.json newer than dist/, so the next test run rebuilt dist/. So the
 * working tree as git sees it (tracked and untracked files, nothing ignored) is copied to a temporary directory, its
 * `node_modules` a directory of links to the repository's packages, and packed there: the repository is only read.
 *
 * **Once per content.** The tarball is kept under `node_modules/.cache/handback-tarball/`, named by a hash of every
 * copied file's path and bytes, and a test file reuses it while nothing changed. A lock (a directory made atomically)
 * lets one process pack while the others wait for its tarball.
 */

/** The repository's root. */
export const root = fileURLToPath(new URL('../..', import.meta.url));
const cache = join(root, 'node_modules', '.cache', 'handback-tarball');
/** A lock older than this is a packer that died; the next one takes it over. */
const STALE_LOCK_MS = 20 * 60_000;
const PACK_TIMEOUT_MS = 15 * 60_000;

/** What `npm pack --json` says of the tarball, and where it is. */
export interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  files: Array<{ path: string }>;
  /** The tarball's path. */
  path: string;
  /** What the copy it was packed from held of what a build makes: none of it, as on a fresh clone. */
  builtBefore: string[];
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end; never rejects, so a caller can show what a failed run printed. */
export function run(
  file: string,
  args: string[],
  cwd: string,
  options: { timeout?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd, timeout: options.timeout ?? 180_000, maxBuffer: 64 * 1024 * 1024, env: options.env ?? process.env },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        // A run killed for its timeout has no exit code: say so, beside what it printed.
        const killed =
          error?.killed === true ? `\n(killed by ${error.signal} after ${options.timeout ?? 180_000} ms)` : '';
        resolve({ code, stdout, stderr: `${stderr}${error !== null && stderr === '' ? String(error) : ''}${killed}` });
      },
    );
  });
}

/** npm, as the npm running the tests when there is one (`npm test`), else from the PATH. */
export function npm(args: string[], cwd: string, timeout = 600_000): Promise<Run> {
  const cli = process.env.npm_execpath;
  return cli?.endsWith('.js')
    ? run(process.execPath, [cli, ...args], cwd, { timeout })
    : run('npm', args, cwd, { timeout });
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
  dependencies: Record<string, string>;
};

/** The version the repository tests `name` with: its manifest's, else the one its lockfile installed (a dependency's). */
export function versionOf(name: string): string {
  return (
    manifest.devDependencies[name] ??
    manifest.dependencies[name] ??
    (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version
  );
}

/** `name@version` at the repository's version, for `npm install` from the cache `npm ci` filled. */
export const at = (name: string): string => `${name}@${versionOf(name)}`;

/** AI SDK 7 as npm's own `ai`, at the version the repository tests it with (its alias `ai-v7`). */
export const AI_7 = `ai@${versionOf('ai-v7').replace(/^npm:ai@/, '')}`;

/** A fresh ESM project `work/name` with the tarball and `packages` installed from the npm cache; resolves with its path. */
export async function installedProject(
  work: string,
  name: string,
  packed: Packed,
  packages: string[],
): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir);
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  succeeded(
    await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', packed.path, ...packages], dir),
    `npm install of the tarball in ${name}`,
  );
  return dir;
}

export function succeeded<T extends Run>(result: T, what: string): T {
  if (result.code !== 0) throw new Error(`${what} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** The working tree's files as git sees them: tracked (and still there) and untracked, nothing ignored. */
async function sourceFiles(): Promise<string[]> {
  const listed = succeeded(
    await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root),
    'git ls-files',
  );
  const files = [...new Set(listed.stdout.split('\0').filter((file) => file !== ''))].sort();
  return files.filter((file) => existsSync(join(root, file)));
}

async function hashOf(files: string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(await readFile(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** The tarball of the working tree now, packed once per content. */
export async function packedTarball(): Promise<Packed> {
  const files = await sourceFiles();
  const hash = await hashOf(files);
  const described = join(cache, `${hash}.json`);
  const lock = join(cache, `${hash}.lock`);
  await mkdir(cache, { recursive: true });
  for (;;) {
    if (existsSync(described)) return JSON.parse(await readFile(described, 'utf8')) as Packed;
    try {
      await mkdir(lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const since = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      if (since > STALE_LOCK_MS) await rm(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    try {
      const packed = await packCopy(files, hash);
      await forgetOthers(hash);
      // The description last: its presence says the tarball beside it is whole.
      await writeFile(`${described}.tmp`, JSON.stringify(packed));
      await rename(`${described}.tmp`, described);
      return packed;
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }
}

/** Copies `files` to a fresh directory with links to the repository's packages, and runs `npm pack` there. */
async function packCopy(files: string[], hash: string): Promise<Packed> {
  const copy = await mkdtemp(join(tmpdir(), 'handback-pack-source-'));
  try {
    for (const file of files) {
      await mkdir(dirname(join(copy, file)), { recursive: true });
      await copyFile(join(root, file), join(copy, file));
    }
    // A directory of its own (the build's staging and the manifest's keeping go under its .cache), its entries links.
    await mkdir(join(copy, 'node_modules'));
    for (const entry of await readdir(join(root, 'node_modules'))) {
      if (entry === '.cache') continue;
      await symlink(join(root, 'node_modules', entry), join(copy, 'node_modules', entry));
    }
    // A fresh clone's tree: `prepack` runs `npm run build` alone, so a tarball packed from it is the proof that the
    // build needs nothing built before it (the inbox's generated module, dist/).
    const builtBefore = ['dist', 'functions/inbox/generated.ts'].filter((path) => existsSync(join(copy, path)));
    const out = await mkdtemp(join(tmpdir(), 'handback-pack-out-'));
    try {
      const pack = succeeded(
        await npm(['pack', '--json', '--pack-destination', out], copy, PACK_TIMEOUT_MS),
        'npm pack (from a copy of the working tree)',
      );
      const [described] = JSON.parse(pack.stdout) as [Omit<Packed, 'path'>];
      const path = join(cache, `${hash}.tgz`);
      await copyFile(join(out, described.filename), `${path}.tmp`);
      await rename(`${path}.tmp`, path);
      return { ...described, path, builtBefore };
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

/** Removes the tarballs of other contents (an older working tree's) that no test run can still be installing. */
async function forgetOthers(hash: string): Promise<void> {
  for (const entry of await readdir(cache)) {
    if (entry.startsWith(hash) || !/\.(tgz|json)$/.test(entry)) continue;
    const { mtimeMs } = await stat(join(cache, entry));
    if (Date.now() - mtimeMs > STALE_LOCK_MS) await rm(join(cache, entry), { force: true });
  }
}

/** A TypeScript snippet of the README or a docs page, as written, and the file a consumer project holds it in. */
export interface DocSnippet {
  page: string;
  line: number;
  code: string;
  /** Its module in a consumer project: `snippets/<page>-<line>.mts`. */
  file: string;
  /** It imports the AI SDK (`ai`, `handback/ai-sdk`): checked against ai 6 and 7, in projects of their own. */
  ai: boolean;
}

/** Every ```ts block of the README and the docs pages. */
export function docSnippets(): DocSnippet[] {
  return docPages().flatMap((page) =>
    fencedBlocks(readPage(page))
      .filter((block) => block.lang === 'ts' || block.lang === 'typescript')
      .map((block) => ({
        page,
        line: block.line,
        code: block.code,
        file: `snippets/${page.replace(/[/.]/g, '-')}-${block.line}.mts`,
        ai: /from '(ai|ai\/[^']+|handback\/ai-sdk)'/.test(block.code),
      })),
  );
}

/** Writes `snippets` into the project in `dir`, each a module of its own. */
export async function writeSnippets(dir: string, snippets: readonly DocSnippet[]): Promise<void> {
  await mkdir(join(dir, 'snippets'), { recursive: true });
  for (const snippet of snippets) await writeFile(join(dir, snippet.file), `${snippet.code}\nexport {};\n`);
}

/** `handback start` of the package installed in `cwd`, on a free port; `stop()` ends it with SIGTERM, to its exit code. */
export async function startHandback(
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ url: string; stop(): Promise<number | null> }> {
  const bin = join(cwd, 'node_modules', '.bin', 'handback');
  const child = spawn(bin, ['start'], { cwd, env: { ...process.env, PORT: '0', LOG_LEVEL: 'ERROR', ...env } });
  let out = '';
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`handback start printed no URL:\n${out}`)), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(found[1] as string);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`handback start exited ${code}:\n${out}`));
    });
  }).catch(async (error) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    url,
    stop: () => {
      child.kill('SIGTERM');
      return closed;
    },
  };
}

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

/** How a consumer resolves modules: Node's own rules, or a bundler's. */
export const RESOLUTIONS = {
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'preserve', moduleResolution: 'bundler' },
} as const;

export type Resolution = keyof typeof RESOLUTIONS;

/**
 * The check of a project's declarations that is not `tsc`'s: the diagnostics of the consumer's own files and of
 * Handback's declarations (`node_modules/handback/`), and the program's global ones, by TypeScript's API (argv: the
 * tsconfig); printed as `tsc --pretty false` prints them.
 */
const HANDBACK_PART = `
  import ts from ${JSON.stringify(pathToFileURL(join(root, 'node_modules', 'typescript', 'lib', 'typescript.js')).href)};
  const parsed = ts.getParsedCommandLineOfConfigFile(process.argv[1], {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\\n')); } });
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const checked = program.getSourceFiles().filter((file) => !file.fileName.includes('/node_modules/') || file.fileName.includes('/node_modules/handback/'));
  const diagnostics = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(), ...checked.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)])];
  const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\\n' };
  process.stdout.write(ts.formatDiagnostics(diagnostics, host));
  process.exitCode = diagnostics.length > 0 ? 2 : 0;`;

/**
 * Type-checks `files` of the project in `dir` as a strict consumer does: `strict`, `skipLibCheck: false`, an ordinary
 * `lib` and Node's types, under `resolution`. Under `nodenext` it is the consumer's `tsc`: every declaration file the
 * program reaches is checked, Handback's and the frameworks' (which need the `lib` and types docs/compatibility.md
 * says). Under `bundler` only the consumer's files and Handback's declarations are: they are what the resolution
 * changes Handback's part of, and the frameworks' own declarations, checked once under `nodenext`, are most of the
 * time. Resolves with what the compiler printed ('' when clean).
 */
export async function typeCheck(
  dir: string,
  files: string[],
  resolution: Resolution,
  lib: string[] = ['ES2022'],
): Promise<string> {
  const config = {
    compilerOptions: {
      ...RESOLUTIONS[resolution],
      target: 'ES2022',
      lib,
      types: ['node'],
      strict: true,
      skipLibCheck: false,
      noEmit: true,
    },
    files,
  };
  const name = `tsconfig.${createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 8)}.json`;
  await writeFile(join(dir, name), JSON.stringify(config));
  const args =
    resolution === 'nodenext'
      ? [tsc, '-p', name, '--pretty', 'false']
      : ['--input-type=module', '-e', HANDBACK_PART, name];
  const result = await run(process.execPath, args, dir, { timeout: 600_000 });
  if (result.code === 0) return '';
  return result.stdout.trim() || result.stderr.trim() || `the check exited ${result.code}`;
}
