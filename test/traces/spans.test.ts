import { describe, expect, it } from 'vitest';
import type { PauseRecord } from '../../functions/checkpoints/record.ts';
import { traceparentOf } from '../../functions/fields.ts';
import { exportRequest, tracesUrl } from '../../functions/traces/otlp.ts';
import { askSpans, type EscalationStep, executionSpan, pauseSpan } from '../../functions/traces/spans.ts';
import { derivedSpanId, parseTraceparent } from '../../functions/traces/trace-context.ts';

/** The pure parts of §21's traces: a `traceparent` read, the spans built from a change, OTLP/JSON written. */

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PAUSE_SPAN = 'a1b2c3d4e5f60718';
const TRACEPARENT = `00-${TRACE}-${PAUSE_SPAN}-01`;
const CREATED = '2026-12-01T09:00:00.000Z';
const T0 = Date.parse(CREATED);

/** An open pause of two approval asks, in the trace, as the store records it. */
function record(overrides: Partial<PauseRecord> = {}): PauseRecord {
  return {
    tenant: 'acme',
    runId: 'run-1',
    seq: 1,
    token: 'tok',
    readHint: 'h',
    format: 'openai-chat',
    asks: [
      { toolCallId: 'call_a', name: 'delete_branch', kind: 'approval', argsHash: 'x' },
      { toolCallId: 'call_b', name: 'send_refund', kind: 'approval', argsHash: 'y' },
    ],
    decisions: [undefined, undefined],
    pausedBy: { kind: 'agent', subject: 'agent-1', via: 'api' },
    createdAt: CREATED,
    expiresAtMs: T0 + 3_600_000,
    onExpiry: 'fail',
    status: 'paused',
    rev: 1,
    transcript: { codec: 'br', bytes: 1 } as unknown as PauseRecord['transcript'],
    traceparent: TRACEPARENT,
    ...overrides,
  };
}

