import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AI_7,
  at,
  type DocSnippet,
  docSnippets,
  installedProject,
  type Packed,
  packedTarball,
  RESOLUTIONS,
  type Resolution,
  type Run,
  root,
  run,
  startHandback,
  succeeded,
  typeCheck,
  writeSnippets,
} from './projects.ts';

/**
 * The package as an agent developer gets it: `npm pack` (which builds dist/ and the bin through `prepack`, from a
 * copy of the working tree as a fresh clone has it, `projects.ts`), the tarball installed into fresh projects of their
 * own (from the npm cache `npm ci` filled) with nothing but Node's types, with the DynamoDB SDK, or with `ai` 6 or 7
 * alone, then imported from plain Node and type-checked by strict consumer projects with an ordinary `lib`: each
 * entry with only its own peers installed. `newcomer.slow.test.ts` installs it with every framework.
 */

/**
 * What the tarball may weigh: with the client and the five adapters, about 200 kB packed and 650 kB unpacked, and the
 * bin's bundle of the local service (the API handler, the inbox, the channels, the MCP server, the policy loader:
 * `handback start`, `handback mcp`) about 560 kB packed and 1.6 MB unpacked (the inbox's page about 390 kB of it,
 * nodemailer 240 kB, the AWS SDK clients of the hand-off targets 400 kB, before gzip); 766 kB packed in all at part
 * four's close; part five's schemas, the Claude Code channel and MCP tasks (§22) took it to 2.83 MB unpacked; §19–§23's
 * routes, views and stores to 930 kB packed and 3.59 MB unpacked (`dist/wire.d.ts` alone 423 kB: zod's inferred
 * declarations of every view; s3rver stays out, an optional peer like dynalite). The limits leave a little room.
 */
const MAX_PACKED_BYTES = 1_000_000;
const MAX_UNPACKED_BYTES = 3_800_000;

/**
 * What a module imports (its import and export declarations, import types, dynamic imports), read by TypeScript's own
 * scanner, so an example in a doc comment is not taken for an import.
 */
function specifiersOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
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
/** A consumer with nothing but the tarball and Node's types: no optional peer. */
let bare: string;
let consumer: string;
let packed: Packed;
/** The package.json the tarball carries. */
let published: Record<string, unknown>;

/** A consumer that also installs `ai` 6, the optional peer of handback/ai-sdk; and one with `ai` 7. */
let withAi: string;
let withAi7: string;

/**
 * A module hook that appends every URL the program loads to the file `$LOADED_LOG`, so a test can say which modules
 * an import pulls in (the hooks run on a thread of their own, hence the file).
 */
const RECORD_LOADS = `
  import { appendFileSync } from 'node:fs';
  export async function resolve(specifier, context, next) {
    const resolved = await next(specifier, context);
    appendFileSync(process.env.LOADED_LOG, resolved.url + '\\n');
    return resolved;
  }`;

