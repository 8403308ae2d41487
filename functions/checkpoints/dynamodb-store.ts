import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BadRequestError } from '../errors.ts';
import { CheckpointService } from './checkpoint-service.ts';
import type { CheckpointStore } from './checkpoint-store.ts';
import { ALL_CHECKS } from './checks.ts';
import { DynamoDBPersistence } from './dynamodb/dynamodb-persistence.ts';
import type { CheckpointStoreOptions } from './memory-store.ts';
import type { TranscriptObjects } from './transcript-objects.ts';

/** How a DynamoDB checkpoint store is built: the rules' options, and the client and table that hold its records. */
export interface DynamoDBCheckpointStoreOptions extends CheckpointStoreOptions {
  /** The client to send with (see `storageClientConfig` for timeouts); the store adds nothing to its middleware. */
  client: DynamoDBDocumentClient;
  /** A table created from `createTableInput` (or the CDK table built from `TABLE`). */
  tableName: string;
  /**
   * Seconds a pause's items are kept after its `expiresAt` before DynamoDB's TTL may delete them: how long an
   * expired pause still shows and a continuation stays readable. @default 2,592,000 (30 days)
   */
  retentionSeconds?: number;
  /**
   * Where transcripts over 64 KB compressed go (§23): e.g. `new S3TranscriptObjects({ bucket })`, the stack's
   * `TranscriptBucket`. A store reading a table whose pauses name objects needs it too.
   * @default none: every transcript is kept in the table, in parts
   */
  objects?: TranscriptObjects;
}

/** Builds the checkpoint store on an injected `DynamoDBDocumentClient` and table name. */
export function createDynamoDBCheckpointStore(options: DynamoDBCheckpointStoreOptions): CheckpointStore {
  if (!options?.client) {
    const message = 'createDynamoDBCheckpointStore needs a DynamoDBDocumentClient as `client`';
    throw new BadRequestError(`${message}.`, [{ path: '/client', message }]);
  }
  if (typeof options.tableName !== 'string' || options.tableName.length === 0) {
    const message = 'createDynamoDBCheckpointStore needs the table name as `tableName`';
    throw new BadRequestError(`${message}.`, [{ path: '/tableName', message }]);
  }
  const { client, tableName, retentionSeconds, objects, ...service } = options;
  return new CheckpointService({
    ...service,
    checks: options.checks ?? ALL_CHECKS,
    persistence: new DynamoDBPersistence({
      client,
      tableName,
      ...(retentionSeconds === undefined ? {} : { retentionSeconds }),
      ...(objects === undefined ? {} : { objects }),
    }),
  });
}

export { endpointClientConfig, storageClientConfig } from './dynamodb/client-config.ts';
// Where it was before `handback/dynamodb` took the DynamoDB store out of the root entry: the sources still import it
// from here.
export { createMemoryCheckpointStore } from './memory-store.ts';
