import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { storeOperations } from '../../functions/client/types.ts';
import { BadRequestError } from '../../functions/errors.ts';
import { createApiHandler } from '../../functions/handlers/http-api.ts';
import { nestsDeeperThan } from '../../functions/json.ts';
import type { HandbackBackend } from '../../functions/mcp/backend.ts';
import { claudeHook } from '../../functions/mcp/claude-hook.ts';
import { createHandbackMcpServer } from '../../functions/mcp/server.ts';
import { LIMITS } from '../../functions/vocabulary.ts';
import { countOperations } from '../fixtures/operations.ts';
import { httpEvent, lambdaContext } from '../handlers/events.ts';
import { testTelemetry } from '../handlers/telemetry.ts';

/**
 * Tool-call arguments nested deeper than a request body may be (`LIMITS.bodyDepth`) are a 4xx problem naming the
 * field at every door that takes them — a pause body (where openai's `arguments` are JSON text no body check sees),
 * a person's edited arguments, the MCP tool and Claude Code's hook — never a 5xx or a stack overflow, however deep;
 * and the check is linear in the arguments' size, and stops at the first level too deep.
 */

const { bodyDepth } = LIMITS;
/** Depths around the bound and far past it (a recursive walk overflows the stack near 5,000). */
const DEPTHS = [10, bodyDepth, bodyDepth + 1, 1_000, 5_000, 20_000];

/** JSON text of an object nested `depth` levels deep: `{"a":{"a":…1…}}`. */
function nestedText(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** An openai-chat turn paused on one call whose `arguments` are `args` (JSON text). */
function turn(args: string): unknown[] {
  return [
    { role: 'user', content: 'Do it.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'do_it', arguments: args } }],
    },
  ];
}

const ask = [{ toolCallId: 'call_1', kind: 'approval' as const }];

describe('a tool call whose arguments nest deep', () => {
  it.each(DEPTHS)('is a pause, or a 400 naming its message, through the library store at depth %i', async (depth) => {
    const store = createMemoryCheckpointStore();
    const pausing = store.pause({
      tenant: 'acme',
      runId: `deep-${depth}`,
      format: 'openai-chat',
      messages: turn(nestedText(depth)),
      asks: ask,
    });
    if (depth <= bodyDepth) {
      await expect(pausing).resolves.toMatchObject({ status: 'paused' });
      return;
    }
    const error = await pausing.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({
      failures: [
        { path: '/messages/1', message: `the arguments of tool call "call_1" nest more than ${bodyDepth} levels deep` },
      ],
    });
  });

  it.each(DEPTHS)('is a 201, or a 400 problem naming its message, over HTTP at depth %i', async (depth) => {
    const handler = createApiHandler({
      store: createMemoryCheckpointStore(),
      handoff: { deliver: async () => {} },
      ...testTelemetry(),
    });
    const body = { format: 'openai-chat', messages: turn(nestedText(depth)), asks: ask };
    const result = await handler(httpEvent('POST', `/runs/deep-${depth}/pauses`, { body }), lambdaContext());
    const problem = JSON.parse(String(result.body));
    if (depth <= bodyDepth) {
      expect(result.statusCode).toBe(201);
      return;
    }
    expect(result.statusCode).toBe(400);
    expect(problem).toMatchObject({ code: 'bad_request', failures: [{ path: '/messages/1' }] });
  });

  it.each([bodyDepth + 1, 5_000])(
    'as an object (anthropic input) nested %i deep, is a 400 naming where it is too deep, through the store',
    async (depth) => {
      const store = createMemoryCheckpointStore();
      const input = JSON.parse(nestedText(depth));
      const error = await store
        .pause({
          tenant: 'acme',
          runId: 'deep-object',
          format: 'anthropic',
          messages: [
            { role: 'user', content: 'Do it.' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'do_it', input }] },
          ],
          asks: [{ toolCallId: 'toolu_1', kind: 'approval' }],
        })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as BadRequestError).failures[0]?.path).toMatch(/^\/messages\/1\/content\/0\/input(\/a)+$/);
    },
  );
});