/** Runs `script` as an ES module in `cwd`; resolves with what it printed and every module URL it loaded. */
async function runRecordingLoads(script: string, cwd: string): Promise<Run & { loaded: string[] }> {
  const log = join(cwd, `loaded-${Math.random().toString(36).slice(2)}.log`);
  await writeFile(log, '');
  const hooks = `data:text/javascript,${encodeURIComponent(RECORD_LOADS)}`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(hooks)});`;
  const result = await new Promise<Run>((resolve) => {
    execFile(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script],
      { cwd, env: { ...process.env, LOADED_LOG: log }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });
  const loaded = (await readFile(log, 'utf8')).split('\n').filter((line) => line !== '');
  return { ...result, loaded };
}

/** The loaded modules inside a package's folder of node_modules, by package name (`handback/dist/…` kept whole). */
function packagesOf(loaded: string[]): string[] {
  const names = loaded.flatMap((url) => {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)(\/.*)?$/.exec(url);
    if (match === null) return [];
    return match[1] === 'handback' ? [`handback${match[2] ?? ''}`] : [match[1] as string];
  });
  return [...new Set(names)].sort();
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'handback-pack-'));
  packed = await packedTarball();
  // The four installs at once: each mostly waits on the npm cache's disk, and each is a project of its own.
  [bare, consumer, withAi, withAi7] = await Promise.all([
    installedProject(work, 'consumer-bare', packed, [at('@types/node')]),
    // The consumer brings its own AWS SDK (a peer dependency of handback: one copy, so its DynamoDBDocumentClient is
    // the one the store's types name), and dynalite for handback/local. The repository's versions are in the cache.
    installedProject(
      work,
      'consumer',
      packed,
      ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', 'dynalite', '@types/node'].map(at),
    ),
    // The SDK's declarations import `json-schema`'s types: a strict consumer (skipLibCheck off) installs them beside it.
    installedProject(work, 'consumer-ai', packed, ['ai', 'zod', '@types/node', '@types/json-schema'].map(at)),
    // AI SDK 7, at the version the repository tests it with (its alias `ai-v7`), from the same cache.
    installedProject(work, 'consumer-ai7', packed, [AI_7, ...['zod', '@types/node', '@types/json-schema'].map(at)]),
  ]);
  // The consumer's manifest of handback is the published one.
  published = JSON.parse(await readFile(join(consumer, 'node_modules', 'handback', 'package.json'), 'utf8'));
}, 900_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('carries the built entries, the README and package.json, and nothing of the repository besides', () => {
    const paths = packed.files.map((file) => file.path).sort();
    expect(paths).toContain('package.json');
    expect(paths).toContain('README.md');
    const adapters = ['openai-agents', 'langgraph', 'strands'].flatMap((name) => [
      `dist/adapters/${name}.js`,
      `dist/adapters/${name}.d.ts`,
    ]);
    for (const entry of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/dynamodb.js',
      'dist/dynamodb.d.ts',
      'dist/local/public.js',
      'dist/local/public.d.ts',
      'dist/adapters/durable.js',
      'dist/adapters/durable.d.ts',
      ...adapters,
      'dist/client/index.js',
      'dist/client/index.d.ts',
      'dist/adapters/ai-sdk.js',
      'dist/adapters/ai-sdk.d.ts',
      'dist/testing/index.js',
      'dist/testing/index.d.ts',
      'dist/cli/main.js',
      'LICENSE',
      'handback.cedarschema',
    ]) {
      expect(paths).toContain(entry);
    }
    const shipped = ['package.json', 'README.md', 'LICENSE', 'handback.cedarschema'];
    const unexpected = paths.filter((path) => !/^dist\/.+\.(js|d\.ts)$/.test(path) && !shipped.includes(path));
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
      for (const specifier of specifiersOf(await readFile(join(dist, file), 'utf8'))) {
        if (/^\.{1,2}\//.test(specifier) && !specifier.endsWith('.js')) tsSpecifiers.push(`${file}: ${specifier}`);
      }
    }
    expect(files.length).toBeGreaterThan(20);
    expect(tsSpecifiers).toEqual([]);
  });
});

describe('the published manifest', () => {
  it('carries no scripts, devDependencies or overrides, and the repository keeps its own', async () => {
    expect(Object.keys(published).filter((key) => ['scripts', 'devDependencies', 'overrides'].includes(key))).toEqual(
      [],
    );
    expect(published).toMatchObject({ license: 'Apache-2.0', bin: { handback: './dist/cli/main.js' } });
    const repository = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
    expect(Object.keys(repository.scripts)).toEqual(expect.arrayContaining(['prepack', 'postpack', 'test', 'start']));
    expect(repository.scripts.prepare).toBeUndefined();
  });

  it('is built by npm run build alone, on a tree as a fresh clone has it (no generated inbox module, no dist/)', async () => {
    const repository = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
    expect(repository.scripts.prepack).toMatch(/^npm run build && [^&]*$/);
    expect(packed.builtBefore).toEqual([]);
    expect(packed.files.map((file) => file.path)).toContain('dist/cli/main.js');
  });

  it('names the DynamoDB SDK and every framework as optional peers, ai 6 and 7 both', () => {
    const peers = published.peerDependencies as Record<string, string>;
    const meta = published.peerDependenciesMeta as Record<string, { optional?: boolean }>;
    expect(Object.keys(peers).filter((name) => meta[name]?.optional !== true)).toEqual([]);
    expect(peers.ai).toBe('^6.0.0 || ^7.0.0');
  });

  it('has declarations that import only node builtins, its own files, its dependencies and its peers', async () => {
    const dist = join(consumer, 'node_modules', 'handback', 'dist');
    const declared = new Set([
      ...Object.keys(published.dependencies as Record<string, string>),
      ...Object.keys(published.peerDependencies as Record<string, string>),
    ]);
    const files = (await readdir(dist, { recursive: true })).filter((file) => file.endsWith('.d.ts'));
    const strays: string[] = [];
    for (const file of files) {
      for (const specifier of specifiersOf(await readFile(join(dist, file), 'utf8'))) {
        if (specifier.startsWith('.') || isBuiltin(specifier)) continue;
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
        if (!declared.has(name as string)) strays.push(`${file}: ${specifier}`);
      }
    }
    expect(files.length).toBeGreaterThan(20);
    expect(strays).toEqual([]);
  });
});

describe('the handback bin of the installed package', () => {
  const bin = () => join(consumer, 'node_modules', '.bin', 'handback');

  it("lists its commands, and prints a command's help", async () => {
    const listed = succeeded(await run(bin(), ['--help'], consumer), 'handback --help');
    expect(listed.stdout).toMatch(/^ {2}start {2,}Run Handback locally/m);
    const help = succeeded(await run(bin(), ['start', '--help'], consumer), 'handback start --help');
    expect(help.stdout).toMatch(/^Usage: handback start/);
    const unknown = await run(bin(), ['nope'], consumer);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('no command "nope"')]);
  });

  it('serves MCP over stdio (handback mcp) and answers as a Claude Code hook (handback claude-hook)', async () => {
    const client = new Client({ name: 'pack-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: bin(),
        args: ['mcp'],
        cwd: consumer,
        env: { PATH: process.env.PATH ?? '', HANDBACK_URL: 'http://127.0.0.1:9' },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['request_permission', 'ask_person']);
    } finally {
      await client.close();
    }
    const hook = await new Promise<string>((resolve, reject) => {
      const child = spawn(bin(), ['claude-hook'], { cwd: consumer, env: { PATH: process.env.PATH } });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('error', reject);
      child.once('close', () => resolve(out));
      child.stdin.end(
        JSON.stringify({
          // A Claude Code session id is a UUID (§22).
          session_id: '0c2f8f6e-3a6b-4c0e-9d0b-7f1f2a3b4c5d',
          hook_event_name: 'PreToolUse',
          tool_name: 'Write',
          tool_input: {},
          tool_use_id: 'toolu_1',
        }),
      );
    });
    expect(JSON.parse(hook)).toMatchObject({
      hookSpecificOutput: {
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringContaining('HANDBACK_URL'),
      },
    });
  });

  it('starts the local service from the installed package: the API and the inbox answer, and it stops on SIGTERM', async () => {
    const { url, stop } = await startHandback(consumer);
    try {
      const inbox = await fetch(`${url}/inbox`);
      const paused = await fetch(`${url}/runs/try-it/pauses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ format: 'openai-chat', messages: transcript, toolCallId: 'call_ask' }),
      });
      expect([inbox.status, (await inbox.text()).includes('<html'), paused.status]).toEqual([200, true, 201]);
    } finally {
      expect(await stop()).toBe(0);
    }
  });
});

