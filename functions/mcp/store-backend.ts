import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  createDynamoDBCheckpointStore,
  endpointClientConfig,
  storageClientConfig,
} from '../checkpoints/dynamodb-store.ts';
import { S3TranscriptObjects, s3ClientConfig, s3EndpointConfig } from '../checkpoints/s3/s3-objects.ts';
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
  /**
   * The transcript bucket (§23): at an S3-compatible `endpoint`, or by name beside a regional table; neither = the
   * table's pauses keep their transcripts in it.
   */
  transcripts?: { bucket: string | undefined; endpoint: string | undefined };
}): Promise<HandbackBackend> {
  const { tableName, tenant } = options;
  const tableConfig = endpointClientConfig(options.endpoint, options.env);
  const raw = new DynamoDBClient(storageClientConfig(tableConfig));
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  const { bucket = 'handback-transcripts', endpoint: s3 } = options.transcripts ?? {
    bucket: undefined,
    endpoint: undefined,
  };
  const named = options.transcripts?.bucket !== undefined;
  const objects =
    s3 !== undefined
      ? new S3TranscriptObjects({ bucket, clientConfig: s3ClientConfig(s3EndpointConfig(s3, options.env)) })
      : named
        ? new S3TranscriptObjects({ bucket, clientConfig: s3ClientConfig({ region: tableConfig.region as string }) })
        : undefined;
  const store = createDynamoDBCheckpointStore({ client, tableName, ...(objects === undefined ? {} : { objects }) });
  const operations = storeOperations(store, { tenant, by: options.agent });
  const claims = createDynamoDBHandoffClaims({ client, tableName });
  return {
    pause: (input) => operations.pause(input),
    getPause: (key) => operations.getPause(key),
    getContinuation: (key) => operations.getContinuation(key),
    cancel: (input) => operations.cancel(input),
    claim: (input) => claimClosedPause({ getPause: (key) => store.getPause(key), claims }, { ...input, tenant }),
    claimExecution: (input) => operations.claimExecution(input),
    finishExecution: (input) => operations.finishExecution(input),
    ...(options.inboxUrl === undefined ? {} : { inboxUrl: options.inboxUrl }),
    where: options.endpoint,
    async close() {
      client.destroy();
      raw.destroy();
    },
  };
}
