import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAll } from '../black-box/service.ts';
import { HANDBACK_BIN } from '../claude-code/claude.ts';
import { type Handback, startHandback } from './support.ts';

/**
 * Handback's MCP server through the MCP SDK's own client (§18): over stdio (`handback mcp`, by URL and on the
 * service's store) and over Streamable HTTP (`POST /mcp` of `npm start`, stateless, behind the agent scope). A person
 * decides over the HTTP API, as the inbox does.
 */

let handback: Handback;
const clients: Client[] = [];

beforeAll(async () => {
  // A short HTTP wait, so the "still waiting" answer comes within the test; stdio's wait is the server's own env.
  handback = await startHandback({ HANDBACK_MCP_WAIT_SECONDS: '3' });
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await stopAll();
});

/** A connected SDK client over stdio, `handback mcp` started with `env`. */
async function overStdio(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'handback-test', version: '1.0.0' });
  const { PATH = '', HOME = '' } = process.env;
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [HANDBACK_BIN, 'mcp'], env: { PATH, HOME, ...env } }),
  );
  clients.push(client);
  return client;
}

/** A connected SDK client over Streamable HTTP with `token`. */
async function overHttp(token: string): Promise<Client> {
  const client = new Client({ name: 'handback-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${handback.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

/** The JSON of a tool result's one text block. */
function textJson(result: unknown): unknown {
  const content = (result as CallToolResult).content;
  expect(content).toHaveLength(1);
  expect(content[0]?.type).toBe('text');
  return JSON.parse((content[0] as { text: string }).text);
}

let calls = 0;
const newId = () => `toolu_sdk${process.pid}x${++calls}`;

describe('tools/list', () => {
  it.each([
    ['stdio', () => overStdio({ HANDBACK_URL: handback.url, HANDBACK_TOKEN: handback.agentToken })],
    ['Streamable HTTP', () => overHttp(handback.agentToken)],
  ])('lists request_permission and ask_person with their JSON Schemas over %s', async (_transport, connect) => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['request_permission', 'ask_person']);
    const [permission, ask] = tools;
    expect(permission?.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        tool_name: { type: 'string' },
        input: { type: 'object' },
        tool_use_id: { type: 'string', pattern: expect.any(String) },
        prompt: { type: 'string' },
      },
      required: ['tool_name', 'input'],
    });
    // Claude Code reads the answer as one text block, so its schema is the text's, not an outputSchema.
    expect(permission?.outputSchema).toBeUndefined();
    expect(permission?._meta?.['handback/textSchema']).toMatchObject({
      type: 'object',
      properties: {
        behavior: { enum: ['allow', 'deny'] },
        updatedInput: { type: 'object' },
        interrupt: { type: 'boolean' },
      },
      required: ['behavior'],
    });
    expect(ask?.inputSchema).toMatchObject({
      type: 'object',
      properties: { question: { type: 'string' }, schema: { type: 'object' }, prompt: {}, ask_id: {} },
      required: ['question'],
    });
    expect(ask?.outputSchema).toMatchObject({ type: 'object', properties: { answer: {} }, required: ['answer'] });
  });
});

