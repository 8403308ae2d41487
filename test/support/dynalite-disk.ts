import { createRequire } from 'node:module';
import { TABLE } from '../../functions/checkpoints/table.ts';

/**
 * Writes into the LevelDB directory of a stopped embedded store (dynalite, `HANDBACK_DATA_DIR`) behind its back: what
 * a process killed between dynalite's index write and its item write leaves on disk. dynalite keeps an index entry
 * under `index-global~<table>~<index>~<index key>` (its own `createIndexKey`), valued with the entry's projection; its
 * own modules build the key, so the entry is one dynalite itself would have written.
 */

const require = createRequire(import.meta.url);
/** dynalite's LevelDB, and its key builder: dependencies of dynalite, resolved from it. */
const fromDynalite = createRequire(require.resolve('dynalite'));
const { Level } = fromDynalite('level') as {
  Level: new (
    path: string,
    options: { valueEncoding: 'json' },
  ) => {
    get(key: string): Promise<unknown>;
    put(key: string, value: unknown): Promise<void>;
    close(): Promise<void>;
  };
};
const { createIndexKey } = require('dynalite/db/index.js') as {
  createIndexKey(item: Record<string, { S: string }>, table: unknown, keySchema: unknown): string;
};

/** One entry of a listing index (`byTenant` or `openByTenant`): its keys and the table key it points at. */
export interface IndexEntry {
  index: typeof TABLE.byTenant.indexName | typeof TABLE.openByTenant.indexName;
  /** The index's partition key value (`T#<tenant>`). */
  partition: string;
  gsi1sk: string;
  pk: string;
  sk: string;
}

/** Writes `entries` into the listing indexes of `tableName` in the stopped store at `path`. */
export async function writeIndexEntries(
  path: string,
  tableName: string,
  entries: readonly IndexEntry[],
): Promise<void> {
  const db = new Level(path, { valueEncoding: 'json' });
  try {
    const table = (await db.get(`table~${tableName}`)) as {
      GlobalSecondaryIndexes: Array<{ IndexName: string; KeySchema: unknown }>;
    };
    for (const entry of entries) {
      const index = table.GlobalSecondaryIndexes.find((candidate) => candidate.IndexName === entry.index);
      if (index === undefined) throw new Error(`The table ${tableName} has no index ${entry.index}.`);
      const partitionName =
        entry.index === TABLE.byTenant.indexName
          ? TABLE.byTenant.partitionKey.name
          : TABLE.openByTenant.partitionKey.name;
      const projection = {
        [partitionName]: { S: entry.partition },
        [TABLE.byTenant.sortKey.name]: { S: entry.gsi1sk },
        [TABLE.partitionKey.name]: { S: entry.pk },
        [TABLE.sortKey.name]: { S: entry.sk },
      };
      const key = createIndexKey(projection, table, index.KeySchema);
      await db.put(`index-global~${tableName}~${entry.index}~${key}`, projection);
    }
  } finally {
    await db.close();
  }
}
