import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckpointStore } from '../../functions/checkpoints/checkpoint-store.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { storeOperations } from '../../functions/client/types.ts';
import { PolicyForbidsError } from '../../functions/errors.ts';
import type { HandbackBackend } from '../../functions/mcp/backend.ts';
import { ID_REUSED } from '../../functions/mcp/permission.ts';
import { createHandbackMcpServer } from '../../functions/mcp/server.ts';

/**
 * The MCP tools of §18 under §19: one id, one call — `request_permission` (tool_use_id) and `ask_person` (ask_id)
 * reusing an id with another tool name or other input never get that pause's decision, and nothing is recorded on
 * it — and `request_permission` claims an approved call's execution before it answers allow. In-process, on the
 * memory store, through the MCP SDK's own client.
 */

const TENANT = 'acme';
const AGENT = { kind: 'agent', subject: 'coding-agent', via: 'api' } as const;
const ANN = { kind: 'person', subject: 'ann', name: 'Ann', via: 'api' } as const;

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** The MCP server on a fresh memory store, as an agent; its client, and the store to decide and read on. */
async function connect(change: (backend: HandbackBackend) => HandbackBackend = (backend) => backend) {
  const store = createMemoryCheckpointStore();
  const operations = storeOperations(store, { tenant: TENANT, by: AGENT });
  const backend: HandbackBackend = {
    pause: (input) => operations.pause(input),
    getPause: (key) => operations.getPause(key),
    getContinuation: (key) => operations.getContinuation(key),
    cancel: (input) => operations.cancel(input),
    claim: async () => {
      throw new Error('hand-off claims are not this test’s');
    },
    claimExecution: (input) => operations.claimExecution(input),
    finishExecution: (input) => operations.finishExecution(input),
    where: 'memory',
    close: async () => {},
  };
  const server = createHandbackMcpServer({ backend: change(backend), waitMs: 0 });
  const [near, far] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1.0.0' });
  await Promise.all([server.connect(far), client.connect(near)]);
  clients.push(client);
  return { client, store };
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

/** The one pause of run `runId`. */
async function pauseOf(store: CheckpointStore, runId: string) {
  const page = await store.listPauses({ tenant: TENANT, status: 'paused' });
  const open = page.items.find((item) => item.runId === runId);
  if (open !== undefined) return store.getPause({ tenant: TENANT, runId, interruptId: open.interruptId });
  throw new Error(`No open pause of run ${runId}.`);
}

const WRITE = { tool_name: 'Write', input: { file_path: 'a.txt', content: 'hi' }, tool_use_id: 'toolu_one1' };

describe('request_permission (§19)', () => {
  /** Asks for WRITE (past the wait: still open), then approves its pause as Ann; the pause. */
  async function approved(store: CheckpointStore, client: Client) {
    const first = JSON.parse(textOf(await client.callTool({ name: 'request_permission', arguments: WRITE })));
    expect(first).toMatchObject({ behavior: 'deny', interrupt: true });
    const pause = await pauseOf(store, `mcp-${WRITE.tool_use_id}`);
    await store.decide({
      tenant: TENANT,
      runId: pause.runId,
      interruptId: pause.interruptId,
      decisions: [{ toolCallId: WRITE.tool_use_id, decision: 'approve' }],
      by: ANN,
    });
    return pause;
  }

  it.each([
    ['another tool name', { ...WRITE, tool_name: 'Bash' }],
    ['other input', { ...WRITE, input: { file_path: 'a.txt', content: 'rm -rf /' } }],
  ])(
    "denies %s under an approved call's tool_use_id, recording nothing; the approved call itself is allowed once",
    async (_what, other) => {
      const { client, store } = await connect();
      const pause = await approved(store, client);
      const key = { tenant: TENANT, runId: pause.runId, interruptId: pause.interruptId };
      const before = await store.getPause(key);
      const reused = JSON.parse(textOf(await client.callTool({ name: 'request_permission', arguments: other })));
      expect(reused).toEqual({ behavior: 'deny', message: expect.stringContaining(ID_REUSED) });
      expect(await store.getPause(key)).toEqual(before);
      expect(before.asks[0]?.execution).toMatchObject({ status: 'waiting' });
      // The control: the call the pause was made for is allowed, its execution claimed; then never again.
      const allowed = JSON.parse(textOf(await client.callTool({ name: 'request_permission', arguments: WRITE })));
      expect(allowed).toEqual({ behavior: 'allow', updatedInput: WRITE.input });
      expect((await store.getPause(key)).asks[0]?.execution).toMatchObject({ status: 'claimed', by: AGENT });
      const again = JSON.parse(textOf(await client.callTool({ name: 'request_permission', arguments: WRITE })));
      expect(again).toEqual({
        behavior: 'deny',
        message: expect.stringContaining('already decided and handed to another run'),
      });
    },
  );

  it('denies other input under an open pause’s id, leaving it open; asked as a task, it makes no task', async () => {
    const { client, store } = await connect();
    await client.callTool({ name: 'request_permission', arguments: WRITE });
    const pause = await pauseOf(store, `mcp-${WRITE.tool_use_id}`);
    const key = { tenant: TENANT, runId: pause.runId, interruptId: pause.interruptId };
    const other = { ...WRITE, input: { file_path: 'b.txt', content: 'hi' } };
    const reused = JSON.parse(textOf(await client.callTool({ name: 'request_permission', arguments: other })));
    expect(reused.message).toContain(ID_REUSED);
    const stream = client.experimental.tasks.callToolStream(
      { name: 'request_permission', arguments: other },
      CallToolResultSchema,
      { task: {} },
    );
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: 'error', error: { message: expect.stringContaining(ID_REUSED) } });
    expect(await store.getPause(key)).toEqual(pause);
    // The control: the same call as a task gets its task.
    const control = client.experimental.tasks.callToolStream(
      { name: 'request_permission', arguments: WRITE },
      CallToolResultSchema,
      { task: {} },
    );
    expect((await control.next()).value).toMatchObject({ type: 'taskCreated' });
    await control.return(undefined);
  });

  it("claims a task's approved call once: its result read again is the same claim, another call of the id is refused", async () => {
    const { client, store } = await connect();
    const stream = client.experimental.tasks.callToolStream(
      { name: 'request_permission', arguments: WRITE },
      CallToolResultSchema,
      { task: {} },
    );
    const created = (await stream.next()).value as { type: 'taskCreated'; task: { taskId: string } };
    await stream.return(undefined);
    const pause = await pauseOf(store, `mcp-${WRITE.tool_use_id}`);
    await store.decide({
      tenant: TENANT,
      runId: pause.runId,
      interruptId: pause.interruptId,
      decisions: [{ toolCallId: WRITE.tool_use_id, decision: 'approve' }],
      by: ANN,
    });
    for (const _read of [1, 2]) {
      const result = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
      expect(JSON.parse(textOf(result))).toEqual({ behavior: 'allow', updatedInput: WRITE.input });
    }
    const other = JSON.parse(textOf(await client.callTool({ name: 'request_permission', arguments: WRITE })));
    expect(other.message).toContain('already decided and handed to another run');
  });

  it('denies an approved call whose claim the policies in force refuse, saying it was refused at run time', async () => {
    const { client, store } = await connect((backend) => ({
      ...backend,
      claimExecution: async () => {
        throw new PolicyForbidsError('Policy freeze forbids this call now.', {
          policyIds: ['freeze'],
          reason: 'Frozen.',
        });
      },
    }));
    await approved(store, client);
    const refused = JSON.parse(textOf(await client.callTool({ name: 'request_permission', arguments: WRITE })));
    expect(refused).toEqual({
      behavior: 'deny',
      message: 'Not run: refused at run time. Policy freeze forbids this call now.',
    });
  });
});