describe('traceparentOf', () => {
  it.each([
    [TRACEPARENT, TRACEPARENT],
    [`00-${TRACE}-${PAUSE_SPAN}-00`, `00-${TRACE}-${PAUSE_SPAN}-00`],
    [`cc-${TRACE}-${PAUSE_SPAN}-01-more`, TRACEPARENT],
    [`cc-${TRACE}-${PAUSE_SPAN}-01`, TRACEPARENT],
  ])('reads %s as %s', (given, read) => {
    expect(traceparentOf(given)).toBe(read);
  });

  it.each([
    ['uppercase', TRACEPARENT.toUpperCase()],
    ['a short trace id', `00-${TRACE.slice(1)}-${PAUSE_SPAN}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PAUSE_SPAN}-01`],
    ['an all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${PAUSE_SPAN}-01`],
    ['version 00 with more', `${TRACEPARENT}-x`],
    ['a later version glued to more', `cc-${TRACE}-${PAUSE_SPAN}-01x`],
    ['whitespace around it', ` ${TRACEPARENT}`],
    ['over 512 characters', `cc-${TRACE}-${PAUSE_SPAN}-01-${'a'.repeat(500)}`],
    ['a number', 42],
    ['nothing', undefined],
  ])('reads %s as none', (_, given) => {
    expect(traceparentOf(given)).toBeUndefined();
  });

  it('tells a sampled trace by its flags', () => {
    expect(parseTraceparent(TRACEPARENT)).toEqual({ traceId: TRACE, spanId: PAUSE_SPAN, flags: '01', sampled: true });
    expect(parseTraceparent(`00-${TRACE}-${PAUSE_SPAN}-02`)?.sampled).toBe(false);
    expect(parseTraceparent(`00-${TRACE}-${PAUSE_SPAN}-03`)?.sampled).toBe(true);
  });
});

describe('askSpans', () => {
  it('spans a policy-decided ask from the pause to its decision, with the policy’s event and version', () => {
    const after = record({
      asks: [
        {
          toolCallId: 'call_a',
          name: 'delete_branch',
          kind: 'approval',
          policy: { outcome: 'reject', policyIds: ['no-deletes'] },
        },
      ],
      decisions: [
        {
          body: { decision: 'reject', reason: 'never' },
          hash: 'h',
          decidedAt: CREATED,
          by: {
            kind: 'service',
            subject: 'policy:no-deletes',
            via: 'policy',
            policyVersion: '0123456789abcdef',
          } as never,
        },
      ],
      status: 'resumed',
    });
    const [span] = askSpans({ after });
    expect(span).toEqual({
      traceId: TRACE,
      spanId: derivedSpanId('ask', 'acme', 'run-1', '1.h.tok', 'call_a'),
      parentSpanId: PAUSE_SPAN,
      name: 'handback.ask',
      kind: 1,
      startMs: T0,
      endMs: T0,
      attributes: {
        'handback.tool': 'delete_branch',
        'gen_ai.tool.call.id': 'call_a',
        'handback.ask.kind': 'approval',
        'handback.outcome': 'policy',
        'handback.run.id': 'run-1',
        'handback.pause.id': '1.h.tok',
        'handback.votes': 0,
        'handback.level': 0,
        'handback.policy.outcome': 'reject',
        'handback.policy.id': ['no-deletes'],
        'handback.policy.version': '0123456789abcdef',
      },
      events: [
        {
          name: 'handback.policy',
          timeMs: T0,
          attributes: { 'handback.policy.outcome': 'reject', 'handback.policy.id': ['no-deletes'] },
        },
      ],
    });
  });

  it('spans only the asks this change settled, each once, whatever the other asks did before', () => {
    const decided = {
      body: { decision: 'approve' as const },
      hash: 'h',
      decidedAt: '2026-12-01T09:10:00.000Z',
      by: { kind: 'person' as const, subject: 'p1', via: 'slack' as const },
    };
    const before = record({ decisions: [decided, undefined] });
    const after = record({
      decisions: [
        decided,
        { body: { answer: 'yes' }, hash: 'h', decidedAt: '2026-12-01T09:20:00.000Z', by: decided.by },
      ],
    });
    const spans = askSpans({ before, after });
    expect(spans.map((span) => [span.attributes['gen_ai.tool.call.id'], span.attributes['handback.outcome']])).toEqual([
      ['call_b', 'answer'],
    ]);
    expect(spans[0]?.endMs).toBe(Date.parse('2026-12-01T09:20:00.000Z'));
    expect(spans[0]?.attributes['handback.via']).toBe('slack');
    // The same change delivered again (a stream's retry) makes the same span, not another.
    expect(askSpans({ before, after })).toEqual(spans);
  });

  it('puts one event per escalation level the ladder says the ask reached, in time order with its votes', () => {
    const after = record({
      decisions: [
        {
          body: { decision: 'edit', args: {} },
          hash: 'h',
          decidedAt: '2026-12-01T11:00:00.000Z',
          by: { kind: 'person', subject: 'lead', via: 'api' },
        },
        undefined,
      ],
    });
    const steps: EscalationStep[] = [
      { level: 2, atMs: T0 + 7_200_000, approvers: 1 },
      { level: 1, atMs: T0 + 1_800_000, approvers: 3 },
    ];
    const [span] = askSpans({ before: record(), after }, (_, index) => (index === 0 ? steps : []));
    expect(span?.attributes['handback.level']).toBe(2);
    expect(span?.attributes['handback.outcome']).toBe('edit');
    expect(span?.events).toEqual([
      {
        name: 'handback.escalation',
        timeMs: T0 + 1_800_000,
        attributes: { 'handback.level': 1, 'handback.approvers': 3 },
      },
      {
        name: 'handback.escalation',
        timeMs: T0 + 7_200_000,
        attributes: { 'handback.level': 2, 'handback.approvers': 1 },
      },
    ]);
  });

  it.each([
    ['outside any trace', undefined],
    ['in a trace its caller does not sample', `00-${TRACE}-${PAUSE_SPAN}-00`],
  ])('makes no span for a pause %s', (_, traceparent) => {
    const { traceparent: __, ...untraced } = record();
    const after = { ...untraced, status: 'cancelled', ...(traceparent === undefined ? {} : { traceparent }) };
    expect(askSpans({ before: record(), after })).toEqual([]);
  });
});

describe('pauseSpan and executionSpan', () => {
  it('make the pause request a server span, an error with its code when refused', () => {
    expect(
      pauseSpan({ traceId: TRACE, spanId: PAUSE_SPAN, startMs: 1, endMs: 2, runId: 'r', errorCode: 'bad_request' }),
    ).toEqual({
      traceId: TRACE,
      spanId: PAUSE_SPAN,
      name: 'handback.pause',
      kind: 2,
      startMs: 1,
      endMs: 2,
      attributes: { 'handback.run.id': 'r', 'handback.error.code': 'bad_request' },
      events: [],
      error: 'bad_request',
    });
  });

  it('spans an execution from its claim to its end, in the pause’s trace, an error when it failed', () => {
    const execution = {
      traceparent: TRACEPARENT,
      tenant: 'acme',
      runId: 'run-1',
      continuationId: '1.h.c',
      toolCallId: 'call_a',
      tool: 'delete_branch',
      claimedAtMs: T0,
      endedAtMs: T0 + 2_000,
    };
    expect(executionSpan({ ...execution, status: 'succeeded' })).toEqual({
      traceId: TRACE,
      spanId: derivedSpanId('execution', 'acme', 'run-1', '1.h.c', 'call_a'),
      parentSpanId: PAUSE_SPAN,
      name: 'handback.execution',
      kind: 1,
      startMs: T0,
      endMs: T0 + 2_000,
      attributes: {
        'handback.tool': 'delete_branch',
        'gen_ai.tool.call.id': 'call_a',
        'handback.run.id': 'run-1',
        'handback.continuation.id': '1.h.c',
        'handback.execution.status': 'succeeded',
      },
      events: [],
    });
    expect(executionSpan({ ...execution, status: 'refused', reason: 'policy_forbids' })?.error).toBe('policy_forbids');
    expect(executionSpan({ ...execution, traceparent: undefined, status: 'failed' })).toBeUndefined();
  });
});

describe('OTLP/HTTP JSON', () => {
  it('posts to <endpoint>/v1/traces, one trailing slash or none', () => {
    expect(tracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('https://otlp.example.com/otlp/')).toBe('https://otlp.example.com/otlp/v1/traces');
  });

  it('writes a span as an ExportTraceServiceRequest: hex ids, nanosecond strings, typed values, an error status', () => {
    const request = exportRequest([
      {
        traceId: TRACE,
        spanId: PAUSE_SPAN,
        parentSpanId: '0102030405060708',
        name: 'handback.ask',
        kind: 1,
        startMs: T0,
        endMs: T0 + 1.5,
        attributes: { s: 'x', i: 2, d: 0.5, b: true, a: ['p', 'q'] },
        events: [{ name: 'handback.vote', timeMs: T0, attributes: { 'handback.via': 'api' } }],
        error: 'failed',
      },
    ]);
    expect(request).toEqual({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'handback' } }] },
          scopeSpans: [
            {
              scope: { name: 'handback' },
              spans: [
                {
                  traceId: TRACE,
                  spanId: PAUSE_SPAN,
                  parentSpanId: '0102030405060708',
                  name: 'handback.ask',
                  kind: 1,
                  startTimeUnixNano: `${T0}000000`,
                  endTimeUnixNano: `${T0 + 2}000000`,
                  attributes: [
                    { key: 's', value: { stringValue: 'x' } },
                    { key: 'i', value: { intValue: '2' } },
                    { key: 'd', value: { doubleValue: 0.5 } },
                    { key: 'b', value: { boolValue: true } },
                    { key: 'a', value: { arrayValue: { values: [{ stringValue: 'p' }, { stringValue: 'q' }] } } },
                  ],
                  events: [
                    {
                      timeUnixNano: `${T0}000000`,
                      name: 'handback.vote',
                      attributes: [{ key: 'handback.via', value: { stringValue: 'api' } }],
                    },
                  ],
                  status: { code: 2, message: 'failed' },
                },
              ],
            },
          ],
        },
      ],
    });
  });
});
