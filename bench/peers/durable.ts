import { type DurableContext, withDurableExecution } from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner, WaitingOperationStatus } from '@aws/durable-execution-sdk-js-testing';
import type { PreparedResume } from './peer.ts';

/**
 * AWS Lambda durable functions' resume: a durable handler that ran `steps` steps (each returning a ~200-byte
 * message, as an agent loop's model and tool calls would), then waits for a person with `waitForCallback`. Pause =
 * run until the invocation has suspended at the callback (untimed); resume (timed) = send the callback's success
 * until the handler returns from the new invocation, which replays every earlier step from its checkpoints. Run on
 * the SDK's local test runner (in-process, in-memory checkpoint server): no AWS.
 *
 * Two things of the local runner are set aside so that what is timed is the SDK's resume:
 * - it tells the handler it has 15 minutes left, so the SDK keeps the first invocation alive and polls for the
 *   callback instead of suspending (no replay at all); a person answers after minutes or months, when a real
 *   invocation has long ended, so the handler is told it has 0.5 s left, which makes the SDK suspend at the
 *   callback, and the pause waits until that invocation has ended;
 * - it waits a fixed 100 ms after an execution completes before `run()` resolves (a `setTimeout(…, 100)` in its
 *   `finally`, marked TODO in its source), so the resume times itself to the handler's return (`measuredUs`).
 */

const MESSAGE = 'x'.repeat(200);

/** When the handler last returned, invocations that ended, and invocations started. */
let returnedAt = 0n;
let ended = 0;
let invocations = 0;

function handlerFor(steps: number) {
  const durable = withDurableExecution(async (_event: unknown, context: DurableContext) => {
    const transcript: string[] = [];
    for (let i = 0; i < steps; i++) {
      transcript.push(await context.step(`step-${i}`, async () => `${i}:${MESSAGE}`));
    }
    const answer = await context.waitForCallback('approval', async () => {});
    returnedAt = process.hrtime.bigint();
    return { messages: transcript.length + 1, answer };
  });
  return (async (event: unknown, context: { getRemainingTimeInMillis(): number }) => {
    invocations++;
    try {
      return await durable(event as never, { ...context, getRemainingTimeInMillis: () => 500 } as never);
    } finally {
      ended++;
    }
  }) as unknown as typeof durable;
}

let ready: Promise<void> | undefined;

/** Starts the local test environment once per process (real time: fake timers would stop the benchmark's clock). */
export function setup(): Promise<void> {
  ready ??= LocalDurableTestRunner.setupTestEnvironment({ skipTime: false });
  return ready;
}

export async function teardown(): Promise<void> {
  if (ready) await LocalDurableTestRunner.teardownTestEnvironment();
  ready = undefined;
}

/** A durable execution suspended at its callback after `steps` steps. */
export async function prepare(steps: number, answer: unknown): Promise<PreparedResume> {
  await setup();
  const before = ended;
  const runner = new LocalDurableTestRunner({ handlerFunction: handlerFor(steps) });
  const execution = runner.run({ payload: {} });
  const callback = runner.getOperation('approval');
  await callback.waitForData(WaitingOperationStatus.STARTED);
  const deadline = Date.now() + 10_000;
  while (ended === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
  if (ended === before) throw new Error('the durable invocation did not suspend at the callback');
  return {
    // Each step's checkpoint holds its result; the replay reads them all back.
    storedBytes: steps * (MESSAGE.length + 8),
    async resume() {
      const invoked = invocations;
      const start = process.hrtime.bigint();
      await callback.sendCallbackSuccess(JSON.stringify(answer));
      const result = await execution;
      if (result.getStatus() !== 'SUCCEEDED') throw new Error(`durable execution ended ${result.getStatus()}`);
      if (invocations !== invoked + 1) throw new Error('the resume did not re-invoke (and replay) the handler');
      return { measuredUs: Number(returnedAt - start) / 1000 };
    },
  };
}
