import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { createTableInput, INDEXES } from '../checkpoints/table.ts';

/**
 * The embedded DynamoDB-compatible store (dynalite): what the local service and the tests run on, with nothing
 * installed beyond `npm install`. It implements single-item conditional writes and the 400 KB item limit exactly;
 * it has no transactions and no TTL deletion (Handback needs neither: expiry is checked on every read).
 */

/** How to start the embedded store. */
export interface EmbeddedDynamoDBOptions {
  /** Tables to create from `createTableInput` (kept when they exist already, as on disk after a restart). */
  tableName?: string;
  /** More tables to create. */
  tableNames?: readonly string[];
  /** Keep the data on disk in this directory (LevelDB); in memory when unset. */
  path?: string;
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
}

/** A running embedded store. */
export interface EmbeddedDynamoDB {
  /** `http://<host>:<port>`, for a `DynamoDBClient`'s `endpoint`. */
  endpoint: string;
  /** A client on the endpoint, with the placeholder credentials and region the store ignores. */
  client(): DynamoDBClient;
  /** Stops the server and closes its store (flushing it to disk when it has a path). */
  close(): Promise<void>;
}

/** What a client of the embedded store needs besides the endpoint: it checks no signature, but the SDK signs. */
export const EMBEDDED_CLIENT_CONFIG = {
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
} as const;

/** Starts dynalite on a free port (or `port`) and creates the tables. */
export async function startEmbeddedDynamoDB(options: EmbeddedDynamoDBOptions = {}): Promise<EmbeddedDynamoDB> {
  const dynalite = await loadDynalite();
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.path === undefined ? {} : { path: options.path }),
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const endpoint = `http://${host}:${(server.address() as AddressInfo).port}`;
  const client = () => new DynamoDBClient({ endpoint, ...EMBEDDED_CLIENT_CONFIG });
  const admin = client();
  try {
    const names = [...(options.tableName === undefined ? [] : [options.tableName]), ...(options.tableNames ?? [])];
    for (const name of names) await createTable(admin, name);
  } catch (error) {
    await closeServer(server);
    throw error;
  } finally {
    admin.destroy();
  }
  return { endpoint, client, close: () => closeServer(server) };
}

/** Creates a table from `createTableInput` unless it exists, and waits until it is ACTIVE. */
export async function createTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  for (let attempt = 0; attempt < 600; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexes = Table?.GlobalSecondaryIndexes ?? [];
    const indexesActive = indexes.every((index) => index.IndexStatus === 'ACTIVE');
    if (Table?.TableStatus === 'ACTIVE' && indexesActive) {
      const missing = INDEXES.filter((wanted) => !indexes.some((index) => index.IndexName === wanted.indexName));
      if (missing.length > 0) {
        throw new Error(
          `Table ${tableName} lacks the index ${missing.map((index) => index.indexName).join(', ')}: it was made by an older Handback. Use a new table name (TABLE_NAME) or data directory.`,
        );
      }
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Table ${tableName} did not become ACTIVE within a minute.`);
}

/**
 * dynalite, loaded when a store starts rather than when this module is imported: the published package declares it
 * an optional peer dependency (only `handback/local` needs it), so its absence gets a sentence saying what to install.
 */
async function loadDynalite(): Promise<typeof import('dynalite').default> {
  try {
    return (await import('dynalite')).default;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    // Only dynalite itself missing; one of its own dependencies missing is another story, told by the error as is.
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String(message).includes("'dynalite'")) throw error;
    throw new Error(
      'handback/local runs the embedded DynamoDB-compatible store dynalite, which is not installed: npm install --save-dev dynalite',
      { cause: error },
    );
  }
}

function closeServer(server: import('node:http').Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    // Keep-alive sockets of SDK clients would hold the close open until they idle out.
    server.closeAllConnections();
  });
}
