import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRefundedOnce, RACE_ADAPTERS, type RaceSite } from '../adapters/race/race.ts';
import { fencedBlocks, readPage } from '../docs/markdown.ts';
import { expectedStory, frameworkSnippets } from '../docs/snippet-stories.ts';
import { useTestTable } from '../support/dynamodb.ts';
import {
  AI_7,
  at,
  installedProject,
  type Packed,
  packedTarball,
  RESOLUTIONS,
  type Resolution,
  root,
  run,
  startHandback,
  succeeded,
  typeCheck,
} from './projects.ts';

/**
 * The newcomer's path, on the package as npm installs it: the packed tarball in a fresh project with every
 * framework (`ai` 6, the OpenAI Agents SDK, LangGraph, Strands, the durable execution SDK), and one with `ai` 7.
 * There, with nothing of the repository but copies of the test harnesses (which import Handback by its package name):
 *
 * - each framework snippet of the README and the docs pages, as written, pauses, is decided, is delivered twice and
 *   runs the refund once, on `handback/local` and through `handback/client` against the installed `handback start`;
 * - docs/durable.md's snippet runs under the durable execution SDK's own test runner, as its "Run it without AWS" says;
 * - two processes receiving the same continuation run the refund exactly once, for all five adapters, on `ai` 6 and 7;
 * - `tsc`, strict with `skipLibCheck: false`, is clean for every subpath and every snippet, under `nodenext` and
 *   `bundler`.
 */

const table = useTestTable();

/** The package's subpaths, each a file of the consumer: `export * from 'handback/…'`. */
const SUBPATHS = ['', 'local', 'client', 'ai-sdk', 'openai-agents', 'langgraph', 'strands', 'durable', 'testing'];

/** The test harnesses copied into the projects, at the same paths (their relative imports stay true). */
const HARNESSES = [
  'test/support/scripted-models.ts',
  'test/docs/framework-snippets.ts',
  'test/docs/durable-snippet-run.ts',
  'test/adapters/race/worker.ts',
  'test/adapters/race/file-saver.ts',
];

/** What an agent developer installs beside Handback, at the repository's versions (in the npm cache). */
const OWN = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', 'dynalite', 'zod', 'tsx', '@types/node'];
/** The AI SDK's declarations import `json-schema`'s types: a project type-checking them installs these. */
const AI_TYPES = '@types/json-schema';
const FRAMEWORKS = [
  'ai',
  '@openai/agents',
  // `@openai/agents` wants `openai` 7 and `@strands-agents/sdk` names `openai` 6 as a peer: the project pins 6, as
  // docs/compatibility.md tells (the Agents SDK keeps its own 7).
  'openai',
  'langchain',
  '@langchain/core',
  '@langchain/langgraph',
  '@strands-agents/sdk',
  '@aws/durable-execution-sdk-js',
  '@aws/durable-execution-sdk-js-testing',
  // The durable execution SDK's declarations import `aws-lambda`'s types: a project type-checking them installs these.
  '@types/aws-lambda',
  AI_TYPES,
  // handback/testing's suites run in vitest.
  'vitest',
];

let work: string;
let packed: Packed;
/** The fresh project with every framework and `ai` 6. */
let project: string;
/** The fresh project with `ai` 7 (through npm's own `ai@7`, not the repository's alias). */
let project7: string;
let service: Awaited<ReturnType<typeof startHandback>> | undefined;

/** A fresh ESM project with the tarball and `packages` installed, the harnesses and the pages' snippets in it. */
async function freshProject(name: string, packages: string[]): Promise<string> {
  const dir = await installedProject(work, name, packed, packages);
  for (const file of HARNESSES) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await copyFile(join(root, file), join(dir, file));
  }
  await mkdir(join(dir, 'snippets'));
  for (const snippet of snippets) await writeFile(join(dir, snippet.file), `${snippet.code}\nexport {};\n`);
  for (const subpath of SUBPATHS) {
    await writeFile(
      join(dir, `subpath-${subpath || 'handback'}.ts`),
      `export * from 'handback${subpath && '/'}${subpath}';\n`,
    );
  }
  return dir;
}

/** The pages' framework snippets and docs/durable.md's, as written, each a module of the project. */
const snippets = [
  ...frameworkSnippets().map((snippet) => ({
    ...snippet,
    file: `snippets/${snippet.page.replace(/[/.]/g, '-')}-${snippet.line}.mts`,
  })),
  ...fencedBlocks(readPage('docs/durable.md'))
    .filter((block) => block.lang === 'ts')
    .slice(0, 1)
    .map((block) => ({
      page: 'docs/durable.md',
      line: block.line,
      given: 'durable',
      code: block.code,
      file: 'snippets/durable.mts',
    })),
];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'handback-newcomer-'));
  packed = await packedTarball();
  project = await freshProject('newcomer', [...OWN, ...FRAMEWORKS].map(at));
  project7 = await freshProject('newcomer-ai7', [...[...OWN, AI_TYPES].map(at), AI_7]);
  // The snippets that reach Handback by URL find the installed package's local service there.
  service = await startHandback(project);
}, 900_000);

