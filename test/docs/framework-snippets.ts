import { pathToFileURL } from 'node:url';
import { createHandbackClient, type HandbackOperations, storeOperations } from 'handback/client';
import { createDynamoDBToolExecutions, createMemoryToolExecutions, type ExecutionLog } from 'handback/durable';
import { createDynamoDBCheckpointStore } from 'handback/dynamodb';
import { startLocalStore } from 'handback/local';
import { type Framework, frameworks, type Seen, type Side } from '../support/scripted-models.ts';

/**
 * Runs one framework snippet of the README or a docs page (a fenced block with `given=<framework>`) as written, in
 * this process: `node --import tsx test/docs/framework-snippets.ts <framework> <file>`. The snippet is the whole loop
 * — pause, a person's decision, the continuation delivered twice — and declares what it is given (`declare const
 * model, client, executions, refund`, and `checkpointer` for LangGraph; erased when it runs). This harness puts the
 * givens on `globalThis` before importing it, so the snippet's names resolve to them, once per way the snippet can
 * reach Handback — the library's store on `handback/local` (with the execution log in its DynamoDB table), and
 * `handback/client` against `npm start`'s service at `HANDBACK_URL` (with the log in memory).
 *
 * It imports Handback by its package name only, as the snippets do: `tsx` resolves the names to the sources
 * (tsconfig.json's `paths`). The execution logs come from `handback/durable`, which loads no framework.
 *
 * It prints one JSON line: per backend, what the refund API received, how many model calls the loop made, what the
 * model read as the refund's result, and what the snippet printed per delivery. `test/docs/snippets.slow.test.ts`
 * asserts on it.
 */

/** A way to Handback: what the snippet is given as `client` and `executions`. */
interface Backend {
  name: string;
  client: HandbackOperations;
  executions: ExecutionLog;
  close(): Promise<void>;
}

async function localStore(): Promise<Backend> {
  const local = await startLocalStore();
  const store = createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName });
  return {
    name: 'the local store',
    client: storeOperations(store, { tenant: 'acme' }),
    executions: createDynamoDBToolExecutions({ client: local.client, tableName: local.tableName }),
    close: () => local.close(),
  };
}

async function client(): Promise<Backend> {
  const baseUrl = process.env.HANDBACK_URL;
  if (baseUrl === undefined) throw new Error('HANDBACK_URL names the local service to run the snippet against.');
  return {
    name: 'the client',
    client: createHandbackClient({ baseUrl }),
    executions: createMemoryToolExecutions(),
    close: async () => {},
  };
}

/** One run of the snippet through one backend: what it printed, refunded, and asked the model. */
async function story(side: Side, file: string, backend: Backend) {
  const seen: Seen = { calls: 0 };
  const refunds: unknown[] = [];
  const refund = async (order: object) => {
    refunds.push(order);
    return { refundId: `rf_${refunds.length}`, ...order };
  };
  const given = { model: side.model(seen), client: backend.client, executions: backend.executions, refund };
  // LangGraph's snippet is also given its checkpointer (a project without LangGraph runs the others).
  const checkpointer =
    framework === 'langgraph' ? { checkpointer: new (await import('@langchain/langgraph')).MemorySaver() } : {};
  Object.assign(globalThis, given, checkpointer);
  const printed: string[] = [];
  const log = console.log;
  console.log = (...values: unknown[]) => printed.push(values.map(String).join(' '));
  try {
    // A module is evaluated once per URL: a query of its own gives each backend a fresh run, reading its givens.
    await import(`${pathToFileURL(file).href}?${encodeURIComponent(backend.name)}`);
  } finally {
    console.log = log;
  }
  return { refunds, modelCalls: seen.calls, read: seen.read, printed };
}

const [framework, file] = process.argv.slice(2) as [Framework, string];
if (!(framework in frameworks) || file === undefined) {
  throw new Error(`Usage: framework-snippets.ts <${Object.keys(frameworks).join('|')}> <snippet file>`);
}
const side = await frameworks[framework]();
const report: Record<string, unknown> = {};
for (const start of [localStore, client]) {
  const backend = await start();
  try {
    report[backend.name] = await story(side, file, backend);
  } finally {
    await backend.close();
  }
}
console.log(JSON.stringify(report));