describe('over stdio', () => {
  it('allows with the input as it was when the person approves, with progress notifications while it waits', async () => {
    const client = await overStdio({ HANDBACK_URL: handback.url, HANDBACK_TOKEN: handback.agentToken });
    const id = newId();
    const input = { command: 'rm -rf build', description: 'Clean the build' };
    const progress: number[] = [];
    const call = client.callTool(
      { name: 'request_permission', arguments: { tool_name: 'Bash', input, tool_use_id: id, prompt: 'Clean up?' } },
      undefined,
      { onprogress: (notification) => progress.push(notification.progress), resetTimeoutOnProgress: true },
    );
    const pause = await handback.person.waitingPause(`mcp-${id}`);
    expect(pause.asks[0]).toMatchObject({ kind: 'approval', name: 'Bash', args: input, prompt: 'Clean up?' });
    // A beat comes every 5 s: wait for one before deciding.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect((await handback.person.decide(pause, { decision: 'approve' })).status).toBe(200);
    expect(textJson(await call)).toEqual({ behavior: 'allow', updatedInput: input });
    expect(progress.length).toBeGreaterThan(0);
  });

  it('answers ask_person with what the person answered, to an elicitation-style schema, on the store the service runs on', async () => {
    const client = await overStdio({ ...handback.store });
    const schema = {
      type: 'object',
      properties: {
        region: { type: 'string', title: 'Region', enum: ['eu-west-1', 'us-east-1'] },
        replicas: { type: 'integer', minimum: 1, maximum: 5 },
      },
      required: ['region'],
    };
    const call = client.callTool({
      name: 'ask_person',
      arguments: { question: 'Where should it deploy?', schema, ask_id: `deploy${process.pid}` },
    });
    const pause = await handback.person.waitingPause(`mcp-ask-deploy${process.pid}`);
    expect(pause.asks[0]).toMatchObject({ kind: 'answer', prompt: 'Where should it deploy?', answerSchema: schema });
    expect(pause.pausedBy).toMatchObject({ kind: 'agent', subject: 'handback-mcp' });
    // An answer the schema refuses is refused, and the call goes on waiting.
    expect((await handback.person.answer(pause, { region: 'mars' })).status).toBe(422);
    expect((await handback.person.answer(pause, { region: 'eu-west-1', replicas: 2 })).status).toBe(200);
    const result = (await call) as CallToolResult;
    expect(textJson(result)).toEqual({ region: 'eu-west-1', replicas: 2 });
    expect(result.structuredContent).toEqual({ answer: { region: 'eu-west-1', replicas: 2 } });
  });

  it('refuses arguments that are not the tool contract, recording nothing', async () => {
    const client = await overStdio({ HANDBACK_URL: handback.url, HANDBACK_TOKEN: handback.agentToken });
    const result = (await client.callTool({
      name: 'request_permission',
      arguments: { tool_name: 'Write', input: 'not an object', tool_use_id: 'has spaces' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/input[\s\S]*tool_use_id/);
  });

  it('denies, saying so, when the service cannot be reached', async () => {
    const client = await overStdio({ HANDBACK_URL: 'http://127.0.0.1:9', HANDBACK_TOKEN: handback.agentToken });
    const answer = textJson(
      await client.callTool({ name: 'request_permission', arguments: { tool_name: 'Write', input: {} } }),
    );
    expect(answer).toEqual({ behavior: 'deny', message: expect.stringContaining('Handback could not be asked') });
  });
});

describe('over Streamable HTTP (POST /mcp)', () => {
  it('denies with the reason when the person rejects', async () => {
    const client = await overHttp(handback.agentToken);
    const id = newId();
    const call = client.callTool({
      name: 'request_permission',
      arguments: { tool_name: 'Write', input: { file_path: 'a.txt', content: 'x' }, tool_use_id: id },
    });
    const pause = await handback.person.waitingPause(`mcp-${id}`);
    expect(pause.pausedBy).toMatchObject({ kind: 'agent', subject: 'claude-code-agent' });
    expect((await handback.person.decide(pause, { decision: 'reject', reason: 'Wrong file.' })).status).toBe(200);
    expect(textJson(await call)).toEqual({ behavior: 'deny', message: expect.stringContaining('Reason: Wrong file.') });
  });

  it('denies with interrupt past its wait, naming the pause, which stays open; asked again once decided, it allows', async () => {
    const client = await overHttp(handback.agentToken);
    const id = newId();
    const input = { file_path: 'b.txt', content: 'y' };
    const args = { tool_name: 'Write', input, tool_use_id: id };
    const waited = textJson(await client.callTool({ name: 'request_permission', arguments: args })) as {
      message: string;
    };
    const pause = await handback.person.waitingPause(`mcp-${id}`);
    expect(waited).toEqual({ behavior: 'deny', interrupt: true, message: expect.stringContaining(pause.interruptId) });
    expect(waited.message).toContain(`${handback.url}/inbox?run=mcp-${id}&pause=${pause.interruptId}`);
    expect((await handback.person.read(pause.runId, pause.interruptId)).status).toBe('paused');
    const edited = { file_path: 'b.txt', content: 'z' };
    expect((await handback.person.decide(pause, { decision: 'edit', args: edited })).status).toBe(200);
    const started = Date.now();
    expect(textJson(await client.callTool({ name: 'request_permission', arguments: args }))).toEqual({
      behavior: 'allow',
      updatedInput: edited,
    });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('answers 401 without a token and 403 forbidden to a token without handback/agent, recording nothing', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'request_permission', arguments: { tool_name: 'Write', input: {}, tool_use_id: 'toolu_nobody' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const anonymous = await fetch(`${handback.url}/mcp`, { method: 'POST', headers, body });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toBe('application/problem+json');
    for (const token of [handback.personToken, handback.unscopedToken]) {
      const refused = await fetch(`${handback.url}/mcp`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${token}` },
        body,
      });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: 'forbidden', scope: 'handback/agent' });
    }
    await expect(overHttp(handback.personToken)).rejects.toThrow(/403/);
    const listed = await fetch(`${handback.url}/pauses?limit=100`, {
      headers: { authorization: `Bearer ${handback.personToken}` },
    });
    const runs = ((await listed.json()) as { items: Array<{ runId: string }> }).items.map((item) => item.runId);
    expect(runs).not.toContain('mcp-toolu_nobody');
  });

  it('keeps no session: each request stands alone, and GET /mcp is 405', async () => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${handback.agentToken}`,
    };
    // tools/list without initialize first: a stateless server answers any request.
    const listed = await fetch(`${handback.url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('mcp-session-id')).toBeNull();
    expect(await listed.text()).toContain('"request_permission"');
    const get = await fetch(`${handback.url}/mcp`, { headers });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});
