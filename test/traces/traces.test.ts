import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ResumeResult } from '../../functions/checkpoints/checkpoint-store.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/memory-store.ts';
import { createApiHandler } from '../../functions/handlers/http-api.ts';
import { sweepDue } from '../../functions/resume/resume.ts';
import { createTraces, type Traces } from '../../functions/traces/traces.ts';
import { httpEvent, lambdaContext, pausedTurn } from '../handlers/events.ts';
import { testTelemetry } from '../handlers/telemetry.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';

/**
 * §21 in process: the API on a memory store with traces exported to an OTLP receiver of the test's own, the asks'
 * spans from the store's change observer as `npm start` wires it. What arrives is decoded from OTLP/JSON and read
 * back: names, parents, trace ids, times, attributes and events.
 */

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE}-${CALLER_SPAN}-01`;
const T0 = Date.parse('2026-12-01T09:00:00.000Z');

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.spans.length = 0;
  receiver.requests.length = 0;
});

/** The API on a fresh memory store, its clock at `now.ms`, traced to the receiver unless `traced` is false. */
function service(options: { traced?: boolean } = {}) {
  const now = { ms: T0 };
  const telemetry = testTelemetry();
  const traces: Traces | undefined =
    options.traced === false ? undefined : createTraces({ endpoint: receiver.url, log: telemetry.logger });
  const store = createMemoryCheckpointStore({
    clock: () => new Date(now.ms),
    onChange: (change) => traces?.changed(change),
  });
  const handedOff: ResumeResult[] = [];
  const deps = {
    store,
    handoff: { deliver: async (result: ResumeResult) => void handedOff.push(result) },
    ...telemetry,
    now: () => now.ms,
    ...(traces === undefined ? {} : { traces }),
  };
  const handler = createApiHandler(deps);
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    options: { headers?: Record<string, string>; sub?: string } = {},
  ) => {
    const event = httpEvent(method, path, {
      ...(body === undefined ? {} : { body }),
      ...(options.headers === undefined ? {} : { headers: options.headers }),
      claims: { tenant: 'acme', sub: options.sub ?? 'agent-1' },
    });
    const response = await handler(event, lambdaContext());
    return { status: response.statusCode, body: JSON.parse(response.body ?? 'null') };
  };
  return { call, now, deps, handedOff, traces, store };
}

const approvalPause = (approvals = 1) => ({
  format: 'openai-chat',
  messages: pausedTurn(),
  asks: [{ toolCallId: 'call_notify', kind: 'approval', ...(approvals > 1 ? { approvals } : {}) }],
});

describe('a pause made in the caller’s trace (§21)', () => {
  it('is a handback.pause span under the caller’s span, whose ask spans to its decision, and whose continuation joins the trace', async () => {
    const { call, now, traces, handedOff } = service();
    const created = await call('POST', '/runs/run-1/pauses', approvalPause(2), {
      headers: { traceparent: TRACEPARENT },
    });
    expect(created.status).toBe(201);
    const [pause] = await receiver.waitFor(1, 'handback.pause');
    expect(pause).toMatchObject({
      traceId: TRACE,
      parentSpanId: CALLER_SPAN,
      kind: 2,
      startMs: T0,
      endMs: T0,
      attributes: {
        'handback.run.id': 'run-1',
        'handback.pause.id': created.body.interruptId,
        'handback.asks': 1,
        'handback.replayed': false,
      },
      resource: { 'service.name': 'handback' },
    });
    expect(pause?.spanId).not.toBe(CALLER_SPAN);

    const decide = (sub: string) =>
      call(
        'POST',
        '/runs/run-1/resume',
        { interruptId: created.body.interruptId, decisions: [{ toolCallId: 'call_notify', decision: 'approve' }] },
        { sub },
      );
    now.ms = T0 + 60_000;
    expect((await decide('person-1')).status).toBe(202);
    now.ms = T0 + 90_000;
    const closed = await decide('person-2');
    expect(closed.status).toBe(200);

    const [ask] = await receiver.waitFor(1, 'handback.ask');
    expect(ask).toEqual({
      traceId: TRACE,
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
      parentSpanId: pause?.spanId,
      name: 'handback.ask',
      kind: 1,
      startMs: T0,
      endMs: T0 + 90_000,
      attributes: {
        'handback.tool': 'notify',
        'gen_ai.tool.call.id': 'call_notify',
        'handback.ask.kind': 'approval',
        'handback.outcome': 'approve',
        'handback.run.id': 'run-1',
        'handback.pause.id': created.body.interruptId,
        'handback.votes': 2,
        'handback.level': 0,
        'handback.via': 'api',
      },
      events: [
        {
          name: 'handback.vote',
          timeMs: T0 + 60_000,
          attributes: { 'handback.decision': 'approve', 'handback.via': 'api' },
        },
        {
          name: 'handback.vote',
          timeMs: T0 + 90_000,
          attributes: { 'handback.decision': 'approve', 'handback.via': 'api' },
        },
      ],
      resource: { 'service.name': 'handback' },
    });
    // The pause keeps its own span: the agent's next invocation is the pause's child, in the caller's trace.
    const carried = `00-${TRACE}-${pause?.spanId}-01`;
    expect(closed.body.traceparent).toBe(carried);
    expect(handedOff.map((result) => result.traceparent)).toEqual([carried]);
    const continuation = await call('GET', `/runs/run-1/continuations/${closed.body.continuationId}`);
    expect(continuation.body.traceparent).toBe(carried);
    await traces?.flush();
    expect(receiver.spans.map((span) => span.name)).toEqual(['handback.pause', 'handback.ask']);
    expect(receiver.requests.every((request) => request.contentType === 'application/json')).toBe(true);
  });

  it('starts a trace of its own without a traceparent: handback.pause is its root', async () => {
    const { call } = service();
    const created = await call('POST', '/runs/run-1/pauses', approvalPause());
    expect(created.status).toBe(201);
    const [pause] = await receiver.waitFor(1, 'handback.pause');
    expect(pause?.parentSpanId).toBeUndefined();
    expect(pause?.traceId).toMatch(/^(?!0{32})[0-9a-f]{32}$/);
    const closed = await call('POST', `/runs/run-1/pauses/${created.body.interruptId}/cancel`, {});
    expect(closed.body.traceparent).toBe(`00-${pause?.traceId}-${pause?.spanId}-01`);
  });

  it.each([
    ['uppercase hex', `00-${TRACE.toUpperCase()}-${CALLER_SPAN}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${CALLER_SPAN}-01`],
    ['an all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${CALLER_SPAN}-01`],
    ['version 00 with a fifth field', `${TRACEPARENT}-extra`],
    ['no traceparent at all', 'garbage'],
  ])('ignores a traceparent of %s: the pause is made, in a new trace', async (_, traceparent) => {
    const { call } = service();
    const created = await call('POST', '/runs/run-1/pauses', approvalPause(), { headers: { traceparent } });
    expect(created.status).toBe(201);
    const [pause] = await receiver.waitFor(1, 'handback.pause');
    expect(pause?.parentSpanId).toBeUndefined();
    expect(pause?.traceId).not.toBe(TRACE);
  });

  it('reads a later version by its first four fields, as Trace Context says', async () => {
    const { call } = service();
    await call('POST', '/runs/run-1/pauses', approvalPause(), {
      headers: { traceparent: `01-${TRACE}-${CALLER_SPAN}-01-what-comes-next` },
    });
    const [pause] = await receiver.waitFor(1, 'handback.pause');
    expect(pause).toMatchObject({ traceId: TRACE, parentSpanId: CALLER_SPAN });
  });

  it('exports nothing of a trace the caller does not sample, and carries its traceparent back as it came', async () => {
    const { call, traces } = service();
    const unsampled = `00-${TRACE}-${CALLER_SPAN}-00`;
    const created = await call('POST', '/runs/run-1/pauses', approvalPause(), { headers: { traceparent: unsampled } });
    const closed = await call('POST', '/runs/run-1/resume', {
      interruptId: created.body.interruptId,
      decisions: [{ toolCallId: 'call_notify', decision: 'reject', reason: 'not now' }],
    });
    expect(closed.body.traceparent).toBe(unsampled);
    await traces?.flush();
    expect(receiver.requests).toEqual([]);
  });

  it('is a span with an error status when the pause is refused, and the refusal is as without traces', async () => {
    const { call } = service();
    await call('POST', '/runs/run-1/pauses', approvalPause(), { headers: { traceparent: TRACEPARENT } });
    const refused = await call('POST', '/runs/run-1/pauses', approvalPause(), {
      headers: { traceparent: TRACEPARENT },
    });
    expect(refused).toMatchObject({ status: 409, body: { code: 'open_pause_exists' } });
    const spans = await receiver.waitFor(2, 'handback.pause');
    expect(spans[1]).toMatchObject({
      traceId: TRACE,
      parentSpanId: CALLER_SPAN,
      status: { code: 2, message: 'open_pause_exists' },
      attributes: { 'handback.run.id': 'run-1', 'handback.error.code': 'open_pause_exists' },
    });
  });

  it('keeps the first traceparent when the same pause is asked again from another span (the same Idempotency-Key)', async () => {
    const { call } = service();
    const headers = { 'idempotency-key': 'key-1' };
    const first = await call('POST', '/runs/run-1/pauses', approvalPause(), {
      headers: { ...headers, traceparent: TRACEPARENT },
    });
    const again = await call('POST', '/runs/run-1/pauses', approvalPause(), {
      headers: { ...headers, traceparent: `00-${TRACE}-${'1'.repeat(16)}-01` },
    });
    expect(again).toMatchObject({ status: 201, body: { interruptId: first.body.interruptId } });
    const [one, two] = await receiver.waitFor(2, 'handback.pause');
    expect([one?.attributes['handback.replayed'], two?.attributes['handback.replayed']]).toEqual([false, true]);
    expect(two?.parentSpanId).toBe('1'.repeat(16));
    const closed = await call('POST', `/runs/run-1/pauses/${first.body.interruptId}/cancel`, { reason: 'done' });
    expect(closed.body.traceparent).toBe(`00-${TRACE}-${one?.spanId}-01`);
  });
});

