import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  at,
  docSnippets,
  installedProject,
  type Packed,
  packedTarball,
  RESOLUTIONS,
  type Resolution,
  run,
  succeeded,
  typeCheck,
  writeSnippets,
} from './projects.ts';

/**
 * The package as a newcomer installs it: the packed tarball in a fresh project with every framework (the OpenAI
 * Agents SDK, LangGraph, Strands, the durable execution SDK) and the DynamoDB SDK. There, what only the installed
 * package can show:
 *
 * - every subpath of `exports` loads in plain Node, beside the frameworks as npm installed them;
 * - `tsc`, strict with `skipLibCheck: false`, is clean for the adapters' subpaths (`handback/openai-agents`,
 *   `handback/langgraph`, `handback/strands`, `handback/durable`, `handback/testing`) and every TypeScript snippet of
 *   the README and the docs pages, under `nodenext` and `bundler`.
 *
 * Each of the other entries is type-checked once, in a project with only its own peers (`pack.slow.test.ts`: the
 * root, the client, `handback/dynamodb` with `handback/local`, and `handback/ai-sdk` with the AI SDK's snippets on
 * ai 6 and 7). What the snippets and the adapters do runs in the repository, each in one harness:
 * `test/docs/snippets.slow.test.ts` (every snippet, the framework snippets through a pause, a decision and two
 * deliveries), `test/docs/durable-snippet.slow.test.ts` (docs/durable.md's under the SDK's runner),
 * `test/adapters/race.slow.test.ts` (two processes given one continuation) and `test/adapters/*.store.test.ts`.
 */

/** The package's subpaths: `export * from 'handback/…'`, each loaded by Node. */
const SUBPATHS = [
  '',
  'dynamodb',
  'local',
  'client',
  'ai-sdk',
  'openai-agents',
  'langgraph',
  'strands',
  'durable',
  'testing',
];
/** The subpaths type-checked here, with every framework; `pack.slow.test.ts` checks the others. */
const CHECKED_HERE = ['openai-agents', 'langgraph', 'strands', 'durable', 'testing'];

/** What an agent developer installs beside Handback, at the repository's versions (in the npm cache). */
const OWN = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', 'dynalite', 'zod', '@types/node'];
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
  // The durable execution SDK's declarations import `aws-lambda`'s types: a project type-checking them installs these.
  '@types/aws-lambda',
  // handback/testing's suites run in vitest.
  'vitest',
];

/** The snippets checked here: all but the AI SDK's (`pack.slow.test.ts` checks those on ai 6 and 7). */
const snippets = docSnippets().filter((snippet) => !snippet.ai);

let work: string;
let packed: Packed;
let project: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'handback-newcomer-'));
  packed = await packedTarball();
  project = await installedProject(work, 'newcomer', packed, [...OWN, ...FRAMEWORKS].map(at));
  await writeSnippets(project, snippets);
  for (const subpath of SUBPATHS) {
    await writeFile(
      join(project, `subpath-${subpath || 'handback'}.ts`),
      `export * from 'handback${subpath && '/'}${subpath}';\n`,
    );
  }
}, 900_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the fresh project with every framework', () => {
  it('holds the tarball, and Node loads every subpath of it, none from the repository', async () => {
    const installed = JSON.parse(await readFile(join(project, 'node_modules', 'handback', 'package.json'), 'utf8'));
    expect(installed.version).toBe(packed.filename.replace(/^handback-|\.tgz$/g, ''));
    expect(
      Object.keys(installed.exports)
        .filter((key) => key !== './package.json')
        .sort(),
    ).toEqual(SUBPATHS.map((subpath) => (subpath === '' ? '.' : `./${subpath}`)).sort());
    const script = `const found = []; for (const s of ${JSON.stringify(SUBPATHS)}) found.push(typeof (await import('handback' + (s && '/') + s)));
      console.log(JSON.stringify({ found, url: import.meta.resolve('handback') }));`;
    const loaded = succeeded(await run(process.execPath, ['--input-type=module', '-e', script], project), 'node');
    expect(JSON.parse(loaded.stdout)).toEqual({
      found: SUBPATHS.map(() => 'object'),
      url: expect.stringContaining('/newcomer/node_modules/handback/dist/index.js'),
    });
  });
});

describe('tsc, strict with skipLibCheck false, on the installed package', () => {
  // The AI SDK's and MCP's (Strands') declarations name the DOM's fetch types: the project has `lib` DOM.
  const lib = ['ES2022', 'DOM'];

  it('has every snippet of the README and the docs pages to check but the AI SDK’s', () => {
    expect(snippets.length).toBeGreaterThan(10);
    expect(snippets.map((snippet) => snippet.page)).toEqual(
      expect.arrayContaining(['README.md', 'docs/durable.md', 'docs/langgraph.md', 'docs/storage.md']),
    );
  });

  it.each(Object.keys(RESOLUTIONS) as Resolution[])(
    'is clean for the adapters and handback/testing and the snippets, with every framework installed, under %s',
    async (resolution) => {
      const files = [...CHECKED_HERE.map((subpath) => `subpath-${subpath}.ts`), ...snippets.map((s) => s.file)];
      expect(await typeCheck(project, files, resolution, lib)).toBe('');
    },
    600_000,
  );
});
