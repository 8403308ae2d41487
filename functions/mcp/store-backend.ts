import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  createDynamoDBCheckpointStore,
  endpointClientConfig,
  storageClientConfig,
} from '../checkpoints/dynamodb-store.ts';
import { storeOperations } from '../client/types.ts';
import { claimClosedPause, createDynamoDBHandoffClaims } from '../handoff/claims.ts';
import type { Actor } from '../wire.ts';
import type { HandbackBackend } from './backend.ts';

/**
 * The store backend of the coding-agent commands (§18): the library's DynamoDB store on the table the local service
 * (or the stack) uses, at `endpoint` (DynamoDB Local, or a regional AWS endpoint with the usual credentials). Pauses
 * are made as the agent; claims are the same conditional writes the claim route makes.
 */
export async function storeBackend(options: {
  endpoint: string;
  tableName: string;
  tenant: string;
  agent: Actor;
  env: NodeJS.ProcessEnv;
  inboxUrl?: string;
}): Promise<HandbackBackend> {
  const { tableName, tenant } = options;
  const raw = new DynamoDBClient(storageClientConfig(endpointClientConfig(options.endpoint, options.env)));
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  const store = createDynamoDBCheckpointStore({ client, tableName });
  const operations = storeOperations(store, { tenant, by: options.agent });
  const claims = createDynamoDBHandoffClaims({ client, tableName });
  return {
    pause: (input) => operations.pause(input),
    getPause: (key) => operations.getPause(key),
    getContinuation: (key) => operations.getContinuation(key),
    cancel: (input) => operations.cancel(input),
    claim: (input) => claimClosedPause({ getPause: (key) => store.getPause(key), claims }, { ...input, tenant }),
    claimExecution: (input) => operations.claimExecution(input),
    ...(options.inboxUrl === undefined ? {} : { inboxUrl: options.inboxUrl }),
    where: options.endpoint,
    async close() {
      client.destroy();
      raw.destroy();
    },
  };
}
