import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The package as an agent developer gets it: `npm pack` (which builds dist/ through `prepare`), the tarball installed
 * into a fresh project of its own (from the npm cache `npm ci` filled), then imported from plain Node and type-checked
 * by a strict consumer project with an ordinary `lib`.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

/** What the tarball may weigh (a third of it the README; handback/testing's spec suites add some 15 kB packed, 80 kB unpacked). */
const MAX_PACKED_BYTES = 175_000;
const MAX_UNPACKED_BYTES = 650_000;

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  files: Array<{ path: string }>;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end; never rejects, so a test can show what a failed run printed. */
function run(file: string, args: string[], cwd: string, timeout = 180_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr: error !== null && stderr === '' ? String(error) : stderr });
    });
  });
}

/** npm, as the npm running the tests when there is one (`npm test`), else from the PATH. */
function npm(args: string[], cwd: string): Promise<Run> {
  const cli = process.env.npm_execpath;
  return cli?.endsWith('.js') ? run(process.execPath, [cli, ...args], cwd) : run('npm', args, cwd);
}

function succeeded(result: Run, what: string): Run {
  if (result.code !== 0) throw new Error(`${what} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

const transcript = [
  { role: 'user', content: 'Book the 9:40 to Lyon?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_ask', type: 'function', function: { name: 'ask_human', arguments: '{"question":"Book it?"}' } },
      { id: 'call_fare', type: 'function', function: { name: 'get_fare', arguments: '{}' } },
    ],
  },
];

let work: string;
let consumer: string;
let packed: Packed;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'handback-pack-'));
  consumer = join(work, 'consumer');
  const pack = succeeded(await npm(['pack', '--json', '--pack-destination', work], root), 'npm pack');
  [packed] = JSON.parse(pack.stdout) as [Packed];

  await mkdir(consumer);
  await writeFile(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'handback-consumer', private: true, type: 'module' }),
  );
  // The consumer brings its own AWS SDK (a peer dependency of handback: one copy, so its DynamoDBDocumentClient is
  // the one the store's types name), and dynalite for handback/local. The repository's versions are in the cache.
  const own = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', 'dynalite', '@types/node'].map(
    (name) => `${name}@${manifest.devDependencies[name]}`,
  );
  succeeded(
    await npm(
      ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, packed.filename), ...own],
      consumer,
    ),
    'npm install of the tarball',
  );
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('carries the built entries, the README and package.json, and nothing of the repository besides', () => {
    const paths = packed.files.map((file) => file.path).sort();
    expect(paths).toContain('package.json');
    expect(paths).toContain('README.md');
    for (const entry of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/local/public.js',
      'dist/local/public.d.ts',
      'dist/testing/index.js',
      'dist/testing/index.d.ts',
    ]) {
      expect(paths).toContain(entry);
    }
    const unexpected = paths.filter(
      (path) => !/^dist\/.+\.(js|d\.ts)$/.test(path) && !['package.json', 'README.md', 'LICENSE'].includes(path),
    );
    expect(unexpected).toEqual([]);
    expect(paths.filter((path) => /(^|\/)(test|bench|infra|handlers|inbox)\/|cdk\.json|\.test\./.test(path))).toEqual(
      [],
    );
  });

  it(`stays under ${MAX_PACKED_BYTES / 1000} kB packed and ${MAX_UNPACKED_BYTES / 1000} kB unpacked`, () => {
    expect(packed.size).toBeLessThan(MAX_PACKED_BYTES);
    expect(packed.unpackedSize).toBeLessThan(MAX_UNPACKED_BYTES);
  });

  it('has declarations that import .js files, as the JavaScript beside them does', async () => {
    const dist = join(consumer, 'node_modules', 'handback', 'dist');
    const files = (await readdir(dist, { recursive: true })).filter((file) => /\.(js|d\.ts)$/.test(file));
    const tsSpecifiers: string[] = [];
    for (const file of files) {
      const text = await readFile(join(dist, file), 'utf8');
      // Import and export statements (a line of their own, or the closing line of a multi-line one), and import types.
      const statements = text.matchAll(/^\s*(?:import|export|\})[^\n]*?\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/gm);
      const importTypes = text.matchAll(/\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g);
      for (const match of [...statements, ...importTypes]) {
        if (!match[1]?.endsWith('.js')) tsSpecifiers.push(`${file}: ${match[1]}`);
      }
    }
    expect(files.length).toBeGreaterThan(20);
    expect(tsSpecifiers).toEqual([]);
  });
});

describe('the installed package', () => {
  it('imports from plain Node ESM and rebuilds a paused turn', async () => {
    const script = `
      import { checkTranscript, createDynamoDBCheckpointStore, NOT_DISPATCHED, rehydrate } from 'handback';
      const messages = ${JSON.stringify(transcript)};
      const rebuilt = rehydrate({ format: 'openai-chat', messages, toolCallId: 'call_ask' }, 'yes');
      console.log(JSON.stringify({
        rebuilt,
        violations: checkTranscript('openai-chat', rebuilt),
        notDispatched: NOT_DISPATCHED,
        store: typeof createDynamoDBCheckpointStore,
      }));`;
    const result = succeeded(await run(process.execPath, ['--input-type=module', '-e', script], consumer), 'node');
    const out = JSON.parse(result.stdout);
    expect(out.rebuilt.slice(2).map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual([
      'call_ask',
      'call_fare',
    ]);
    expect(out.rebuilt[2].content).toBe('yes');
    expect(out.rebuilt[3].content).toBe(out.notDispatched);
    expect(out).toMatchObject({ violations: [], notDispatched: expect.stringMatching(/^Not run/), store: 'function' });
    expect(result.stderr).toBe('');
  });

  it('starts handback/local, pauses and resumes through the DynamoDB store on it, and closes', async () => {
    const script = `
      import { createDynamoDBCheckpointStore } from 'handback';
      import { startLocalStore } from 'handback/local';
      const local = await startLocalStore({ tableName: 'consumer-checkpoints' });
      try {
        const store = createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName });
        const key = { tenant: 'acme', runId: 'run-1' };
        const paused = await store.pause({ ...key, format: 'openai-chat', messages: ${JSON.stringify(transcript)}, toolCallId: 'call_ask' });
        const resumed = await store.resume({ ...key, interruptId: paused.interruptId, answer: { book: true } });
        const view = await store.getPause({ ...key, interruptId: paused.interruptId });
        console.log(JSON.stringify({ endpoint: local.endpoint, status: view.status, last: resumed.messages.at(-1), count: resumed.messages.length }));
      } finally {
        await local.close();
      }`;
    // Exiting on its own is the proof that close() let go of the server and the client's sockets.
    const result = succeeded(
      await run(process.execPath, ['--input-type=module', '-e', script], consumer, 60_000),
      'node with handback/local',
    );
    const out = JSON.parse(result.stdout);
    expect(out.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(out).toMatchObject({ status: 'resumed', count: 4, last: { role: 'tool', tool_call_id: 'call_fare' } });
    expect(result.stderr).toBe('');
  });

  it('loads handback without vitest, and names vitest as what handback/testing needs', async () => {
    // The consumer installs no vitest: the entry point must not reach it, and only the testing subpath asks for it.
    const script = `
      const handback = await import('handback');
      let testing;
      try { await import('handback/testing'); testing = 'loaded'; } catch (error) { testing = error.code + ' ' + error.message; }
      console.log(JSON.stringify({ store: typeof handback.createMemoryCheckpointStore, testing }));`;
    const result = succeeded(await run(process.execPath, ['--input-type=module', '-e', script], consumer), 'node');
    const out = JSON.parse(result.stdout);
    expect(out.store).toBe('function');
    expect(out.testing).toMatch(/^ERR_MODULE_NOT_FOUND .*'vitest'/);
  });

  const settings = {
    nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
    bundler: { module: 'preserve', moduleResolution: 'bundler' },
  };
  it.concurrent.each(Object.keys(settings) as Array<keyof typeof settings>)(
    'type-checks a strict consumer with lib ES2022 under moduleResolution %s, library declarations included',
    async (name) => {
      await writeFile(join(consumer, 'consumer.ts'), CONSUMER_SOURCE);
      const config = {
        compilerOptions: {
          ...settings[name],
          target: 'ES2022',
          lib: ['ES2022'],
          types: ['node'],
          strict: true,
          skipLibCheck: false,
          noEmit: true,
        },
        files: ['consumer.ts'],
      };
      await writeFile(join(consumer, `tsconfig.${name}.json`), JSON.stringify(config));
      const result = await run(process.execPath, [tsc, '-p', `tsconfig.${name}.json`, '--pretty', 'false'], consumer);
      expect(result.stdout + result.stderr).toBe('');
      expect(result.code).toBe(0);
    },
    180_000,
  );
});

/** An agent developer's code: their own document client injected into the store, and handback/local in a test. */
const CONSUMER_SOURCE = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type CheckpointStore,
  checkTranscript,
  createDynamoDBCheckpointStore,
  type FormatName,
  HandbackError,
  NOT_DISPATCHED,
  PauseNotFoundError,
  rehydrate,
  type ResumeResult,
  type Violation,
} from 'handback';
import { type LocalStore, startLocalStore } from 'handback/local';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const store: CheckpointStore = createDynamoDBCheckpointStore({ client, tableName: 'checkpoints' });
const format: FormatName = 'openai-chat';
const messages: unknown[] = [];
const violations: Violation[] = checkTranscript(format, messages);
const rebuilt: unknown[] = rehydrate({ format, messages, toolCallId: 'call_1' }, NOT_DISPATCHED);

export async function resumeInTest(): Promise<ResumeResult | string> {
  const local: LocalStore = await startLocalStore({ tableName: 'test' });
  try {
    const own = createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName });
    return await own.resume({ tenant: 't', runId: 'r', interruptId: 'i', answer: true });
  } catch (error) {
    if (error instanceof PauseNotFoundError) return error.code;
    if (error instanceof HandbackError) return error.name;
    throw error;
  } finally {
    await local.close();
  }
}

export { store, violations, rebuilt };
`;
