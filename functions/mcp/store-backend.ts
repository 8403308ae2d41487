import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  createDynamoDBCheckpointStore,
  endpointClientConfig,
  storageClientConfig,
} from '../checkpoints/dynamodb-store.ts';
import { storeOperations } from '../client/types.ts';
import { claimClosedPause, createDynamoDBHandoffClaims } from '../handoff/claims.ts';
import { startEmbeddedDynamoDB } from '../local/embedded-dynamodb.ts';
import type { Actor } from '../wire.ts';
import type { HandbackBackend } from './backend.ts';

/**
 * The store backend of the coding-agent commands (§18): the library's DynamoDB store on the table the local service
 * (or the stack) uses, at `endpoint`, or the embedded store on disk in `dataDir` (one process at a time: LevelDB
 * locks its directory). Pauses are made as the agent; claims are the same conditional writes the claim route makes.
 */
export async function storeBackend(options: {
  endpoint?: string;
  dataDir?: string;
  tableName: string;
  tenant: string;
  agent: Actor;
  env: NodeJS.ProcessEnv;
  inboxUrl?: string;
}): Promise<HandbackBackend> {
  const { tableName, tenant } = options;
  const embedded =
    options.endpoint === undefined
      ? await startEmbeddedDynamoDB({ tableName, ...(options.dataDir === undefined ? {} : { path: options.dataDir }) })
      : undefined;
  const raw =
    embedded?.client() ??
    new DynamoDBClient(storageClientConfig(endpointClientConfig(options.endpoint as string, options.env)));
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  const store = createDynamoDBCheckpointStore({ client, tableName });
  const operations = storeOperations(store, { tenant, by: options.agent });
  const claims = createDynamoDBHandoffClaims({ client, tableName });
  return {
    pause: (input) => operations.pause(input),
    getPause: (key) => operations.getPause(key),
    getContinuation: (key) => operations.getContinuation(key),
    claim: (input) => claimClosedPause({ getPause: (key) => store.getPause(key), claims }, { ...input, tenant }),
    ...(options.inboxUrl === undefined ? {} : { inboxUrl: options.inboxUrl }),
    where: options.endpoint ?? `the store in ${options.dataDir}`,
    async close() {
      client.destroy();
      raw.destroy();
      await embedded?.close();
    },
  };
}
