import type { CheckpointStore } from '../../functions/checkpoints/checkpoint-store.ts';
import {
  createDynamoDBCheckpointStore,
  type DynamoDBCheckpointStoreOptions,
} from '../../functions/checkpoints/dynamodb-store.ts';
import { createDynamoDBHandoffClaims, type HandoffClaims } from '../../functions/handoff/claims.ts';
import { useTestTable } from '../support/dynamodb.ts';

/** A fresh table on the embedded store of the global setup, and checkpoint stores on it. */
export interface StoreTable {
  readonly endpoint: string;
  readonly tableName: string;
  /** A store on the table; `clock` moves time for expiry tests, `policies` judges approval asks (§17). */
  store(clock?: () => Date, policies?: DynamoDBCheckpointStoreOptions['policies']): CheckpointStore;
  /** Hand-off claims on the table (§18). */
  claims(): HandoffClaims;
}

/** Call at the top of a test file: the table exists from the first `beforeAll` on. */
export function useStoreTable(): StoreTable {
  const table = useTestTable();
  return {
    get endpoint() {
      return table.endpoint;
    },
    get tableName() {
      return table.tableName;
    },
    store: (clock, policies) =>
      createDynamoDBCheckpointStore({
        client: table.client,
        tableName: table.tableName,
        ...(clock ? { clock } : {}),
        ...(policies ? { policies } : {}),
      }),
    claims: () => createDynamoDBHandoffClaims({ client: table.client, tableName: table.tableName }),
  };
}