describe('the installed package', () => {
  it('imports handback from plain Node ESM with no optional peer installed, and rebuilds a paused turn', async () => {
    const script = `
      import { checkTranscript, NOT_DISPATCHED, rehydrate } from 'handback';
      import { createDynamoDBCheckpointStore } from 'handback/dynamodb';
      const messages = ${JSON.stringify(transcript)};
      const rebuilt = rehydrate({ format: 'openai-chat', messages, toolCallId: 'call_ask' }, 'yes');
      console.log(JSON.stringify({
        rebuilt,
        violations: checkTranscript('openai-chat', rebuilt),
        notDispatched: NOT_DISPATCHED,
        store: typeof createDynamoDBCheckpointStore,
      }));`;
    const result = succeeded(await run(process.execPath, ['--input-type=module', '-e', script], bare), 'node');
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
      import { createDynamoDBCheckpointStore } from 'handback/dynamodb';
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
      await run(process.execPath, ['--input-type=module', '-e', script], consumer, { timeout: 60_000 }),
      'node with handback/local',
    );
    const out = JSON.parse(result.stdout);
    expect(out.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(out).toMatchObject({ status: 'resumed', count: 4, last: { role: 'tool', tool_call_id: 'call_fare' } });
    expect(result.stderr).toBe('');
  });

  it('imports handback/durable from plain Node without the durable execution SDK installed (an optional peer)', async () => {
    const script = `
      import { idempotencyKeyOf, waitForDecision } from 'handback/durable';
      console.log(JSON.stringify({ wait: typeof waitForDecision, key: idempotencyKeyOf('cb-1') }));`;
    const result = succeeded(await run(process.execPath, ['--input-type=module', '-e', script], consumer), 'node');
    expect([JSON.parse(result.stdout), result.stderr]).toEqual([{ wait: 'function', key: 'cb-1' }, '']);
  });

  it('imports without the optional peers, and an adapter names the framework it needs when that is missing', async () => {
    const script = `
      const core = await import('handback');
      const errors = {};
      for (const subpath of ['openai-agents', 'langgraph', 'strands']) {
        try { await import('handback/' + subpath); errors[subpath] = 'loaded'; }
        catch (error) { errors[subpath] = error.code + ' ' + error.message; }
      }
      console.log(JSON.stringify({ rehydrate: typeof core.rehydrate, errors }));`;
    const result = succeeded(await run(process.execPath, ['--input-type=module', '-e', script], consumer), 'node');
    const out = JSON.parse(result.stdout);
    expect(out.rehydrate).toBe('function');
    expect(out.errors['openai-agents']).toMatch(/^ERR_MODULE_NOT_FOUND .*'@openai\/agents'/);
    expect(out.errors.langgraph).toMatch(/^ERR_MODULE_NOT_FOUND .*'@langchain\/(core|langgraph)'/);
    expect(out.errors.strands).toMatch(/^ERR_MODULE_NOT_FOUND .*'@strands-agents\/sdk'/);
  });

  it('imports handback/client from plain Node ESM loading only its own modules and the errors: no server, zod or ajv', async () => {
    const script = `
      import { createHandbackClient, AlreadyDecidedError, HandbackError } from 'handback/client';
      const client = createHandbackClient({ baseUrl: 'http://127.0.0.1:9' });
      console.log(JSON.stringify({ ops: Object.keys(client).sort(), base: Object.getPrototypeOf(AlreadyDecidedError) === HandbackError }));`;
    const result = succeeded(await runRecordingLoads(script, consumer), 'node with handback/client');
    expect(JSON.parse(result.stdout)).toEqual({
      ops: [
        'cancel',
        'claim',
        'claimExecution',
        'createLink',
        'decide',
        'finishExecution',
        'getContinuation',
        'getPause',
        'listPauses',
        'pause',
        'resume',
      ],
      base: true,
    });
    const packages = packagesOf(result.loaded);
    expect(packages.filter((name) => !/^handback\/dist\/(client\/[\w-]+|errors)\.js$/.test(name))).toEqual([]);
    expect(result.loaded.filter((url) => url.startsWith('node:'))).toEqual([]);
    expect(result.stderr).toBe('');
  });

  it('imports handback, handback/dynamodb and handback/ai-sdk without the DynamoDB SDK (an optional peer), and what sends to DynamoDB names it', async () => {
    const script = `
      import { createMemoryCheckpointStore, rehydrate } from 'handback';
      import { createDynamoDBCheckpointStore } from 'handback/dynamodb';
      import { createDynamoDBToolExecutions } from 'handback/ai-sdk';
      const client = { send: async () => ({}) };
      const messages = async (promise) => promise.then(() => 'sent', (error) => error.message);
      const store = createDynamoDBCheckpointStore({ client, tableName: 'handback' });
      const executions = createDynamoDBToolExecutions({ client, tableName: 'handback' });
      console.log(JSON.stringify({
        loaded: [typeof rehydrate, typeof createMemoryCheckpointStore],
        store: await messages(store.listPauses({ tenant: 'acme' })),
        executions: await messages(executions.once('k', async () => 'ran')),
      }));`;
    const result = succeeded(await run(process.execPath, ['--input-type=module', '-e', script], withAi), 'node');
    const needs = 'needs the AWS SDK for DynamoDB: npm install @aws-sdk/client-dynamodb @aws-sdk/lib-dynamodb';
    expect(JSON.parse(result.stdout)).toEqual({
      loaded: ['function', 'function'],
      store: `The DynamoDB checkpoint store ${needs}`,
      executions: `createDynamoDBToolExecutions ${needs}`,
    });
    expect(result.stderr).toBe('');
  });

  it('loads no ai when handback is imported, and handback/ai-sdk names the missing peer when ai is not installed', async () => {
    const main = succeeded(
      await runRecordingLoads(`import 'handback'; console.log('ok');`, withAi),
      'node with handback',
    );
    expect(packagesOf(main.loaded).filter((name) => !name.startsWith('handback/'))).not.toContain('ai');
    const missing = await run(process.execPath, ['--input-type=module', '-e', `import 'handback/ai-sdk';`], consumer);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/Cannot find package 'ai'/);
  });

  it.each([
    ['ai 6', () => withAi, /^6\./],
    ['ai 7', () => withAi7, /^7\./],
  ])(
    'imports handback/ai-sdk from plain Node ESM with %s installed, and turns a step into asks',
    async (_, dir, major) => {
      const script = `
      import { createAiSdkHandback } from 'handback/ai-sdk';
      import { createHandbackClient } from 'handback/client';
      import { tool } from 'ai';
      import { z } from 'zod';
      const tools = { ask: tool({ inputSchema: z.object({ q: z.string() }) }) };
      const adapter = createAiSdkHandback({ handback: createHandbackClient({ baseUrl: 'http://127.0.0.1:9' }), tools });
      const step = { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'ask', input: { q: 'why?' } }], response: { messages: [] } };
      const { default: { version } } = await import('ai/package.json', { with: { type: 'json' } });
      console.log(JSON.stringify({ asks: await adapter.asksOf(step), version }));`;
      const result = succeeded(await runRecordingLoads(script, dir()), 'node with handback/ai-sdk');
      expect(JSON.parse(result.stdout)).toEqual({
        asks: [{ toolCallId: 'c1', toolName: 'ask', input: { q: 'why?' }, kind: 'answer' }],
        version: expect.stringMatching(major),
      });
      expect(packagesOf(result.loaded).filter((name) => name.startsWith('handback/'))).not.toContain(
        'handback/dist/index.js',
      );
      expect(result.stderr).toBe('');
    },
  );

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

  // One compiler at a time: beside each other they would starve on a small machine. One program per project and
  // resolution: each entry once, in a project with only its own peers; the AI SDK's pages' snippets on ai 6 and 7.
  const aiSnippets = docSnippets().filter((snippet) => snippet.ai);
  // The AI SDK's own declarations name the DOM's fetch types (HeadersInit, RequestCredentials).
  const withDom = ['ES2022', 'DOM'];
  const programs: Array<[string, () => string, Record<string, string>, string[], DocSnippet[]]> = [
    [
      'handback and handback/client, with no optional peer installed',
      () => bare,
      { 'core.ts': CORE_SOURCE, 'client.ts': CLIENT_SOURCE },
      ['ES2022'],
      [],
    ],
    [
      'handback/dynamodb and handback/local, with the DynamoDB SDK',
      () => consumer,
      { 'dynamodb.ts': DYNAMODB_SOURCE },
      ['ES2022'],
      [],
    ],
    ['handback/ai-sdk and the AI SDK snippets, with ai 6', () => withAi, { 'ai.ts': AI_SOURCE }, withDom, aiSnippets],
    ['handback/ai-sdk and the AI SDK snippets, with ai 7', () => withAi7, { 'ai.ts': AI_SOURCE }, withDom, aiSnippets],
  ];
  it.each(programs)(
    'type-checks a strict consumer of %s, under nodenext and bundler',
    async (_, dir, sources, lib, snippets) => {
      for (const [file, source] of Object.entries(sources)) await writeFile(join(dir(), file), source);
      await writeSnippets(dir(), snippets);
      const files = [...Object.keys(sources), ...snippets.map((snippet) => snippet.file)];
      for (const resolution of Object.keys(RESOLUTIONS) as Resolution[]) {
        expect({ resolution, printed: await typeCheck(dir(), files, resolution, lib) }).toEqual({
          resolution,
          printed: '',
        });
      }
    },
    600_000,
  );

  it('checks the root where no optional peer can be found, and the AI SDK snippets of the README and docs/ai-sdk.md', async () => {
    const found = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `for (const name of ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', 'ai', 'dynalite']) {
        try { import.meta.resolve(name); console.log(name); } catch {} }`,
      ],
      bare,
    );
    expect([found.stdout, found.code]).toEqual(['', 0]);
    expect(aiSnippets.map((snippet) => snippet.page)).toEqual(expect.arrayContaining(['README.md', 'docs/ai-sdk.md']));
  });
});

