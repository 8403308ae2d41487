import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claudeHook } from '../../functions/mcp/claude-hook.ts';
import { request } from '../black-box/service.ts';
import { type Handback, startHandback } from '../mcp/support.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';

/**
 * §21 against `npm start`: a receiver of the test's own as `OTEL_EXPORTER_OTLP_ENDPOINT`, and the trace a pause is
 * asked in through each door — the HTTP header, MCP's `_meta.traceparent` on `POST /mcp`, and Claude Code's hook with
 * `TRACEPARENT` — read back from what arrives. Another service without the setting sends nothing, even to a receiver
 * on OTLP/HTTP's default port (4318), where an SDK left at its defaults would send.
 */

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const traceparentOf = (span: string, flags = '01') => `00-${TRACE}-${span}-${flags}`;

const pausedTurn = [
  { role: 'user', content: 'Clean up the old branches.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_del', type: 'function', function: { name: 'delete_branch', arguments: '{"b":"old"}' } }],
  },
];

let receiver: OtlpReceiver;
let handback: Handback;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  handback = await startHandback({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, HANDBACK_MCP_WAIT_SECONDS: '1' });
});
afterAll(async () => {
  await handback?.stop();
  await receiver?.close();
});
beforeEach(() => {
  receiver.spans.length = 0;
});

describe('npm start with an OTLP endpoint (§21)', () => {
  it('exports the pause and its ask in the trace the request names, and the continuation joins it', async () => {
    const runId = `run-${randomUUID()}`;
    const callerSpan = 'b7ad6b7169203331';
    const agent = { authorization: `Bearer ${handback.agentToken}`, traceparent: traceparentOf(callerSpan) };
    const created = await request(
      `${handback.url}/runs/${runId}/pauses`,
      'POST',
      { format: 'openai-chat', messages: pausedTurn, asks: [{ toolCallId: 'call_del', kind: 'approval' }] },
      agent,
    );
    expect(created.status).toBe(201);
    const view = await handback.person.read(runId, created.body.interruptId);
    const decided = await handback.person.decide(view, { decision: 'reject', reason: 'keep them' });
    expect(decided.status).toBe(200);

    // Each request's spans are sent before it is answered: both are here already.
    const [pause] = receiver.spans.filter((span) => span.name === 'handback.pause');
    const [ask] = receiver.spans.filter((span) => span.name === 'handback.ask');
    expect(pause).toMatchObject({ traceId: TRACE, parentSpanId: callerSpan, attributes: { 'handback.run.id': runId } });
    expect(ask).toMatchObject({
      traceId: TRACE,
      parentSpanId: pause?.spanId,
      attributes: {
        'handback.tool': 'delete_branch',
        'gen_ai.tool.call.id': 'call_del',
        'handback.outcome': 'reject',
        'handback.votes': 1,
      },
    });
    expect(ask?.endMs).toBeGreaterThanOrEqual(ask?.startMs ?? Number.POSITIVE_INFINITY);
    expect(decided.body.traceparent).toBe(traceparentOf(pause?.spanId ?? ''));
  });

  it('pauses an MCP call in the trace of its _meta.traceparent (POST /mcp)', async () => {
    const callerSpan = 'c1c2c3c4c5c6c7c8';
    const toolUseId = `toolu_${randomUUID().replaceAll('-', '')}`;
    const response = await fetch(`${handback.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${handback.agentToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'request_permission',
          arguments: { tool_name: 'Bash', input: { command: 'git push --force' }, tool_use_id: toolUseId },
          _meta: { traceparent: traceparentOf(callerSpan) },
        },
      }),
    });
    // Past its wait the call answers that the pause still waits; the pause is made either way.
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('interrupt');
    const [pause] = receiver.spans.filter((span) => span.name === 'handback.pause');
    expect(pause).toMatchObject({
      traceId: TRACE,
      parentSpanId: callerSpan,
      attributes: { 'handback.run.id': `mcp-${toolUseId}` },
    });
  });

  it('pauses a Claude Code hook’s call in the trace of its TRACEPARENT', async () => {
    const callerSpan = 'd1d2d3d4d5d6d7d8';
    const session = randomUUID();
    const output = await claudeHook(
      JSON.stringify({
        session_id: session,
        transcript_path: join(tmpdir(), 'no-transcript.jsonl'),
        cwd: '/home/dev/shop',
        permission_mode: 'default',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'rm -rf build' },
        tool_use_id: 'toolu_traced',
      }),
      {
        env: {
          HANDBACK_URL: handback.url,
          HANDBACK_TOKEN: handback.agentToken,
          HANDBACK_STATE_DIR: mkdtempSync(join(tmpdir(), 'handback-state-')),
          TRACEPARENT: traceparentOf(callerSpan),
        },
      },
    );
    expect(output.hookSpecificOutput.permissionDecision).toBe('defer');
    const [pause] = receiver.spans.filter((span) => span.name === 'handback.pause');
    expect(pause).toMatchObject({
      traceId: TRACE,
      parentSpanId: callerSpan,
      attributes: { 'handback.run.id': `claude-${session}` },
    });
  });
});

describe('npm start without an OTLP endpoint (§21)', () => {
  it('sends nothing anywhere, not even to OTLP/HTTP’s default port, and carries the caller’s trace back as it came', async () => {
    const defaultPort = await startOtlpReceiver(4318);
    const plain = await startHandback();
    try {
      const runId = `run-${randomUUID()}`;
      const traceparent = traceparentOf('e1e2e3e4e5e6e7e8');
      const created = await request(
        `${plain.url}/runs/${runId}/pauses`,
        'POST',
        { format: 'openai-chat', messages: pausedTurn, asks: [{ toolCallId: 'call_del', kind: 'approval' }] },
        { authorization: `Bearer ${plain.agentToken}`, traceparent },
      );
      const view = await plain.person.read(runId, created.body.interruptId);
      const decided = await plain.person.decide(view, { decision: 'approve' });
      expect(decided.status).toBe(200);
      expect(decided.body.traceparent).toBe(traceparent);
      expect(defaultPort.requests).toEqual([]);
      // Nor to the endpoint the other service has.
      expect(receiver.spans).toEqual([]);
    } finally {
      await plain.stop();
      await defaultPort.close();
    }
  });
});
