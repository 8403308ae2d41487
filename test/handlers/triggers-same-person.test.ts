import { describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../functions/checkpoints/checkpoint-store.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { TRIGGER_HANDLERS } from '../../functions/handlers/triggers.ts';
import { approvalTranscript } from '../../functions/testing/index.ts';
import { TRIGGER_VIAS, type TriggerVia } from '../../functions/vocabulary.ts';
import type { Actor } from '../../functions/wire.ts';
import { eventBridgeEvent, lambdaContext, sqsEvent } from './events.ts';
import { testTelemetry } from './telemetry.ts';

/**
 * The triggers' `by` (§13, §16): the Step Functions task, SQS and EventBridge decide as the person their input names,
 * and that person is the same person through every door — four eyes keep the pauser out, a quorum counts them once,
 * and a stale argsHash records nothing. Each refusal reads the pause back: nothing changed.
 */

const ann: Actor = { kind: 'person', subject: 'u-ann', email: 'ann@example.com', emailVerified: true, via: 'api' };

const DOORS = TRIGGER_VIAS;

function setup() {
  const store = createMemoryCheckpointStore();
  const telemetry = testTelemetry();
  const deps = { store, handoff: { deliver: async () => {} }, ...telemetry };
  const rejected = () => {
    const line = telemetry.logged.warn.mock.calls.find((call) => call[0] === 'Resume request rejected');
    return (line?.[1] as { reason?: string } | undefined)?.reason;
  };
  /** How to send a request through each trigger; the refusal's code (a thrown name, or the rejected log line). */
  const through: Record<TriggerVia, (input: object) => Promise<string | undefined>> = {
    'step-functions': (input) =>
      TRIGGER_HANDLERS['step-functions'](deps)(input, lambdaContext()).then(
        () => undefined,
        (error: { code?: string }) => error.code,
      ),
    sqs: async (input) => {
      await TRIGGER_HANDLERS.sqs(deps)(sqsEvent([JSON.stringify(input)]), lambdaContext());
      return rejected();
    },
    eventbridge: async (input) => {
      await TRIGGER_HANDLERS.eventbridge(deps)(eventBridgeEvent(input), lambdaContext());
      return rejected();
    },
  };
  const send = (door: TriggerVia, input: object): Promise<string | undefined> => {
    telemetry.logged.warn.mockClear();
    return through[door](input);
  };
  return { store, send };
}

async function paused(store: CheckpointStore, extra: Record<string, unknown> = {}, ask: Record<string, unknown> = {}) {
  const runId = `trigger-same-${Math.random().toString(36).slice(2)}`;
  const created = await store.pause({
    tenant: 'acme',
    runId,
    format: 'openai-chat',
    messages: approvalTranscript(),
    asks: [{ toolCallId: 'call_refund', kind: 'approval', ...ask }],
    ...extra,
  });
  const key = { tenant: 'acme', runId, interruptId: created.interruptId };
  const state = async () => {
    const view = await store.getPause(key);
    return { status: view.status, votes: view.asks[0]?.votes, decided: view.decided };
  };
  return { key, state };
}

const request = (
  key: { runId: string; interruptId: string },
  by: object,
  decision: object = { decision: 'approve' },
) => ({
  tenant: 'acme',
  runId: key.runId,
  interruptId: key.interruptId,
  decisions: [{ toolCallId: 'call_refund', ...decision }],
  by,
});

describe('a trigger’s by is one person with every other door (§16)', () => {
  it.each(DOORS)('keeps four eyes through %s: the pauser named in by is self_decision', async (door) => {
    const { store, send } = setup();
    const { key, state } = await paused(store, { by: ann, fourEyes: true });
    const before = await state();
    expect(await send(door, request(key, { subject: 'u-ann' }))).toBe('self_decision');
    expect(await state()).toEqual(before);
  });

  it.each(DOORS)(
    'counts a person once on a quorum through %s: by with her verified email after her token',
    async (door) => {
      const { store, send } = setup();
      const { key, state } = await paused(store, {}, { approvals: 2 });
      await store.decide({ ...key, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }], by: ann });
      const before = await state();
      const sameEmail = { subject: 'ann@corp-directory', email: 'Ann@Example.com', emailVerified: true };
      expect(await send(door, request(key, sameEmail))).toBe('already_voted');
      expect(await state()).toEqual(before);
      // The email alone, not vouched for, is a label: that is someone else's vote.
      expect(await send(door, request(key, { subject: 'u-other', email: 'ann@example.com' }))).toBeUndefined();
      expect((await state()).status).toBe('resumed');
    },
  );

  it.each(DOORS)('records nothing through %s for an approve of arguments edited since (args_changed)', async (door) => {
    const { store, send } = setup();
    const { key, state } = await paused(store, {}, { approvals: 2 });
    const seen = (await store.getPause(key)).asks[0]?.argsHash as string;
    await store.decide({
      ...key,
      decisions: [{ toolCallId: 'call_refund', decision: 'edit', args: { amount: 1 }, argsHash: seen }],
      by: ann,
    });
    const before = await state();
    expect(await send(door, request(key, { subject: 'u-bob' }, { decision: 'approve', argsHash: seen }))).toBe(
      'args_changed',
    );
    expect(await state()).toEqual(before);
  });
});
