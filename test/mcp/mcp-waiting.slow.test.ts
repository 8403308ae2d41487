import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  ElicitationCompleteNotificationSchema,
  type ElicitRequest,
  ElicitRequestSchema,
  McpError,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_CANCELLED } from '../../functions/mcp/tasks.ts';
import { request, stopAll } from '../black-box/service.ts';
import { HANDBACK_BIN } from '../claude-code/claude.ts';
import { type Handback, startHandback } from './support.ts';

/**
 * MCP's own ways to wait for people (§22), through the MCP SDK's client: a call made as a task answers at once and is
 * polled (`tasks/get`, `tasks/result`, `tasks/cancel`) — over stateless Streamable HTTP, each poll a request of its
 * own — and a client that takes URL-mode elicitation is offered the pause's inbox page while the call waits, and told
 * when it is complete. A person decides over the HTTP API, as the inbox does.
 */

let handback: Handback;
const clients: Client[] = [];

beforeAll(async () => {
  handback = await startHandback();
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await stopAll();
});

/** A client over stdio (`handback mcp` by URL) or Streamable HTTP, declaring `capabilities`. */
async function connect(over: 'stdio' | 'http', capabilities: ConstructorParameters<typeof Client>[1] = {}) {
  const client = new Client({ name: 'handback-test', version: '1.0.0' }, capabilities);
  const { PATH = '', HOME = '' } = process.env;
  await client.connect(
    over === 'stdio'
      ? new StdioClientTransport({
          command: process.execPath,
          args: [HANDBACK_BIN, 'mcp'],
          env: { PATH, HOME, HANDBACK_URL: handback.url, HANDBACK_TOKEN: handback.agentToken },
        })
      : new StreamableHTTPClientTransport(new URL(`${handback.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${handback.agentToken}` } },
        }),
  );
  clients.push(client);
  return client;
}

let calls = 0;
const newId = () => `toolu_wait${process.pid}x${++calls}`;

/** Calls a tool as a task: the task it answers with at once, and the rest of the stream (polls, then the result). */
async function callAsTask(client: Client, name: string, args: Record<string, unknown>) {
  const stream = client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
    task: {},
  });
  const first = await stream.next();
  if (first.done || first.value.type !== 'taskCreated') throw new Error(`No task first: ${JSON.stringify(first)}`);
  const rest = (async () => {
    const seen: Task[] = [];
    for await (const message of stream) {
      if (message.type === 'taskStatus') seen.push(message.task);
      if (message.type === 'result') return { statuses: seen, result: message.result as CallToolResult };
      if (message.type === 'error') throw message.error;
    }
    throw new Error('The stream ended without a result.');
  })();
  return { task: first.value.task, rest };
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('a tool call made as a task', () => {
  it.each(['http', 'stdio'] as const)(
    'answers at once with a working task naming the pause and its inbox page; polled over %s, it ends with the permission',
    async (over) => {
      const client = await connect(over);
      const id = newId();
      const input = { command: 'npm publish', description: 'Publish' };
      const started = Date.now();
      const { task, rest } = await callAsTask(client, 'request_permission', {
        tool_name: 'Bash',
        input,
        tool_use_id: id,
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      const pause = await handback.person.waitingPause(`mcp-${id}`);
      expect(task).toMatchObject({
        status: 'working',
        pollInterval: expect.any(Number),
        statusMessage: `Waiting for a person to decide pause ${pause.interruptId} of run mcp-${id} at ${handback.url}/inbox?run=mcp-${id}&pause=${pause.interruptId}.`,
      });
      expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'working' });
      expect((await handback.person.decide(pause, { decision: 'approve' })).status).toBe(200);
      const { statuses, result } = await rest;
      expect(statuses.at(-1)).toMatchObject({
        status: 'completed',
        statusMessage: `Pause ${pause.interruptId} is resumed.`,
      });
      expect(JSON.parse(textOf(result))).toEqual({ behavior: 'allow', updatedInput: input });
      // The task is its pause: read again later, from any connection, it has the same result.
      const again = await connect(over);
      const stored = await again.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(JSON.parse(textOf(stored))).toEqual({ behavior: 'allow', updatedInput: input });
    },
  );

  it("ends ask_person's task with the person's answer, and a rejection as its error result", async () => {
    const client = await connect('http');
    const answered = await callAsTask(client, 'ask_person', {
      question: 'Which region?',
      ask_id: `region${process.pid}`,
    });
    const pause = await handback.person.waitingPause(`mcp-ask-region${process.pid}`);
    expect((await handback.person.answer(pause, 'eu-west-1')).status).toBe(200);
    const { result } = await answered.rest;
    expect(result.structuredContent).toEqual({ answer: 'eu-west-1' });

    const rejected = await callAsTask(client, 'ask_person', { question: 'Delete it?', ask_id: `delete${process.pid}` });
    const other = await handback.person.waitingPause(`mcp-ask-delete${process.pid}`);
    expect((await handback.person.decide(other, { decision: 'reject', reason: 'No.' })).status).toBe(200);
    const failed = await rejected.rest;
    expect(failed.statuses.at(-1)).toMatchObject({ status: 'completed' });
    expect(failed.result).toMatchObject({ isError: true });
    expect(textOf(failed.result)).toContain('No.');
  });

  it('withdraws the pause when the client cancels the task, saying so, and a person can no longer decide it', async () => {
    const client = await connect('http');
    const id = newId();
    const { task, rest } = await callAsTask(client, 'request_permission', {
      tool_name: 'Write',
      input: {},
      tool_use_id: id,
    });
    const pause = await handback.person.waitingPause(`mcp-${id}`);
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      statusMessage: `Pause ${pause.interruptId} was withdrawn.`,
    });
    await expect(rest).rejects.toThrow(/was cancelled/);
    const view = await handback.person.read(pause.runId, pause.interruptId);
    expect(view).toMatchObject({ status: 'cancelled', cancelledBy: { kind: 'agent' } });
    const continuation = await request(
      `${handback.url}/runs/${pause.runId}/continuations/${view.continuationId}`,
      'GET',
      undefined,
      { authorization: `Bearer ${handback.personToken}` },
    );
    expect(JSON.stringify(continuation.body.messages)).toContain(TASK_CANCELLED);
    expect((await handback.person.decide(pause, { decision: 'approve' })).status).toBe(410);
  });

  it('knows no task that is not one of its pauses', async () => {
    const client = await connect('http');
    for (const taskId of ['nope', `hb1.${Buffer.from('{"t":"p","r":"mcp-x","i":"missing"}').toString('base64url')}`]) {
      await expect(client.experimental.tasks.getTask(taskId)).rejects.toBeInstanceOf(McpError);
    }
  });
});