describe("a person's edited arguments that nest deep", () => {
  async function paused() {
    const store = createMemoryCheckpointStore();
    const key = { tenant: 'acme', runId: 'edit-deep', interruptId: '' };
    const made = await store.pause({ ...key, format: 'openai-chat', messages: turn('{"a":1}'), asks: ask });
    return { store, key: { ...key, interruptId: made.interruptId } };
  }

  it.each([bodyDepth + 1, 5_000, 20_000])(
    'are a 400 naming where they are too deep, through the library store at depth %i',
    async (depth) => {
      const { store, key } = await paused();
      const args = JSON.parse(nestedText(depth));
      const error = await store.decide({ ...key, decisions: [{ toolCallId: 'call_1', decision: 'edit', args }] }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as BadRequestError).failures).toEqual([
        { path: `/decisions/0/args${'/a'.repeat(bodyDepth)}`, message: `nests more than ${bodyDepth} levels deep` },
      ]);
      expect(await store.getPause(key)).toMatchObject({ status: 'paused', decided: [] });
    },
  );

  it.each([bodyDepth, 1_000, 20_000])('are a 400 problem over HTTP at depth %i, and change nothing', async (depth) => {
    const store = createMemoryCheckpointStore();
    const handler = createApiHandler({ store, handoff: { deliver: async () => {} }, ...testTelemetry() });
    // JSON text as a client sends it: JSON.stringify itself recurses, and a value this deep overflows it.
    const send = async (method: string, path: string, rawBody?: string) => {
      const event = httpEvent(method, path, rawBody === undefined ? {} : { rawBody, contentType: 'application/json' });
      const result = await handler(event, lambdaContext());
      return { status: result.statusCode, body: JSON.parse(String(result.body)) };
    };
    const pause = JSON.stringify({ format: 'openai-chat', messages: turn('{}'), asks: ask });
    const made = await send('POST', '/runs/edit-http/pauses', pause);
    const decision = `{"toolCallId":"call_1","decision":"edit","args":${nestedText(depth)}}`;
    const interruptId = JSON.stringify(made.body.interruptId);
    const decided = await send(
      'POST',
      '/runs/edit-http/resume',
      `{"interruptId":${interruptId},"decisions":[${decision}]}`,
    );
    expect(decided).toMatchObject({ status: 400, body: { code: 'bad_request' } });
    const view = await send('GET', `/runs/edit-http/pauses/${made.body.interruptId}`);
    expect(view.body).toMatchObject({ status: 'paused', decided: [] });
  });

  it('are recorded at the deepest a body may be', async () => {
    const { store, key } = await paused();
    const args = JSON.parse(nestedText(bodyDepth - 1));
    const decided = await store.decide({ ...key, decisions: [{ toolCallId: 'call_1', decision: 'edit', args }] });
    expect(decided).toMatchObject({ kind: 'closed', dispatch: [{ toolCallId: 'call_1', args }] });
  });
});

describe('the coding-agent doors, with arguments that nest deep', () => {
  let state: string;
  beforeAll(async () => {
    state = await mkdtemp(join(tmpdir(), 'handback-deep-'));
  });
  afterAll(async () => {
    await rm(state, { recursive: true, force: true });
  });

  /** A backend on an in-memory store, as the coding-agent commands have on the table. */
  function backend(): HandbackBackend {
    const operations = storeOperations(createMemoryCheckpointStore(), {
      tenant: 'acme',
      by: { kind: 'agent', subject: 'claude-code', via: 'api' },
    });
    return {
      pause: (input) => operations.pause(input),
      getPause: (key) => operations.getPause(key),
      getContinuation: (key) => operations.getContinuation(key),
      cancel: (input) => operations.cancel(input),
      claim: async () => {
        throw new Error('no claims here');
      },
      claimExecution: (input) => operations.claimExecution(input),
      finishExecution: (input) => operations.finishExecution(input),
      where: 'memory',
      close: async () => {},
    };
  }

  it.each([bodyDepth + 1, 5_000, 20_000])(
    'the MCP tool request_permission denies, saying Handback refused the input, at depth %i',
    async (depth) => {
      const server = createHandbackMcpServer({ backend: backend(), waitMs: 0 });
      const [client, served] = InMemoryTransport.createLinkedPair();
      const mcp = new Client({ name: 'test', version: '1.0.0' });
      await Promise.all([server.connect(served), mcp.connect(client)]);
      const input = JSON.parse(nestedText(depth));
      const result = await mcp.callTool({ name: 'request_permission', arguments: { tool_name: 'Write', input } });
      await mcp.close();
      const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
      expect(JSON.parse(text)).toEqual({
        behavior: 'deny',
        message: expect.stringMatching(
          /^Denied: Handback could not be asked \(Invalid pause: messages\/1\/content\/0\/input(\/a)+ nests more than 256 levels deep\.\)\.$/,
        ),
      });
    },
  );

  it.each([bodyDepth + 1, 5_000, 20_000])(
    "Claude Code's hook denies, saying Handback refused the call (not that it is unreachable), at depth %i",
    async (depth) => {
      const stdin = `{"session_id":"3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a61","hook_event_name":"PreToolUse","tool_name":"Write","tool_use_id":"toolu_1","tool_input":${nestedText(depth)}}`;
      const output = await claudeHook(stdin, { env: { HANDBACK_STATE_DIR: state }, backend: backend() });
      expect(output.hookSpecificOutput).toMatchObject({
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(
          /^Denied: Handback refused to record this call \(Invalid pause: .* nests more than 256 levels deep\.\)\.$/,
        ),
      });
    },
  );

  it("Claude Code's hook pauses a call whose input nests as deep as a body may", async () => {
    const stdin = `{"session_id":"3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a62","hook_event_name":"PreToolUse","tool_name":"Write","tool_use_id":"toolu_2","tool_input":${nestedText(bodyDepth - 4)}}`;
    const output = await claudeHook(stdin, { env: { HANDBACK_STATE_DIR: state }, backend: backend() });
    expect(output.hookSpecificOutput.permissionDecision).toBe('defer');
  });
});

describe('the depth check', () => {
  it('is linear in the size of what it walks, and stops at the first level too deep', () => {
    const wide = (n: number) => ({ list: Array.from({ length: n }, (_, i) => ({ i, inner: [i, { i }] })) });
    const small = countOperations(wide(500), (value) => nestsDeeperThan(value, bodyDepth));
    const large = countOperations(wide(2_000), (value) => nestsDeeperThan(value, bodyDepth));
    expect(large / small).toBeLessThan(6);
    const deep = (depth: number) => JSON.parse(nestedText(depth));
    const shallowRefusal = countOperations(deep(1_000), (value) => nestsDeeperThan(value, bodyDepth));
    const deepRefusal = countOperations(deep(20_000), (value) => nestsDeeperThan(value, bodyDepth));
    expect(deepRefusal).toBe(shallowRefusal);
  });
});
