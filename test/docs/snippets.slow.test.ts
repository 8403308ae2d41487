import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type LocalService, startLocalService } from '../../functions/local/service.ts';
import { docPages, fencedBlocks, ROOT, readPage } from './markdown.ts';
import { expectedStory } from './snippet-stories.ts';

/**
 * The TypeScript snippets of the README and the docs run as written: every ```ts block without `check=typecheck`
 * (which needs AWS) is run, as a script, and must exit 0. Each is type-checked once, on the packed tarball by a strict
 * consumer (`test/package/newcomer.slow.test.ts`, and `test/package/pack.slow.test.ts` for the AI SDK's on ai 6 and
 * 7). They import Handback by its package name, as a user's code does; here `handback` and
 * `handback/local` are pointed at the sources (`functions/index.ts`, `functions/local/public.ts`) rather than at a
 * `dist/` that may be older. The files are written as `.mts` (ESM) under `node_modules/.cache/`, inside the repository so that
 * their other imports resolve from its `node_modules`, and outside what git and biome see.
 *
 * A framework snippet (`given=ai-sdk`, `given=openai-agents`, `given=langgraph`, `given=strands`) is an agent module
 * given a `model`, Handback and `refund` by its `declare const` line: `framework-snippets.ts` supplies them (a
 * scripted model, the local store or the client against the local service, a refund API that records its calls) and
 * drives the module's `onMessage` and `onContinuation` through a pause, an edit and a hand-off delivered twice.
 */

interface Snippet {
  name: string;
  page: string;
  line: number;
  run: boolean;
  /** The framework whose harness runs the snippet (`given=…`); a plain snippet runs as a script. */
  given?: string;
  code: string;
}

const DIR = join(ROOT, 'node_modules', '.cache', `handback-doc-snippets-${process.pid}`);

function snippets(): Snippet[] {
  return docPages().flatMap((page) =>
    fencedBlocks(readPage(page))
      .filter((block) => block.lang === 'ts' || block.lang === 'typescript')
      .map((block) => ({
        name: `${page.replace(/[/.]/g, '-')}-${block.line}`,
        page,
        line: block.line,
        run: block.attributes.check !== 'typecheck' && block.attributes.given === undefined,
        ...(block.attributes.given === undefined ? {} : { given: block.attributes.given }),
        code: block.code
          .replaceAll(`from 'handback/dynamodb'`, `from '${join(ROOT, 'functions/dynamodb.ts')}'`)
          .replaceAll(`from 'handback/local'`, `from '${join(ROOT, 'functions/local/public.ts')}'`)
          .replaceAll(`from 'handback/durable'`, `from '${join(ROOT, 'functions/adapters/durable.ts')}'`)
          .replaceAll(`from 'handback/openai-agents'`, `from '${join(ROOT, 'functions/adapters/openai-agents.ts')}'`)
          .replaceAll(`from 'handback/langgraph'`, `from '${join(ROOT, 'functions/adapters/langgraph.ts')}'`)
          .replaceAll(`from 'handback/client'`, `from '${join(ROOT, 'functions/client/index.ts')}'`)
          .replaceAll(`from 'handback/ai-sdk'`, `from '${join(ROOT, 'functions/adapters/ai-sdk.ts')}'`)
          .replaceAll(`from 'handback/strands'`, `from '${join(ROOT, 'functions/adapters/strands.ts')}'`)
          .replaceAll(`from 'handback'`, `from '${join(ROOT, 'functions/index.ts')}'`),
      })),
  );
}

const all = snippets();
const fileOf = (snippet: Snippet) => join(DIR, `${snippet.name}.mts`);

// The snippets that reach Handback by URL (docs/client.md) find `npm start`'s service at HANDBACK_URL.
let service: LocalService | undefined;
beforeAll(async () => {
  service = await startLocalService({
    ...process.env,
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    TABLE_NAME: `handback-snippets-${process.pid}`,
    PORT: '0',
    LOG_LEVEL: 'ERROR',
  });
  process.env.HANDBACK_URL = service.url;
  mkdirSync(DIR, { recursive: true });
  for (const snippet of all) writeFileSync(fileOf(snippet), `${snippet.code}\nexport {};\n`);
});
afterAll(async () => {
  rmSync(DIR, { recursive: true, force: true });
  await service?.close();
});

