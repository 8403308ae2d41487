import { beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDBCheckpointStore } from '../../functions/dynamodb.ts';
import { handoffPointer } from '../../functions/handoff/handoff.ts';
import type { CheckpointStore } from '../../functions/index.ts';
import type {
  ContinuationPointer,
  PauseEvent,
  PauseRequest,
  TurnEvent,
  TurnResult,
} from '../../infra/example-agent/handler.ts';
import { useTestTable } from '../support/dynamodb.ts';

/**
 * The example agent against the real store on the test table: its first turn must be a pause the store accepts, and
 * the pointer Handback hands off when that pause closes must take it to the end of its run.
 */

const table = useTestTable();
let handler: (event: TurnEvent | PauseEvent) => Promise<unknown>;
let store: CheckpointStore;

beforeAll(async () => {
  // The agent builds its store at cold start from the environment, as on Lambda; here it points at the test table.
  Object.assign(process.env, {
    TABLE_NAME: table.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: table.endpoint,
    AWS_REGION: 'local',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  ({ handler } = await import('../../infra/example-agent/handler.ts'));
  store = createDynamoDBCheckpointStore({ client: table.client, tableName: table.tableName });
});

const TENANT = 'acme';

/** The agent's first turn and the pause it records through the waiting step, as the workflow runs them. */
async function pausedRun(runId: string, expiresInSeconds = 3600) {
  const first = (await handler({ runId, tenant: TENANT })) as Extract<TurnResult, { status: 'paused' }>;
  const created = (await handler({
    action: 'pause',
    pause: first.pause,
    expiresInSeconds,
    taskToken: `token-${runId}`,
  })) as { interruptId: string; asks: string[] };
  return { pause: first.pause, created };
}

/** The agent's turn from a continuation pointer. */
async function resumedTurn(runId: string, continuation: ContinuationPointer) {
  return (await handler({ runId, tenant: TENANT, continuation })) as Extract<TurnResult, { status: 'done' }>;
}

describe('the example agent', () => {
  it('pauses its first turn on one round: an answer ask and two approval asks', async () => {
    const first = (await handler({ runId: 'run-first', tenant: TENANT })) as { status: string; pause: PauseRequest };
    expect([first.status, first.pause.asks?.map((ask) => [ask.toolCallId, ask.kind])]).toEqual([
      'paused',
      [
        ['call_ask_1', 'answer'],
        ['call_refund_1', 'approval'],
        ['call_email_1', 'approval'],
      ],
    ]);
  });

  it('asks Handback to reject what is undecided at expiry, so the workflow goes on', async () => {
    const first = (await handler({ runId: 'run-expiry-setting', tenant: TENANT })) as { pause: PauseRequest };
    expect(first.pause.onExpiry).toBe('reject');
  });

  it('records a pause the store accepts, with its three asks and the task token', async () => {
    const { created } = await pausedRun('run-record');
    const view = await store.getPause({ tenant: TENANT, runId: 'run-record', interruptId: created.interruptId });
    expect([created.asks, view.status, view.onExpiry]).toEqual([
      ['call_ask_1', 'call_refund_1', 'call_email_1'],
      'paused',
      'reject',
    ]);
  });

  describe('resumed with the pointer of decided asks', () => {
    const decide = async (runId: string) => {
      const { created } = await pausedRun(runId);
      const result = await store.decide({
        tenant: TENANT,
        runId,
        interruptId: created.interruptId,
        decisions: [
          { toolCallId: 'call_ask_1', answer: 'It arrived broken.' },
          { toolCallId: 'call_refund_1', decision: 'edit', args: { order: '1234', amount: 15, currency: 'EUR' } },
          { toolCallId: 'call_email_1', decision: 'approve' },
        ],
      });
      if (result.kind !== 'closed') throw new Error('the last decision should close the pause');
      return handoffPointer(result);
    };

    it('runs the approved calls in call order, the edited one with the arguments a person gave', async () => {
      const done = await resumedTurn('run-decided', await decide('run-decided'));
      expect(done.ran).toEqual([
        { toolCallId: 'call_refund_1', output: { refunded: true, order: '1234', amount: 15 } },
        { toolCallId: 'call_email_1', output: { sent: true, to: 'customer@example.com' } },
      ]);
    });

    it('appends their results to the transcript and goes on to its next turn', async () => {
      const done = await resumedTurn('run-next-turn', await decide('run-next-turn'));
      // The user message, the round, its three results, and the model's reply.
      expect([done.outcome, done.messageCount, done.reply]).toEqual([
        'resumed',
        6,
        'Done: refund_order and send_email.',
      ]);
    });

    it('reads the messages from the store when the pointer leaves them out', async () => {
      const { messages: _, ...pointer } = await decide('run-large');
      const done = await resumedTurn('run-large', pointer);
      expect(done.messageCount).toBe(6);
    });
  });

  it('goes on without running anything when the sweep closed the pause at its expiry', async () => {
    const runId = 'run-expired';
    await pausedRun(runId, 60);
    const later = createDynamoDBCheckpointStore({
      client: table.client,
      tableName: table.tableName,
      clock: () => new Date(Date.now() + 61_000),
    });
    const { closed } = await later.closeDue();
    const mine = closed.find((result) => result.runId === runId);
    if (mine === undefined) throw new Error('the sweep should close the expired pause');
    const done = await resumedTurn(runId, handoffPointer(mine));
    expect([done.outcome, done.ran, done.reply]).toEqual([
      'expired',
      [],
      'No one decided in time, so I did not refund the order or send the email.',
    ]);
  });
});