describe('ask_person (§19)', () => {
  it('fails for another question under an answered ask_id, recording nothing; the question asked gets its answer', async () => {
    const { client, store } = await connect();
    const asked = { question: 'Deploy to staging?', ask_id: 'deploy-1' };
    expect((await client.callTool({ name: 'ask_person', arguments: asked })).isError).toBe(true);
    const pause = await pauseOf(store, 'mcp-ask-deploy-1');
    await store.decide({
      tenant: TENANT,
      runId: pause.runId,
      interruptId: pause.interruptId,
      decisions: [{ toolCallId: pause.asks[0]?.toolCallId as string, answer: 'yes' }],
      by: ANN,
    });
    const key = { tenant: TENANT, runId: pause.runId, interruptId: pause.interruptId };
    const before = await store.getPause(key);
    const other = await client.callTool({
      name: 'ask_person',
      arguments: { question: 'Delete the production database?', ask_id: 'deploy-1' },
    });
    expect(other.isError).toBe(true);
    expect(textOf(other)).toContain(ID_REUSED);
    expect(textOf(other)).not.toContain('yes');
    expect(await store.getPause(key)).toEqual(before);
    const control = await client.callTool({ name: 'ask_person', arguments: asked });
    expect(control).toMatchObject({ structuredContent: { answer: 'yes' } });
  });
});
