import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestTable } from '../support/dynamodb.ts';
import { fencedBlocks, ROOT, readPage } from './markdown.ts';

/**
 * docs/durable.md's snippet is a durable function that works: its handler, run by the durable execution SDK's own
 * local runner (`durable-snippet-run.ts`, in a process of its own), pauses on the test table, and goes on from each
 * decision with what the snippet returns — the approved call's arguments, as decided — whether Handback's hand-off
 * completes the callback or the test hands the runner the continuation itself, as the page's "Run it without AWS"
 * tells an agent developer.
 */

const table = useTestTable();
const DIR = join(ROOT, 'node_modules', '.cache', `handback-durable-snippet-${process.pid}`);
const FILE = join(DIR, 'durable.mts');
const snippet = fencedBlocks(readPage('docs/durable.md')).find((block) => block.lang === 'ts');

beforeAll(() => {
  mkdirSync(DIR, { recursive: true });
  const code = (snippet?.code ?? '')
    .replaceAll(`from 'handback/durable'`, `from '${join(ROOT, 'functions/adapters/durable.ts')}'`)
    .replaceAll(`from 'handback/dynamodb'`, `from '${join(ROOT, 'functions/dynamodb.ts')}'`)
    .replaceAll(`from 'handback'`, `from '${join(ROOT, 'functions/index.ts')}'`);
  writeFileSync(FILE, code);
});
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

function run(decision: unknown, delivery: 'handoff' | 'runner'): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'test/docs/durable-snippet-run.ts'), FILE, JSON.stringify(decision), delivery],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          TABLE_NAME: table.tableName,
          AWS_ENDPOINT_URL_DYNAMODB: table.endpoint,
          AWS_REGION: 'local',
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
        },
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The last line of the run's output as JSON, or that line as it is. */
function lastJson(output: string): unknown {
  const line = output.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line);
  } catch {
    return line;
  }
}

describe('the docs/durable.md snippet', () => {
  it('is at most 15 lines', () => {
    expect(snippet?.code.split('\n').length).toBeLessThanOrEqual(15);
  });

  const approved = { toolCallId: 'call_1', decision: 'approve' };
  const edited = { toolCallId: 'call_1', decision: 'edit', args: { amount: 60 } };
  const rejected = { toolCallId: 'call_1', decision: 'reject', reason: 'No.' };
  it.each([
    ['approved', 'handoff', approved, { result: [{ amount: 120 }] }],
    ['edited', 'handoff', edited, { result: [{ amount: 60 }] }],
    ['rejected', 'handoff', rejected, { result: [] }],
    ['cancelled', 'handoff', {}, { error: 'PauseCancelledError' }],
    ['approved', 'runner', approved, { result: [{ amount: 120 }] }],
    ['cancelled', 'runner', {}, { error: 'PauseCancelledError' }],
  ] as const)(
    'goes on when the pause is %s, with what people decided, the continuation delivered by the %s',
    async (_, delivery, decision, expected) => {
      const { code, output } = await run(decision, delivery);
      expect({ code, last: lastJson(output) }, output).toEqual({
        code: 0,
        last: expected,
      });
    },
    90_000,
  );
});
