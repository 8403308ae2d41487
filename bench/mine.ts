import { pathToFileURL } from 'node:url';
import type { CheckpointStore } from '../functions/checkpoints/checkpoint-store.ts';
import { approvalTranscript } from '../functions/testing/index.ts';
import type { Actor } from '../functions/wire.ts';
import { quantile } from './measure.ts';
import { type RecordedCall, type StoreFixture, startStoreFixture, TENANT } from './store-harness.ts';

/**
 * `npx tsx bench/mine.ts [--quick]`: what `GET /pauses?status=paused&mine=true` (the store's
 * `listPauses({waitingFor})`, §13) reads as a tenant's history grows, on the embedded DynamoDB-compatible server
 * (dynalite, in a process of its own). The tenant holds 50 open pauses throughout — half with an ask the viewer's
 * group may decide, half for another group — and 0, 100, 1,000, then 10,000 closed ones (paused, then cancelled,
 * through the store as any closing is). At each size: the DynamoDB requests of one `mine=true` page, the items they
 * read, the read capacity they consumed (`ReturnConsumedCapacity: TOTAL`, as dynalite counts it: 0.5 per 4 KB,
 * eventually consistent) and the page's latency (median and p95 of 30 lists). Beside it, the same for walking the
 * tenant's whole listing (every page of `GET /pauses`), which does grow with history: what a filter over the history
 * would cost. Prints one JSON document.
 */

const OPEN = 50;
const HISTORY = [0, 100, 1_000, 10_000] as const;
const ROUNDS = 30;

const viewer: Actor = { kind: 'person', subject: 'u-fin', via: 'api', groups: ['finance'] };
const agent: Actor = { kind: 'agent', subject: 'agent-1', via: 'api' };

/** What one listing read: requests, items returned by them, capacity, and the pauses it listed. */
interface Reading {
  requests: number;
  itemsRead: number;
  readCapacity: number;
  listed: number;
}

/** One size of the history. */
export interface MineRow {
  closed: number;
  open: number;
  mine: Reading & { latencyMs: { p50: number; p95: number } };
  wholeListing: Reading;
}

let runs = 0;

async function pauseFor(store: CheckpointStore, group: string): Promise<{ runId: string; interruptId: string }> {
  const runId = `mine-${++runs}`;
  const created = await store.pause({
    tenant: TENANT,
    runId,
    format: 'openai-chat',
    messages: approvalTranscript(),
    asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers: { groups: [group] } }],
    by: agent,
  });
  return { runId, interruptId: created.interruptId };
}

/** Adds `count` closed pauses, `concurrency` at a time. */
async function addHistory(store: CheckpointStore, count: number, concurrency = 16): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const key = await pauseFor(store, 'finance');
        await store.cancel({ tenant: TENANT, ...key, reason: 'history', by: agent });
      }
    }),
  );
}

/** Runs `list` with the recorder on; what its DynamoDB calls read. */
async function reading(fixture: StoreFixture, list: () => Promise<number>): Promise<Reading> {
  fixture.calls.length = 0;
  fixture.recorder.recording = true;
  fixture.recorder.askCapacity = true;
  let listed: number;
  try {
    listed = await list();
  } finally {
    fixture.recorder.recording = false;
    fixture.recorder.askCapacity = false;
  }
  const calls: RecordedCall[] = [...fixture.calls];
  return {
    requests: calls.length,
    itemsRead: calls.reduce((sum, call) => sum + (call.items?.length ?? 0), 0),
    readCapacity: calls.reduce((sum, call) => sum + (call.consumed?.CapacityUnits ?? 0), 0),
    listed,
  };
}

const minePage = (store: CheckpointStore) => async () =>
  (await store.listPauses({ tenant: TENANT, status: 'paused', waitingFor: viewer, limit: 100 })).items.length;

const wholeListing = (store: CheckpointStore) => async () => {
  let listed = 0;
  let cursor: string | undefined;
  do {
    const page = await store.listPauses({ tenant: TENANT, limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    listed += page.items.length;
    cursor = page.cursor;
  } while (cursor !== undefined);
  return listed;
};

/** Measures each size of the history in turn, on one tenant that only grows. */
export async function runMine(options: { quick: boolean; log: (line: string) => void }): Promise<MineRow[]> {
  const sizes = options.quick ? HISTORY.slice(0, 3) : HISTORY;
  const fixture = await startStoreFixture();
  const { store } = fixture;
  const rows: MineRow[] = [];
  try {
    for (let index = 0; index < OPEN; index++) await pauseFor(store, index % 2 === 0 ? 'finance' : 'ops');
    let closed = 0;
    for (const size of sizes) {
      options.log(`mine: ${size} closed pauses…`);
      await addHistory(store, size - closed);
      closed = size;
      const mine = await reading(fixture, minePage(store));
      const latencies: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const started = performance.now();
        await minePage(store)();
        latencies.push(performance.now() - started);
      }
      rows.push({
        closed,
        open: OPEN,
        mine: {
          ...mine,
          latencyMs: { p50: round2(quantile(latencies, 0.5)), p95: round2(quantile(latencies, 0.95)) },
        },
        wholeListing: await reading(fixture, wholeListing(store)),
      });
    }
  } finally {
    await fixture.close();
  }
  return rows;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // AWS's switch for the SDK's notice that its 2027 releases need Node 22 (aws/aws-sdk-js-v3#7983), as the bench runs.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const rows = await runMine({
    quick: process.argv.includes('--quick'),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
}
