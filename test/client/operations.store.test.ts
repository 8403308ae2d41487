import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  AlreadyDecidedError,
  createHandbackClient,
  HandbackHttpError,
  OpenPauseExistsError,
  PauseNotFoundError,
} from '../../functions/client/index.ts';
import { aiSdkRound, useLocalService } from './support.ts';

const service = useLocalService();
const client = () => createHandbackClient({ baseUrl: service.url });
let runs = 0;
const newRun = () => `client-run-${++runs}-${Date.now()}`;

const twoAsks = (runId: string) => ({
  runId,
  format: 'ai-sdk' as const,
  messages: aiSdkRound(),
  asks: [
    { toolCallId: 'call_ask', prompt: 'Why?' },
    { toolCallId: 'call_refund', kind: 'approval' as const },
  ],
});

describe('the client against the local service', () => {
  it('pauses, shows the pause with its messages, and lists it among the paused', async () => {
    const runId = newRun();
    const paused = await client().pause(twoAsks(runId));
    expect(paused).toMatchObject({
      runId,
      status: 'paused',
      toolCallId: 'call_ask',
      asks: ['call_ask', 'call_refund'],
    });
    const view = await client().getPause({ runId, interruptId: paused.interruptId }, { includeMessages: true });
    expect(view).toMatchObject({ status: 'paused', pending: ['call_ask', 'call_refund'], messages: aiSdkRound() });
    expect((await client().getPause({ runId, interruptId: paused.interruptId })).messages).toBeUndefined();
    const page = await client().listPauses({ status: 'paused', limit: 100 });
    expect(page.items.map((item) => item.interruptId)).toContain(paused.interruptId);
  });

  it('decides in two requests: 202 pending as the store says it, then the continuation with dispatch', async () => {
    const runId = newRun();
    const { interruptId } = await client().pause(twoAsks(runId));
    const first = await client().decide({
      runId,
      interruptId,
      decisions: [{ toolCallId: 'call_ask', answer: 'broken' }],
    });
    expect(first).toEqual({
      kind: 'pending',
      runId,
      interruptId,
      status: 'paused',
      decided: ['call_ask'],
      pending: ['call_refund'],
    });
    const last = await client().decide({
      runId,
      interruptId,
      decisions: [{ toolCallId: 'call_refund', decision: 'approve' }],
    });
    expect(last).toMatchObject({
      kind: 'closed',
      runId,
      interruptId,
      outcome: 'resumed',
      dispatch: [{ toolCallId: 'call_refund', name: 'refund_order', args: { amount: 120 } }],
    });
    if (last.kind !== 'closed') throw new Error('not closed');
    const read = await client().getContinuation({ runId, continuationId: last.continuationId });
    const { kind: _, ...continuation } = last;
    expect(read).toEqual(continuation);
  });

  it('throws the store’s AlreadyDecidedError, with the ask and the ids, for a different decision', async () => {
    const runId = newRun();
    const { interruptId } = await client().pause(twoAsks(runId));
    await client().decide({ runId, interruptId, decisions: [{ toolCallId: 'call_ask', answer: 'broken' }] });
    const error = await client()
      .decide({ runId, interruptId, decisions: [{ toolCallId: 'call_ask', answer: 'lost' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AlreadyDecidedError);
    expect(error).toMatchObject({
      name: 'AlreadyDecidedError',
      code: 'already_decided',
      toolCallId: 'call_ask',
      runId,
      interruptId,
    });
  });

  it('resumes a part-one pause with its answer, and replays it', async () => {
    const runId = newRun();
    const { interruptId } = await client().pause({
      runId,
      format: 'ai-sdk',
      messages: aiSdkRound(),
      toolCallId: 'call_ask',
    });
    const resumed = await client().resume({ runId, interruptId, answer: 'it broke' });
    expect(resumed.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ toolCallId: 'call_ask', output: { type: 'text', value: 'it broke' } }, { toolCallId: 'call_refund' }],
    });
    expect(await client().resume({ runId, interruptId, answer: 'it broke' })).toEqual(resumed);
  });

  it('cancels a pause with a reason: outcome cancelled, nothing dispatched', async () => {
    const runId = newRun();
    const { interruptId } = await client().pause(twoAsks(runId));
    const cancelled = await client().cancel({ runId, interruptId, reason: 'customer withdrew' });
    expect(cancelled).toMatchObject({ runId, interruptId, outcome: 'cancelled', dispatch: [] });
    expect(JSON.stringify(cancelled.messages)).toContain('customer withdrew');
    expect((await client().getPause({ runId, interruptId })).status).toBe('cancelled');
  });

  it('pages through the pauses with limit and cursor', async () => {
    for (let i = 0; i < 3; i++) await client().pause(twoAsks(newRun()));
    const first = await client().listPauses({ limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.cursor).toEqual(expect.any(String));
    const second = await client().listPauses({ limit: 2, cursor: first.cursor as string });
    expect(second.items.map((i) => i.interruptId)).not.toContain(first.items[0]?.interruptId);
  });

  it('replays a pause sent again under the caller’s own Idempotency-Key, and refuses a second open pause without one', async () => {
    const runId = newRun();
    const first = await client().pause({ ...twoAsks(runId), idempotencyKey: 'key-1' });
    expect(await client().pause({ ...twoAsks(runId), idempotencyKey: 'key-1' })).toEqual(first);
    await expect(client().pause(twoAsks(runId))).rejects.toBeInstanceOf(OpenPauseExistsError);
  });

  it('reads messages left out past 5 MB in slices, so decide, getContinuation and getPause give the whole transcript', async () => {
    const runId = newRun();
    // 5.5 MB of user text: under the 6 MB pause body, over the 5 MB a response carries.
    const filler = Array.from({ length: 11 }, (_, i) => ({ role: 'user', content: `${i}:${'x'.repeat(500_000)}` }));
    const messages = [...filler, ...aiSdkRound()];
    const { interruptId } = await client().pause({ runId, format: 'ai-sdk', messages, toolCallId: 'call_ask' });
    const view = await client().getPause({ runId, interruptId }, { includeMessages: true });
    expect(view.messages).toEqual(messages);
    expect(view).not.toHaveProperty('messagesOmitted');
    const resumed = await client().resume({ runId, interruptId, answer: 'yes' });
    expect(resumed.messages).toHaveLength(messages.length + 1);
    expect(resumed.messages.slice(0, messages.length)).toEqual(messages);
    expect(resumed).not.toHaveProperty('messagesOmitted');
    const read = await client().getContinuation({ runId, continuationId: resumed.continuationId });
    expect(read.messages).toEqual(resumed.messages);
  });

  it('throws PauseNotFoundError naming the run and pause for an unknown pause', async () => {
    const error = await client()
      .getPause({ runId: 'no-such-run', interruptId: 'nope' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PauseNotFoundError);
    expect(error).toMatchObject({ runId: 'no-such-run', interruptId: 'nope', code: 'pause_not_found' });
  });
});

const SECRET = 'a-test-secret-of-at-least-32-bytes-long!';
const auth = useLocalService({ HANDBACK_JWT_SECRET: SECRET });
const tokenFor = (tenant: string) =>
  new SignJWT({ tenant, sub: `agent-of-${tenant}` })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));

describe('the client with a token', () => {
  it('sends the token (or what its function returns) as a bearer token, scoping every call to its tenant', async () => {
    let calls = 0;
    const token = async () => {
      calls++;
      return tokenFor('acme');
    };
    const acme = createHandbackClient({ baseUrl: auth.url, token });
    const globex = createHandbackClient({ baseUrl: auth.url, token: await tokenFor('globex') });
    const runId = newRun();
    const { interruptId } = await acme.pause(twoAsks(runId));
    expect(calls).toBe(1);
    expect((await acme.getPause({ runId, interruptId })).status).toBe('paused');
    await expect(globex.getPause({ runId, interruptId })).rejects.toBeInstanceOf(PauseNotFoundError);
  });

  it('throws HandbackHttpError with status 401 and the problem’s code without a token', async () => {
    const error = await createHandbackClient({ baseUrl: auth.url })
      .listPauses()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HandbackHttpError);
    expect(error).toMatchObject({ status: 401, code: 'unauthorized' });
  });
});
