import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, inject } from 'vitest';
import { createTable, EMBEDDED_CLIENT_CONFIG } from '../../functions/local/embedded-dynamodb.ts';

/**
 * A fresh table per test file on the server the global setup started (or on `DYNAMODB_ENDPOINT`), and clients on
 * it. Call `useTestTable()` at the top of a test file; read its fields inside tests (they are set in `beforeAll`).
 */

/** What a test file gets: its own table and a document client on it. */
export interface TestTable {
  endpoint: string;
  tableName: string;
  /** A document client shared by the file (`removeUndefinedValues` on). */
  client: DynamoDBDocumentClient;
  /** A new low-level client, e.g. to wrap with a recording middleware; destroyed after the file. */
  newClient(): DynamoDBClient;
}

/**
 * The endpoint of the store the global setup started (`store` and `slow` projects); a `unit` test has none, and is
 * told which project it belongs in.
 */
export function storeEndpoint(): string {
  const endpoint = inject('dynamodbEndpoint');
  if (endpoint === undefined) {
    throw new Error(
      'This test uses the embedded store (a table on it): name its file *.store.test.ts (the README\'s "Develop" says why).',
    );
  }
  return endpoint;
}

/** The client configuration for the test endpoint: placeholder credentials for the embedded server. */
export function testClientConfig(endpoint: string = storeEndpoint()): DynamoDBClientConfig {
  return inject('dynamodbEmbedded') || !process.env.AWS_ACCESS_KEY_ID
    ? { endpoint, ...EMBEDDED_CLIENT_CONFIG }
    : { endpoint };
}

/** Creates a uniquely named table before the file's tests and deletes it after them. */
export function useTestTable(): TestTable {
  const clients: DynamoDBClient[] = [];
  const table = {} as TestTable;
  beforeAll(async () => {
    const endpoint = storeEndpoint();
    const newClient = () => {
      const client = new DynamoDBClient(testClientConfig(endpoint));
      clients.push(client);
      return client;
    };
    const raw = newClient();
    const tableName = `handback-test-${randomUUID()}`;
    await createTable(raw, tableName);
    Object.assign(table, {
      endpoint,
      tableName,
      client: DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } }),
      newClient,
    });
  });
  afterAll(async () => {
    const [raw] = clients;
    if (raw && table.tableName) {
      await raw.send(new DeleteTableCommand({ TableName: table.tableName })).catch(() => undefined);
    }
    for (const client of clients) client.destroy();
  });
  return table;
}

/** One DynamoDB request as a recording client saw it. */
export interface RecordedCommand {
  /** The low-level command, e.g. `QueryCommand`, `UpdateItemCommand`. */
  command: string;
  input: Record<string, unknown>;
  consumedCapacity: unknown;
}

/**
 * A document client on the test table that asks for `ReturnConsumedCapacity: TOTAL` on every request and records
 * each request with the capacity it consumed.
 */
export function recordingClient(table: TestTable): { client: DynamoDBDocumentClient; commands: RecordedCommand[] } {
  const raw = table.newClient();
  const commands: RecordedCommand[] = [];
  raw.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const output = result.output as { ConsumedCapacity?: unknown };
      commands.push({ command: String(context.commandName), input, consumedCapacity: output.ConsumedCapacity });
      return result;
    },
    { step: 'initialize', name: 'recordConsumedCapacity' },
  );
  return { client: DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } }), commands };
}
