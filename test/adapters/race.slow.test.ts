import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { useTestTable } from '../support/dynamodb.ts';

/**
 * §15's "once" across processes, for every adapter: one continuation delivered to two worker processes at the same
 * moment (`race/worker.ts`, each with its own adapter, agent and scripted model, sharing only the DynamoDB table on
 * the tests' dynalite), then to a third after them. The refund, which takes 300 ms and appends a line to a file,
 * runs exactly once: one worker runs it, the other finds the claim (`ExecutionInProgressError`, which a queue
 * retries) or, when it came second, the recorded result; the third reads the recorded result. The third's model
 * calls are the next step's cost of a redelivery (docs/ai-sdk.md, "Once"). The AI SDK runs on `ai` 6 and on `ai` 7.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const worker = join(root, 'test', 'adapters', 'race', 'worker.ts');
const table = useTestTable();
const work = mkdtempSync(join(tmpdir(), 'handback-race-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Delivered {
  outcome: 'ran' | 'replayed' | 'in-progress';
  modelCalls: number;
  /** The `ai` version the AI SDK's workers loaded. */
  ai?: string;
}

/** A worker process; `ready` once it has built its agent, `done` with its last line of output, parsed. */
function start(adapter: string, mode: 'pause' | 'deliver', settings: object, ai7: boolean) {
  const hooks = ai7 ? ['--import', join(root, 'test', 'support', 'ai-v7.mjs')] : [];
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', ...hooks, worker, adapter, mode], {
    cwd: root,
    env: { ...process.env, RACE: JSON.stringify(settings) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.split('\n').includes('ready')) onReady();
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<unknown>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0) reject(new Error(`worker ${adapter} ${mode} exited ${code}:\n${stdout}\n${stderr}`));
      else resolve(JSON.parse(last));
    });
  });
  return { ready, done, go: () => child.stdin?.end('go\n') };
}

/** Model calls the third delivery makes: the next step, taken again where the framework cannot replay it. */
const REDELIVERY_MODEL_CALLS: Record<string, number> = {
  'ai-sdk': 1,
  'openai-agents': 1,
  langgraph: 0,
  strands: 1,
  durable: 0,
};

const cases: Array<[string, string, boolean]> = [
  ['handback/ai-sdk on ai 6', 'ai-sdk', false],
  ['handback/ai-sdk on ai 7', 'ai-sdk', true],
  ['handback/openai-agents', 'openai-agents', false],
  ['handback/langgraph', 'langgraph', false],
  ['handback/strands', 'strands', false],
  ['handback/durable', 'durable', false],
];

describe.each(cases)('%s, with two processes receiving the same continuation', (_, adapter, ai7) => {
  it('runs the refund exactly once: one process runs it, the other and a later delivery read it', async () => {
    const runId = `race-${adapter}-${ai7 ? 7 : 6}-${Date.now()}`;
    const settings = {
      endpoint: table.endpoint,
      tableName: table.tableName,
      runId,
      refunds: join(work, `${runId}.refunds`),
      checkpoints: join(work, `${runId}.checkpoints.json`),
    };
    const paused = start(adapter, 'pause', settings, ai7);
    const { interruptId, asks } = (await paused.done) as { interruptId: string; asks: string[] };
    const store = createDynamoDBCheckpointStore({ client: table.client, tableName: table.tableName });
    const decided = await store.decide({
      tenant: 'acme',
      runId,
      interruptId,
      decisions: asks.map((toolCallId) => ({ toolCallId, decision: 'approve' as const })),
    });
    if (decided.kind !== 'closed') throw new Error('The pause is still waiting.');
    const delivery = { ...settings, continuationId: decided.continuationId };
    const racers = [start(adapter, 'deliver', delivery, ai7), start(adapter, 'deliver', delivery, ai7)];
    await Promise.all(racers.map((racer) => racer.ready));
    for (const racer of racers) racer.go();
    const raced = (await Promise.all(racers.map((racer) => racer.done))) as Delivered[];
    const later = start(adapter, 'deliver', delivery, ai7);
    await later.ready;
    later.go();
    const third = (await later.done) as Delivered;

    expect(readFileSync(settings.refunds, 'utf8').trim().split('\n')).toEqual(['{"orderId":"42","amount":120}']);
    expect(raced.map((r) => r.outcome).filter((outcome) => outcome === 'ran')).toEqual(['ran']);
    expect(raced.map((r) => r.outcome).sort()).toEqual(
      expect.arrayContaining(['ran', expect.stringMatching(/^(in-progress|replayed)$/)]),
    );
    if (adapter === 'ai-sdk') expect(third.ai).toMatch(ai7 ? /^7\./ : /^6\./);
    expect({ outcome: third.outcome, modelCalls: third.modelCalls }).toEqual({
      outcome: 'replayed',
      modelCalls: REDELIVERY_MODEL_CALLS[adapter],
    });
  }, 240_000);
});