describe('a call that waits, for a client that takes URL-mode elicitation', () => {
  it("offers the pause's inbox page while it waits, and says the elicitation is complete once a person decided", async () => {
    const client = await connect('stdio', { capabilities: { elicitation: { url: {} } } });
    const elicited: ElicitRequest['params'][] = [];
    const completed: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicited.push(request.params);
      return { action: 'accept' };
    });
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (notification) => {
      completed.push(notification.params.elicitationId);
    });
    const id = newId();
    const call = client.callTool({
      name: 'request_permission',
      arguments: { tool_name: 'Write', input: {}, tool_use_id: id },
    });
    const pause = await handback.person.waitingPause(`mcp-${id}`);
    const deadline = Date.now() + 10_000;
    while (elicited.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(elicited).toEqual([
      {
        mode: 'url',
        elicitationId: `handback-${pause.interruptId}`,
        url: `${handback.url}/inbox?run=mcp-${id}&pause=${pause.interruptId}`,
        message: expect.stringContaining(`pause ${pause.interruptId}`),
      },
    ]);
    expect((await handback.person.decide(pause, { decision: 'reject', reason: 'Not now.' })).status).toBe(200);
    const result = (await call) as CallToolResult;
    expect(JSON.parse(textOf(result))).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining('Not now.'),
    });
    expect(completed).toEqual([`handback-${pause.interruptId}`]);
  });

  it('offers nothing to a client that does not take it', async () => {
    const client = await connect('stdio', { capabilities: { elicitation: { form: {} } } });
    const elicited: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicited.push(request.params);
      return { action: 'decline' };
    });
    const id = newId();
    const call = client.callTool({
      name: 'request_permission',
      arguments: { tool_name: 'Write', input: {}, tool_use_id: id },
    });
    const pause = await handback.person.waitingPause(`mcp-${id}`);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await handback.person.decide(pause, { decision: 'approve' })).status).toBe(200);
    expect(JSON.parse(textOf((await call) as CallToolResult))).toMatchObject({ behavior: 'allow' });
    expect(elicited).toEqual([]);
  });
});