/** An agent's code on the root entry: the pure core, the memory store and the errors, with nothing but Node. */
const CORE_SOURCE = `
import {
  appendResults,
  type CheckpointStore,
  checkTranscript,
  createMemoryCheckpointStore,
  type FormatName,
  HandbackError,
  NOT_DISPATCHED,
  PauseNotFoundError,
  rehydrate,
  type ResumeResult,
  type Violation,
} from 'handback';

const store: CheckpointStore = createMemoryCheckpointStore();
const format: FormatName = 'openai-chat';
const messages: unknown[] = [];
const violations: Violation[] = checkTranscript(format, messages);
const rebuilt: unknown[] = rehydrate({ format, messages, toolCallId: 'call_1' }, NOT_DISPATCHED);
const next: unknown[] = appendResults(format, rebuilt, [{ toolCallId: 'call_2', output: 'done' }]);

export async function resume(): Promise<ResumeResult | string> {
  try {
    return await store.resume({ tenant: 't', runId: 'r', interruptId: 'i', answer: true });
  } catch (error) {
    if (error instanceof PauseNotFoundError) return error.code;
    if (error instanceof HandbackError) return error.name;
    throw error;
  }
}

export { violations, next };
`;

/** An agent developer's code: their own document client injected into the store, and handback/local in a test. */
const DYNAMODB_SOURCE = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type CheckpointStore, HandbackError, PauseNotFoundError, type ResumeResult } from 'handback';
import { createDynamoDBCheckpointStore, createTableInput, storageClientConfig } from 'handback/dynamodb';
import { type LocalStore, startLocalStore } from 'handback/local';

