import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startEmbeddedDynamoDB } from './embedded-dynamodb.ts';

/**
 * `handback/local`: the embedded DynamoDB-compatible store, for an agent developer's own tests and scripts. It runs
 * dynalite (an optional peer dependency: `npm install --save-dev dynalite`) in the same process, so nothing else
 * is installed or started: no Docker, no Java, no AWS account.
 */

/** How to start the local store. */
export interface LocalStoreOptions {
  /** The checkpoint table to create (kept when it exists already, as on disk after a restart). @default 'handback' */
  tableName?: string;
  /** Keep the data on disk in this directory; in memory when unset. */
  path?: string;
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
}

/** A running local store with its checkpoint table. */
export interface LocalStore {
  /** `http://<host>:<port>`: the `endpoint` for a `DynamoDBClient` of your own. */
  endpoint: string;
  /** A document client on the store (`removeUndefinedValues` on), for `createDynamoDBCheckpointStore`. */
  client: DynamoDBDocumentClient;
  /** The checkpoint table, created and ACTIVE. */
  tableName: string;
  /** Destroys `client` and stops the store (flushing it to disk when it has a `path`). */
  close(): Promise<void>;
}

/**
 * Starts the embedded store on a free port of 127.0.0.1 and creates the checkpoint table in it.
 *
 * @example
 * ```ts
 * import { createDynamoDBCheckpointStore } from 'handback/dynamodb';
 * import { startLocalStore } from 'handback/local';
 *
 * const local = await startLocalStore();
 * try {
 *   const store = createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName });
 *   const messages = [
 *     { role: 'user', content: 'Book the flight?' },
 *     { role: 'assistant', content: null, tool_calls: [
 *       { id: 'call_1', type: 'function', function: { name: 'ask_human', arguments: '{}' } },
 *     ] },
 *   ];
 *   const paused = await store.pause({ tenant: 't1', runId: 'run-1', format: 'openai-chat', messages, toolCallId: 'call_1' });
 *   const resumed = await store.resume({ tenant: 't1', runId: 'run-1', interruptId: paused.interruptId, answer: 'yes' });
 *   console.log(resumed.messages.at(-1)); // { role: 'tool', tool_call_id: 'call_1', content: 'yes' }
 * } finally {
 *   await local.close();
 * }
 * ```
 */
export async function startLocalStore(options: LocalStoreOptions = {}): Promise<LocalStore> {
  const tableName = options.tableName ?? 'handback';
  const embedded = await startEmbeddedDynamoDB({
    tableName,
    ...(options.path === undefined ? {} : { path: options.path }),
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.host === undefined ? {} : { host: options.host }),
  });
  const raw = embedded.client();
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  let closing: Promise<void> | undefined;
  return {
    endpoint: embedded.endpoint,
    client,
    tableName,
    close() {
      closing ??= (async () => {
        client.destroy();
        raw.destroy();
        await embedded.close();
      })();
      return closing;
    },
  };
}