describe('an ask settled without a person (§21)', () => {
  it('spans to its cancel, outcome cancelled, with no votes', async () => {
    const { call, now } = service();
    const created = await call('POST', '/runs/run-1/pauses', approvalPause(), {
      headers: { traceparent: TRACEPARENT },
    });
    now.ms = T0 + 5_000;
    await call('POST', `/runs/run-1/pauses/${created.body.interruptId}/cancel`, { reason: 'the user left' });
    const [ask] = await receiver.waitFor(1, 'handback.ask');
    expect(ask).toMatchObject({
      traceId: TRACE,
      startMs: T0,
      endMs: T0 + 5_000,
      attributes: { 'handback.outcome': 'cancelled', 'handback.votes': 0 },
      events: [],
    });
    expect(ask?.attributes).not.toHaveProperty('handback.via');
  });

  it.each([
    ['fail', 'marks it expired'],
    ['reject', 'closes it with the sweep’s rejection'],
  ])('spans to its expiry, outcome expired, when onExpiry is %s (the sweep %s)', async (onExpiry) => {
    const { call, now, deps } = service();
    await call(
      'POST',
      '/runs/run-1/pauses',
      { ...approvalPause(), expiresInSeconds: 60, onExpiry },
      { headers: { traceparent: TRACEPARENT } },
    );
    now.ms = T0 + 61_000;
    await sweepDue(deps);
    const [ask] = await receiver.waitFor(1, 'handback.ask');
    expect(ask).toMatchObject({
      startMs: T0,
      endMs: onExpiry === 'fail' ? T0 + 60_000 : T0 + 61_000,
      attributes: { 'handback.outcome': 'expired', 'handback.votes': 0 },
    });
  });
});