const client = DynamoDBDocumentClient.from(new DynamoDBClient(storageClientConfig({ region: 'eu-west-1' })));
const store: CheckpointStore = createDynamoDBCheckpointStore({ client, tableName: 'checkpoints' });
const table = createTableInput('checkpoints');

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

export { store, table };
`;

/** An agent's or a page's code on the HTTP client alone. */
const CLIENT_SOURCE = `
import { AlreadyDecidedError, createHandbackClient, type ClientDecideResult, HandbackHttpError } from 'handback/client';

const client = createHandbackClient({ baseUrl: 'https://api.example.com', token: async () => 'token' });

export async function approve(runId: string, interruptId: string): Promise<ClientDecideResult | string> {
  try {
    return await client.decide({ runId, interruptId, decisions: [{ toolCallId: 'call_1', decision: 'approve' }] });
  } catch (error) {
    if (error instanceof AlreadyDecidedError) return error.toolCallId;
    if (error instanceof HandbackHttpError) return String(error.status);
    throw error;
  }
}
`;

/** An agent's code on the AI SDK adapter. */
const AI_SOURCE = `
import { generateText, type LanguageModel, type ModelMessage, tool } from 'ai';
import { createAiSdkHandback, createMemoryToolExecutions, type ExecutionLog } from 'handback/ai-sdk';
import { createHandbackClient } from 'handback/client';
import { z } from 'zod';

const tools = {
  refund: tool({ inputSchema: z.object({ amount: z.number() }), needsApproval: true, execute: async ({ amount }) => ({ amount }) }),
};
const executions: ExecutionLog = createMemoryToolExecutions();
const handback = createHandbackClient({ baseUrl: 'https://api.example.com' });
const adapter = createAiSdkHandback({ handback, tools, executions });

export async function turn(model: LanguageModel, messages: ModelMessage[]) {
  const step = await generateText({ model, tools, messages });
  return adapter.pauseFromStep({ runId: 'run-1', messages, step });
}

export async function goOn(model: LanguageModel, continuationId: string) {
  const messages: ModelMessage[] = await adapter.continueFromPause({ runId: 'run-1', continuationId });
  return generateText({ model, tools, messages });
}
`;