function run(...args: string[]): Promise<{ code: number | null; output: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, stdout });
    });
  });
}

/** The frameworks' snippets: the README's three, and the first snippet of each adapter's page. */
const frameworkSnippets = all.filter((snippet) => snippet.given !== undefined);

describe('the TypeScript snippets of the README and the docs', () => {
  it('are there to check: the README runs its store snippet and a snippet per framework', () => {
    expect(all.filter((snippet) => snippet.page === 'README.md' && snippet.run)).toHaveLength(1);
    expect(frameworkSnippets.filter((snippet) => snippet.page === 'README.md').map((s) => s.given)).toEqual([
      'ai-sdk',
      'openai-agents',
      'langgraph',
    ]);
  });

  it.each([
    ['docs/ai-sdk.md', 'ai-sdk'],
    ['docs/openai-agents.md', 'openai-agents'],
    ['docs/langgraph.md', 'langgraph'],
    ['docs/strands.md', 'strands'],
    ['docs/client.md', undefined],
  ])('%s opens with a snippet of at most 15 lines that runs', (page, given) => {
    const first = all.find((snippet) => snippet.page === page);
    expect({ runs: first?.run === true || first?.given !== undefined, given: first?.given }).toEqual({
      runs: true,
      given,
    });
    expect(first?.code.split('\n').length).toBeLessThanOrEqual(15);
  });

  it.each(frameworkSnippets.filter((snippet) => snippet.page === 'README.md'))(
    "README.md's $given snippet has at most 15 lines",
    (snippet) => {
      expect(snippet.code.split('\n').length).toBeLessThanOrEqual(15);
    },
  );

  it.each(all.filter((snippet) => snippet.run).map((snippet) => [`${snippet.page}:${snippet.line}`, snippet] as const))(
    '%s runs to the end',
    async (_, snippet) => {
      const { code, output } = await run(fileOf(snippet));
      expect({ code }, output).toEqual({ code: 0 });
    },
  );

  // The AI SDK's snippets also on ai 7: the repository's alias of it, through the hook test/adapters/race.slow.test.ts
  // runs its workers with.
  const onAi7 = ['--import', join(ROOT, 'test', 'support', 'ai-v7.mjs')];
  it('runs the AI SDK’s snippets on ai 7 too: under the hook, ai is version 7', async () => {
    const script = `console.log((await import('ai/package.json', { with: { type: 'json' } })).default.version)`;
    const { code, stdout } = await run(...onAi7, '--input-type=module', '-e', script);
    expect({ code, version: stdout.trim() }).toEqual({ code: 0, version: expect.stringMatching(/^7\./) });
    expect(frameworkSnippets.filter((snippet) => snippet.given === 'ai-sdk').length).toBeGreaterThan(0);
  });
  it.each([
    ...frameworkSnippets.map((snippet) => [`${snippet.page}:${snippet.line}`, '', snippet, []] as const),
    ...frameworkSnippets
      .filter((snippet) => snippet.given === 'ai-sdk')
      .map((snippet) => [`${snippet.page}:${snippet.line}`, ' on ai 7', snippet, onAi7] as const),
  ])(
    '%s%s pauses, a person approves, and the refund runs once for two deliveries, on the store and the client',
    async (_, __, snippet, imports) => {
      const harness = join(ROOT, 'test', 'docs', 'framework-snippets.ts');
      const { code, output, stdout } = await run(...imports, harness, snippet.given as string, fileOf(snippet));
      expect({ code }, output).toEqual({ code: 0 });
      // What every framework snippet does, through each backend (snippet-stories.ts).
      expect(JSON.parse(stdout.trim().split('\n').at(-1) ?? '')).toEqual(expectedStory(snippet.given as string));
    },
  );
});