describe('an approved call’s execution (§19, §21)', () => {
  it('is a handback.execution span from its claim to its end, the pause span’s child, with gen_ai.tool.call.id', async () => {
    const { call, now, traces } = service();
    const created = await call('POST', '/runs/run-1/pauses', approvalPause(), {
      headers: { traceparent: TRACEPARENT },
    });
    const [pause] = await receiver.waitFor(1, 'handback.pause');
    const closed = await call(
      'POST',
      '/runs/run-1/resume',
      { interruptId: created.body.interruptId, decisions: [{ toolCallId: 'call_notify', decision: 'approve' }] },
      { sub: 'person-1' },
    );
    expect(closed.status).toBe(200);
    const executions = `/runs/run-1/continuations/${closed.body.continuationId}/executions`;
    now.ms = T0 + 10_000;
    expect((await call('POST', executions, { toolCallId: 'call_notify' })).status).toBe(200);
    await traces?.flush();
    // Claimed, still running: no span yet.
    expect(receiver.spans.map((span) => span.name)).toEqual(['handback.pause', 'handback.ask']);
    now.ms = T0 + 25_000;
    expect((await call('PUT', `${executions}/call_notify`, { status: 'failed', detail: 'timeout' })).status).toBe(200);
    const [execution] = await receiver.waitFor(1, 'handback.execution');
    expect(execution).toMatchObject({
      traceId: TRACE,
      parentSpanId: pause?.spanId,
      name: 'handback.execution',
      kind: 1,
      startMs: T0 + 10_000,
      endMs: T0 + 25_000,
      attributes: {
        'handback.tool': 'notify',
        'gen_ai.tool.call.id': 'call_notify',
        'handback.run.id': 'run-1',
        'handback.continuation.id': closed.body.continuationId,
        'handback.execution.status': 'failed',
      },
    });
    // The same end told again changes nothing: one span.
    expect((await call('PUT', `${executions}/call_notify`, { status: 'failed', detail: 'timeout' })).status).toBe(200);
    await traces?.flush();
    expect(receiver.spans.filter((span) => span.name === 'handback.execution')).toHaveLength(1);
  });
});

