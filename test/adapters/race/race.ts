import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createDynamoDBCheckpointStore } from '../../../functions/checkpoints/dynamodb-store.ts';
import type { TestTable } from '../../support/dynamodb.ts';

/**
 * §15's "once" across processes, for one adapter: one continuation delivered to two worker processes at the same
 * moment (`worker.ts`, each with its own adapter, agent and scripted model, sharing only the DynamoDB table), then to
 * a third after them. The refund, which takes 300 ms and appends a line to a file, runs exactly once: one worker runs
 * it, the other finds the claim (`ExecutionInProgressError`, which a queue retries) or, when it came second, the
 * recorded result; the third reads the recorded result. The third's model calls are the next step's cost of a
 * redelivery (docs/ai-sdk.md, "Once").
 *
 * `test/adapters/race.slow.test.ts` runs the workers in the repository (on the sources).
 */

/** Where the workers run: the directory, the worker file in it, and what `node` is given before it. */
export interface RaceSite {
  cwd: string;
  worker: string;
  /** Node's options before the worker: `--import tsx`, and the AI SDK 7 hook in the repository. */
  imports: string[];
  /** Where the refunds' and checkpoints' files go. */
  work: string;
}

interface Delivered {
  outcome: 'ran' | 'replayed' | 'in-progress';
  modelCalls: number;
  /** The `ai` version the AI SDK's workers loaded. */
  ai?: string;
}

/** Model calls the third delivery makes: the next step, taken again where the framework cannot replay it. */
export const REDELIVERY_MODEL_CALLS: Record<string, number> = {
  'ai-sdk': 1,
  'openai-agents': 1,
  langgraph: 0,
  strands: 1,
  durable: 0,
};

/** A worker process; `ready` once it has built its agent, `done` with its last line of output, parsed. */
function start(site: RaceSite, adapter: string, mode: 'pause' | 'deliver', settings: object) {
  const child: ChildProcess = spawn(process.execPath, [...site.imports, site.worker, adapter, mode], {
    cwd: site.cwd,
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

/**
 * Pauses with one worker, approves in the store, delivers the continuation to two workers at once and then to a
 * third, and asserts that the refund ran exactly once; `ai` is the AI SDK major the workers must have loaded.
 */
export async function expectRefundedOnce(site: RaceSite, table: TestTable, adapter: string, ai?: 6 | 7): Promise<void> {
  const runId = `race-${adapter}-${ai ?? 0}-${Date.now()}`;
  const settings = {
    endpoint: table.endpoint,
    tableName: table.tableName,
    runId,
    refunds: join(site.work, `${runId}.refunds`),
    checkpoints: join(site.work, `${runId}.checkpoints.json`),
  };
  const paused = start(site, adapter, 'pause', settings);
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
  const racers = [start(site, adapter, 'deliver', delivery), start(site, adapter, 'deliver', delivery)];
  await Promise.all(racers.map((racer) => racer.ready));
  for (const racer of racers) racer.go();
  const raced = (await Promise.all(racers.map((racer) => racer.done))) as Delivered[];
  const later = start(site, adapter, 'deliver', delivery);
  await later.ready;
  later.go();
  const third = (await later.done) as Delivered;

  expect(readFileSync(settings.refunds, 'utf8').trim().split('\n')).toEqual(['{"orderId":"42","amount":120}']);
  expect(raced.map((r) => r.outcome).filter((outcome) => outcome === 'ran')).toEqual(['ran']);
  expect(raced.map((r) => r.outcome).sort()).toEqual(
    expect.arrayContaining(['ran', expect.stringMatching(/^(in-progress|replayed)$/)]),
  );
  if (ai !== undefined) expect(third.ai).toMatch(new RegExp(`^${ai}\\.`));
  expect({ outcome: third.outcome, modelCalls: third.modelCalls }).toEqual({
    outcome: 'replayed',
    modelCalls: REDELIVERY_MODEL_CALLS[adapter],
  });
}