afterAll(async () => {
  await service?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** `node --import tsx <args>` in a project, as an agent developer runs TypeScript. */
function tsx(dir: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return run(process.execPath, ['--import', 'tsx', ...args], dir, {
    timeout: 120_000,
    env: { ...process.env, HANDBACK_URL: service?.url, ...env },
  });
}

const lastLine = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null');

describe('the fresh projects', () => {
  it('hold the tarball, with ai 6 in one and ai 7 in the other, and no repository of Handback', async () => {
    const version = async (dir: string, name: string) =>
      (JSON.parse(await readFile(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
        .version;
    expect({
      handback: await version(project, 'handback'),
      ai6: await version(project, 'ai'),
      ai7: await version(project7, 'ai'),
    }).toEqual({
      handback: packed.filename.replace(/^handback-|\.tgz$/g, ''),
      ai6: expect.stringMatching(/^6\./),
      ai7: expect.stringMatching(/^7\./),
    });
    const script = `const found = []; for (const s of ${JSON.stringify(SUBPATHS)}) found.push(typeof (await import('handback' + (s && '/') + s)));
      console.log(JSON.stringify({ found, url: import.meta.resolve('handback') }));`;
    const loaded = succeeded(await run(process.execPath, ['--input-type=module', '-e', script], project), 'node');
    expect(JSON.parse(loaded.stdout)).toEqual({
      found: SUBPATHS.map(() => 'object'),
      url: expect.stringContaining('/newcomer/node_modules/handback/dist/index.js'),
    });
  });
});

describe("the pages' framework snippets, as written, on the installed package", () => {
  const cases = [
    ...snippets.filter((s) => s.given !== 'durable').map((s) => [`${s.page}:${s.line}`, 'ai 6', s] as const),
    ...snippets.filter((s) => s.given === 'ai-sdk').map((s) => [`${s.page}:${s.line}`, 'ai 7', s] as const),
  ];
  it.each(cases)(
    '%s (%s) pauses, a person approves, and the refund runs once for two deliveries, on the store and the client',
    async (_, ai, snippet) => {
      const dir = ai === 'ai 7' ? project7 : project;
      const result = await tsx(dir, ['test/docs/framework-snippets.ts', snippet.given, snippet.file]);
      expect({ code: result.code }, `${result.stdout}\n${result.stderr}`).toEqual({ code: 0 });
      expect(lastLine(result.stdout)).toEqual(expectedStory(snippet.given));
    },
    180_000,
  );

  it.each([
    ['approved', { toolCallId: 'call_1', decision: 'approve' }, { result: [{ amount: 120 }] }],
    ['cancelled', {}, { error: 'PauseCancelledError' }],
  ])(
    "docs/durable.md's snippet goes on when the pause is %s, under the SDK's test runner",
    async (_, decision, expected) => {
      const env = {
        TABLE_NAME: table.tableName,
        AWS_ENDPOINT_URL_DYNAMODB: table.endpoint,
        AWS_REGION: 'local',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
      };
      const args = ['test/docs/durable-snippet-run.ts', 'snippets/durable.mts', JSON.stringify(decision), 'runner'];
      const result = await tsx(project, args, env);
      expect({ code: result.code }, `${result.stdout}\n${result.stderr}`).toEqual({ code: 0 });
      expect(lastLine(result.stdout)).toEqual(expected);
    },
    180_000,
  );
});

describe('two processes receiving the same continuation, on the installed package', () => {
  type Case = [string, string, () => string, 6 | 7 | undefined];
  const cases: Case[] = [
    ...RACE_ADAPTERS.map(
      (adapter): Case => [`handback/${adapter}`, adapter, () => project, adapter === 'ai-sdk' ? 6 : undefined],
    ),
    ['handback/ai-sdk on ai 7', 'ai-sdk', () => project7, 7],
  ];
  it.each(cases)(
    '%s runs the refund exactly once',
    async (_, adapter, dir, ai) => {
      // The copied worker, run as an agent developer runs TypeScript: tsx, installed in the project.
      const site: RaceSite = { cwd: dir(), worker: 'test/adapters/race/worker.ts', imports: ['--import', 'tsx'], work };
      await expectRefundedOnce(site, table, adapter, ai);
    },
    240_000,
  );
});

describe('tsc, strict with skipLibCheck false, on the installed package', () => {
  const subpathFiles = (subpaths: string[]) => subpaths.map((subpath) => `subpath-${subpath || 'handback'}.ts`);
  // The AI SDK's and MCP's (Strands') declarations name the DOM's fetch types: their projects have `lib` DOM.
  const lib = ['ES2022', 'DOM'];

  it.each(Object.keys(RESOLUTIONS) as Resolution[])(
    'is clean for every subpath and every snippet with every framework installed, under %s',
    async (resolution) => {
      const files = [...subpathFiles(SUBPATHS), ...snippets.map((snippet) => snippet.file)];
      expect(await typeCheck(project, files, resolution, lib)).toBe('');
    },
    600_000,
  );

  it.each(Object.keys(RESOLUTIONS) as Resolution[])(
    'is clean for handback, handback/client, handback/local and handback/ai-sdk and its snippets on ai 7, under %s',
    async (resolution) => {
      const files = [
        ...subpathFiles(['', 'local', 'client', 'ai-sdk', 'testing']),
        ...snippets.filter((snippet) => snippet.given === 'ai-sdk').map((snippet) => snippet.file),
      ];
      expect(await typeCheck(project7, files, resolution, lib)).toBe('');
    },
    600_000,
  );
});
