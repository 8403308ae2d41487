import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { PauseCancelledError } from '../../functions/errors.ts';
import { AGENTS, type HandbackBackend } from '../../functions/mcp/backend.ts';
import {
  ANSWERED_ELSEWHERE,
  type ChannelDeps,
  type ChannelRelay,
  createChannelRelay,
  inputOf,
} from '../../functions/mcp/channel.ts';
import { storeBackend } from '../../functions/mcp/store-backend.ts';
import type { PauseView } from '../../functions/wire.ts';
import { useTestTable } from '../support/dynamodb.ts';

/**
 * `handback channel`'s relay (§22) in-process, on the store the service runs on, with the MCP SDK's client playing
 * Claude Code: it sends permission requests as the pinned CLI does and records every answer. The real CLI drives it in
 * test/claude-code/channel.slow.test.ts.
 */

const table = useTestTable();
const TENANT = 'acme';
const person = { kind: 'person', subject: 'ann', name: 'Ann', via: 'api' } as const;
let backend: HandbackBackend;

beforeAll(async () => {
  backend = await storeBackend({
    endpoint: table.endpoint,
    tableName: table.tableName,
    tenant: TENANT,
    agent: AGENTS.claudeCode,
    env: process.env,
  });
});

afterAll(async () => {
  await backend.close();
});

const store = () => createDynamoDBCheckpointStore({ client: table.client, tableName: table.tableName });
const relays: ChannelRelay[] = [];

afterEach(async () => {
  await Promise.all(relays.splice(0).map((relay) => relay.end()));
});

/** A relay for a new session, and Claude Code's side of it. */
async function session(options: { backend?: ChannelDeps['backend']; id?: string; lastPrompt?: string } = {}) {
  const id = options.id ?? randomUUID();
  const log: string[] = [];
  const relay = createChannelRelay({
    backend: options.backend ?? backend,
    session: { id, cwd: '/home/dev/projects/shop' },
    lastPrompt: async () => options.lastPrompt,
    log: (line) => log.push(line),
    pollMs: 50,
  });
  relays.push(relay);
  const answers: Array<{ request_id: string; behavior: string }> = [];
  const claude = new Client({ name: 'claude-code', version: '2.1.328' });
  claude.fallbackNotificationHandler = async (notification) => {
    if (notification.method === 'notifications/claude/channel/permission') {
      answers.push(notification.params as { request_id: string; behavior: string });
    }
  };
  const [client, server] = InMemoryTransport.createLinkedPair();
  await relay.server.connect(server);
  await claude.connect(client);
  const runId = `claude-${id}`;
  return {
    id,
    runId,
    relay,
    answers,
    log,
    /** Claude Code relays a permission prompt. */
    ask: (requestId: string, toolName = 'Bash', input: Record<string, unknown> = { command: 'npm test' }) =>
      claude.notification({
        method: 'notifications/claude/channel/permission_request',
        params: {
          request_id: requestId,
          tool_name: toolName,
          description: 'Run the tests',
          input_preview: JSON.stringify(input, null, 1),
        },
      }),
    /** The pause a request became, once it is there. */
    async pauseOf(requestId: string): Promise<PauseView> {
      return until(async () => {
        const page = await store().listPauses({ tenant: TENANT, limit: 100 });
        return page.items.find((item) => item.runId === runId && item.metadata?.requestId === requestId);
      });
    },
  };
}

