import type { BatchGetCommandInput, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StorageUnavailableError } from '../../errors.ts';
import { documentCommands } from '../document-sdk.ts';
import type { PauseRecord, RecordKey } from '../record.ts';
import { storageError } from '../sdk-errors.ts';
import type { Item } from './items.ts';
import * as params from './params.ts';

/**
 * The requests of the DynamoDB adapter that read or delete many items, or one pause item: what the store
 * (`dynamodb-persistence.ts`) and the move of closed transcripts (`archive.ts`) both send. SDK errors never leak: a
 * table that does not answer in time is a `StorageUnavailableError`.
 */

/** A table and the client to reach it with. */
export interface TableClient {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/** Part writes (and best-effort deletes) in flight at once for one pause. */
export const PART_CONCURRENCY = 4;
/** Answers in a row without any item after which a BatchGetItem gives up on unprocessed keys (throttling). */
const UNPROCESSED_ROUNDS = 6;
/** The first backoff after an answer that brought no item; it doubles each time (full jitter). */
const BACKOFF_MS = 25;

/** The SDK's commands, loaded on first use (`sdk.ts`: the DynamoDB SDK is an optional peer of the package). */
export const commands = () => documentCommands('The DynamoDB checkpoint store');

/** Runs one request; an SDK error becomes `StorageUnavailableError` when the table did not answer (in time). */
export async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw storageError(error);
  }
}

/** Whether an SDK error is a condition that failed: an answer of the port, not a failure. */
export function isConditionFailed(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === 'ConditionalCheckFailedException';
}

/** The pause item alone, strongly consistent (as a list, as `batchGetItems` answers). */
export async function getPauseItem({ client, tableName }: TableClient, key: RecordKey): Promise<Item[]> {
  const { GetCommand } = await commands();
  const output = await call(() => client.send(new GetCommand(params.getPause(tableName, key))));
  return output.Item === undefined ? [] : [output.Item];
}

/**
 * A BatchGetItem of one table (at most 100 keys: `params.getKeys`), asking again for the keys DynamoDB left
 * unprocessed: at once while each answer brings items (a response holds at most 16 MB on AWS, about 1 MB on the
 * embedded store), after an exponential backoff with full jitter when one brings none (throttling), giving up as
 * `StorageUnavailableError` after a few such answers in a row. The items found, in no order.
 */
export async function batchGetItems({ client, tableName }: TableClient, input: BatchGetCommandInput): Promise<Item[]> {
  const { BatchGetCommand } = await commands();
  const items: Item[] = [];
  let request: BatchGetCommandInput['RequestItems'] | undefined = input.RequestItems;
  let idle = 0;
  while (request !== undefined && Object.keys(request).length > 0) {
    if (idle > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * BACKOFF_MS * 2 ** idle));
    const pending: NonNullable<BatchGetCommandInput['RequestItems']> = request;
    const output = await call(() => client.send(new BatchGetCommand({ RequestItems: pending })));
    const found = output.Responses?.[tableName] ?? [];
    items.push(...found);
    idle = found.length > 0 ? 0 : idle + 1;
    if (idle >= UNPROCESSED_ROUNDS) throw new StorageUnavailableError();
    request = output.UnprocessedKeys;
  }
  return items;
}

/**
 * Deletes the parts of an attempt that lost its sequence number, or whose bytes moved to the bucket; best effort,
 * their TTL removes what is left.
 */
export async function deleteParts(
  { client, tableName }: TableClient,
  record: Pick<PauseRecord, 'tenant' | 'runId' | 'seq' | 'token'>,
  count: number,
): Promise<void> {
  const indexes = Array.from({ length: count }, (_, index) => index);
  const { DeleteCommand } = await commands();
  await forEachLimited(indexes, PART_CONCURRENCY, (index) =>
    client.send(new DeleteCommand(params.deletePart(tableName, record, record.token, index))).catch(() => undefined),
  );
}

/** Runs `task` over `items`, at most `limit` at once; rejects with the first failure. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