describe('without an OTLP endpoint (§21)', () => {
  it('makes no span, and carries the caller’s traceparent back unchanged', async () => {
    const { call, handedOff } = service({ traced: false });
    const created = await call('POST', '/runs/run-1/pauses', approvalPause(), {
      headers: { traceparent: TRACEPARENT },
    });
    const closed = await call('POST', '/runs/run-1/resume', {
      interruptId: created.body.interruptId,
      decisions: [{ toolCallId: 'call_notify', decision: 'approve' }],
    });
    expect(closed.body.traceparent).toBe(TRACEPARENT);
    expect(handedOff.map((result) => result.traceparent)).toEqual([TRACEPARENT]);
    expect(receiver.requests).toEqual([]);
  });

  it('carries no traceparent back for a pause made outside a trace', async () => {
    const { call } = service({ traced: false });
    const created = await call('POST', '/runs/run-1/pauses', approvalPause());
    const closed = await call('POST', `/runs/run-1/pauses/${created.body.interruptId}/cancel`, {});
    expect(closed.status).toBe(200);
    expect(closed.body).not.toHaveProperty('traceparent');
  });
});

describe('an export the endpoint refuses (§21)', () => {
  it('is logged and never fails the request', async () => {
    const telemetry = testTelemetry();
    const traces = createTraces({ endpoint: `${receiver.url}/nowhere`, log: telemetry.logger });
    const store = createMemoryCheckpointStore({ onChange: (change) => traces.changed(change) });
    const handler = createApiHandler({ store, handoff: { deliver: async () => {} }, ...telemetry, traces });
    const event = httpEvent('POST', '/runs/run-1/pauses', {
      body: approvalPause(),
      headers: { traceparent: TRACEPARENT },
      claims: { tenant: 'acme', sub: 'agent-1' },
    });
    const response = await handler(event, lambdaContext());
    expect(response.statusCode).toBe(201);
    await traces.flush();
    expect(receiver.requests).toEqual([
      { method: 'POST', path: '/nowhere/v1/traces', contentType: 'application/json' },
    ]);
    expect(telemetry.logged.warn).toHaveBeenCalledWith('Spans not exported to the OTLP endpoint', {
      error: expect.stringContaining('answered 404'),
    });
  });
});