/** What `read` gives once it is defined (within 5 s). */
async function until<T>(read: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('Not there in 5 s.');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const decide = (view: PauseView, decision: { decision: 'approve' } | { decision: 'reject'; reason: string }) =>
  store().decide({
    tenant: TENANT,
    runId: view.runId,
    interruptId: view.interruptId,
    decisions: [{ toolCallId: view.asks[0]?.toolCallId as string, ...decision }],
    by: person,
  });

describe('handback channel', () => {
  it("pauses each relayed prompt as one approval ask in the session's run: not editable, the preview's input, the project and cwd", async () => {
    const claude = await session({ lastPrompt: 'Run the tests and fix what fails' });
    await claude.ask('abcde', 'Bash', { command: 'npm test', description: 'Run the tests' });
    const view = await claude.pauseOf('abcde');
    expect(view).toMatchObject({
      runId: claude.runId,
      status: 'paused',
      asks: [
        {
          kind: 'approval',
          name: 'Bash',
          args: { command: 'npm test', description: 'Run the tests' },
          editable: false,
          prompt: 'Claude Code asks to run Bash in shop.',
        },
      ],
      context: { user: 'Run the tests and fix what fails', assistant: 'Run the tests' },
      metadata: {
        source: 'claude-code',
        via: 'channel',
        sessionId: claude.id,
        cwd: '/home/dev/projects/shop',
        project: 'shop',
        requestId: 'abcde',
      },
      pausedBy: { kind: 'agent', subject: 'claude-code' },
    });
    expect(claude.answers).toEqual([]);
  });

  it('answers allow once when a person approves, however often the pause is read after', async () => {
    const claude = await session();
    await claude.ask('appro');
    await decide(await claude.pauseOf('appro'), { decision: 'approve' });
    await until(() => (claude.answers.length > 0 ? true : undefined));
    await sleep(300);
    expect(claude.answers).toEqual([{ request_id: 'appro', behavior: 'allow' }]);
  });

  it('answers deny when a person rejects', async () => {
    const claude = await session();
    await claude.ask('rejec');
    await decide(await claude.pauseOf('rejec'), { decision: 'reject', reason: 'Not on main.' });
    await until(() => (claude.answers.length > 0 ? true : undefined));
    expect(claude.answers).toEqual([{ request_id: 'rejec', behavior: 'deny' }]);
  });

  it('answers deny when someone else cancels the pause', async () => {
    const claude = await session();
    await claude.ask('cance');
    const view = await claude.pauseOf('cance');
    await store().cancel({
      tenant: TENANT,
      runId: view.runId,
      interruptId: view.interruptId,
      reason: 'Stop',
      by: person,
    });
    await until(() => (claude.answers.length > 0 ? true : undefined));
    expect(claude.answers).toEqual([{ request_id: 'cance', behavior: 'deny' }]);
  });

  it('cancels a request still open when the next one comes (the terminal answered it), sends nothing for it, and a late decision is refused', async () => {
    const claude = await session();
    await claude.ask('first');
    const first = await claude.pauseOf('first');
    await claude.ask('secon');
    const second = await claude.pauseOf('secon');
    const withdrawn = await store().getPause({ tenant: TENANT, runId: first.runId, interruptId: first.interruptId });
    expect(withdrawn).toMatchObject({
      status: 'cancelled',
      cancelledBy: { kind: 'agent', subject: 'claude-code' },
      cancelReason: ANSWERED_ELSEWHERE,
    });
    const continuation = await store().getContinuation({
      tenant: TENANT,
      runId: first.runId,
      continuationId: withdrawn.continuationId as string,
    });
    expect(JSON.stringify(continuation.messages)).toContain(ANSWERED_ELSEWHERE);
    await expect(decide(first, { decision: 'approve' })).rejects.toBeInstanceOf(PauseCancelledError);
    await decide(second, { decision: 'approve' });
    await until(() => (claude.answers.length > 0 ? true : undefined));
    await sleep(300);
    expect(claude.answers).toEqual([{ request_id: 'secon', behavior: 'allow' }]);
  });

  it('cancels what still waits when the session ends, and sends nothing after', async () => {
    const claude = await session();
    await claude.ask('endin');
    const view = await claude.pauseOf('endin');
    await claude.relay.end();
    expect(await store().getPause({ tenant: TENANT, runId: view.runId, interruptId: view.interruptId })).toMatchObject({
      status: 'cancelled',
    });
    expect(claude.answers).toEqual([]);
    expect(claude.log.join('\n')).toContain(`cancelled (${ANSWERED_ELSEWHERE})`);
  });

  it('takes a request id once: the same id relayed again makes no second pause', async () => {
    const claude = await session();
    await claude.ask('twice');
    await claude.ask('twice');
    const view = await claude.pauseOf('twice');
    await sleep(200);
    const page = await store().listPauses({ tenant: TENANT, limit: 100 });
    expect(page.items.filter((item) => item.runId === claude.runId)).toHaveLength(1);
    expect(view.status).toBe('paused');
  });

  it('cancels a pause of the session left open by a channel stopped before it could, and relays the new request', async () => {
    const id = randomUUID();
    const killed = await session({ id });
    await killed.ask('lefto');
    const left = await killed.pauseOf('lefto');
    // The process was killed: its relay never ended, so its pause is still open.
    relays.splice(relays.indexOf(killed.relay), 1);
    const next = await session({ id });
    await next.ask('newer');
    expect((await next.pauseOf('newer')).status).toBe('paused');
    expect(await store().getPause({ tenant: TENANT, runId: left.runId, interruptId: left.interruptId })).toMatchObject({
      status: 'cancelled',
    });
    await killed.relay.end();
  });

  it('sends nothing and says why when Handback cannot be asked: the terminal decides', async () => {
    const failing = { ...backend, pause: async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:3000')) };
    const claude = await session({ backend: failing });
    await claude.ask('offln');
    await until(() => (claude.log.some((line) => line.includes('could not be asked')) ? true : undefined));
    expect(claude.log.join('\n')).toContain('ECONNREFUSED');
    expect(claude.answers).toEqual([]);
  });

  it('refuses to start for a session id that is not a UUID', () => {
    expect(() =>
      createChannelRelay({ backend, session: { id: '--dangerously-skip-permissions', cwd: '/' }, log: () => {} }),
    ).toThrow(/a UUID/);
  });
});

describe('inputOf', () => {
  it("reads Claude Code's preview as the call's input when it is JSON, and keeps it as text when a value was cut", () => {
    expect(inputOf('{ "command": "ls" }')).toEqual({ command: 'ls' });
    const cut = '{ "content": "xxxx\n⋯ 26504 code points elided ⋯\n" }';
    expect(inputOf(cut)).toEqual({ input_preview: cut });
    expect(inputOf('[1]')).toEqual({ input_preview: '[1]' });
    expect(inputOf(undefined)).toEqual({});
  });
});
