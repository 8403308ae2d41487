import type {
  BatchGetCommandInput,
  DeleteCommandInput,
  GetCommandInput,
  PutCommandInput,
  QueryCommandInput,
  UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { PauseRecord, RecordKey } from '../record.ts';
import { TABLE } from '../table.ts';
import type { Listing } from './cursor.ts';
import { changedAttributes, type Item } from './items.ts';
import { Keys } from './keys.ts';

/**
 * The DynamoDB command inputs, built by pure functions (dynamodb-toolbox's `params()`): the adapter only
 * sends them. Every commit point is one conditional write of one item; each condition is named for the invariant
 * it protects.
 */

const { partitionKey, sortKey, byTenant, openByTenant, byDue } = TABLE;

/** The condition parts, each with the invariant it protects. */
export const Condition = {
  /**
   * One pause per sequence number, so one open pause per run: a new pause takes the number after the run's latest
   * pause, read as not open (a pause never reopens); a concurrent pauser that took the number first wins.
   */
  sequenceIsFree: 'attribute_not_exists(#sk)',
  /**
   * Every change is made to the record as it was read: the same write attempt (TTL may delete a pause and a later one
   * reuse its number) at the same revision (no other decision, vote, cancel or sweep came in between). A request
   * that loses reads again and decides again, so concurrent requests are linearised without transactions.
   */
  isTheRevisionRead: '#token = :token AND #rev = :rev',
} as const;

/**
 * A closed pause's transcript moved to the bucket (`archivePause`): only while the item is the same write attempt
 * with its transcript still in the parts the reader saw. It holds whatever revision the item is at: the move changes
 * where the bytes are, never what the pause is, so it neither waits for nor undoes a decision or a claim.
 */
const stillInParts = '#token = :token AND #chunkCount = :chunkCount AND attribute_not_exists(#objectKey)';

/** The primary key of a record. */
export function keyOf(key: RecordKey): { [name: string]: string } {
  return { [partitionKey.name]: Keys.run(key.tenant, key.runId), [sortKey.name]: Keys.pause(key.seq) };
}

/** Writes a new pause item, only if its sequence number is free. */
export function createPause(tableName: string, item: Item): PutCommandInput {
  return {
    TableName: tableName,
    Item: item,
    ConditionExpression: Condition.sequenceIsFree,
    ExpressionAttributeNames: { '#sk': sortKey.name },
  };
}

/** Writes one part of a transcript (invisible until the pause item that names its token exists). */
export function putPart(tableName: string, item: Item): PutCommandInput {
  return { TableName: tableName, Item: item };
}

/**
 * Sets the attributes of `after` that changed since `before` and removes those that are gone — O(change) bytes: a
 * decision writes its own attribute, a closing its few fields — only if the item is still at `before`'s revision.
 */
export function updatePause(tableName: string, before: PauseRecord, after: PauseRecord): UpdateCommandInput {
  const { set, remove } = changedAttributes(before, after);
  const names: Record<string, string> = { '#token': 'token', '#rev': 'rev' };
  const values: Record<string, unknown> = { ':token': before.token, ':rev': before.rev };
  const sets = Object.entries(set).map(([name, value], index) => {
    names[`#s${index}`] = name;
    values[`:s${index}`] = value;
    return `#s${index} = :s${index}`;
  });
  const removes = remove.map((name, index) => {
    names[`#r${index}`] = name;
    return `#r${index}`;
  });
  const clauses = [
    ...(sets.length > 0 ? [`SET ${sets.join(', ')}`] : []),
    ...(removes.length > 0 ? [`REMOVE ${removes.join(', ')}`] : []),
  ];
  return {
    TableName: tableName,
    Key: keyOf(before),
    UpdateExpression: clauses.join(' '),
    ConditionExpression: Condition.isTheRevisionRead,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * Names the object a closed pause's transcript was copied to and marks the item `version` (a reader that predates the
 * bucket refuses it, retryably, rather than finding no parts); `chunkCount` stays, as the id's read hint.
 */
export function archivePause(
  tableName: string,
  key: RecordKey & { token: string; chunkCount: number },
  objectKey: string,
  version: number,
): UpdateCommandInput {
  return {
    TableName: tableName,
    Key: keyOf(key),
    UpdateExpression: 'SET #objectKey = :objectKey, #v = :v',
    ConditionExpression: stillInParts,
    ExpressionAttributeNames: { '#token': 'token', '#chunkCount': 'chunkCount', '#objectKey': 'objectKey', '#v': 'v' },
    ExpressionAttributeValues: {
      ':token': key.token,
      ':chunkCount': key.chunkCount,
      ':objectKey': objectKey,
      ':v': version,
    },
  };
}

/** Deletes part `index` of the attempt `token` of pause `key` (a part no item names any more). */
export function deletePart(tableName: string, key: RecordKey, token: string, index: number): DeleteCommandInput {
  return { TableName: tableName, Key: partKeys(key, token, [index])[0] as { [name: string]: string } };
}

/** The pause item alone, strongly consistent. */
export function getPause(tableName: string, key: RecordKey): GetCommandInput {
  return { TableName: tableName, Key: keyOf(key), ConsistentRead: true };
}

/** The most keys DynamoDB takes in one BatchGetItem. */
export const BATCH_GET_KEYS = 100;

/**
 * The pause item and its first `parts` parts, written by the attempt `token`, strongly consistent: one request (at
 * most 99 parts and the pause item are 100 keys, `MAX_PARTS`).
 */
export function getPauseWithParts(
  tableName: string,
  key: RecordKey,
  token: string,
  parts: number,
): BatchGetCommandInput {
  const requests = getKeys(tableName, [
    keyOf(key),
    ...partKeys(
      key,
      token,
      Array.from({ length: parts }, (_, i) => i),
    ),
  ]);
  if (requests.length !== 1) throw new RangeError(`A pause and ${parts} parts do not fit one BatchGetItem.`);
  return requests[0] as BatchGetCommandInput;
}

/** Parts `indexes` of pause `key`, written by the attempt `token`: the keys of `getKeys`. */
export function partKeys(key: RecordKey, token: string, indexes: readonly number[]): Array<{ [name: string]: string }> {
  const pk = Keys.run(key.tenant, key.runId);
  return indexes.map((index) => ({ [partitionKey.name]: pk, [sortKey.name]: Keys.part(key.seq, token, index) }));
}

/**
 * Items by key, strongly consistent: one BatchGetItem input per `BATCH_GET_KEYS` keys (DynamoDB refuses a larger
 * one), in key order; no input for no keys.
 */
export function getKeys(tableName: string, keys: ReadonlyArray<{ [name: string]: string }>): BatchGetCommandInput[] {
  const inputs: BatchGetCommandInput[] = [];
  for (let start = 0; start < keys.length; start += BATCH_GET_KEYS) {
    inputs.push({
      RequestItems: { [tableName]: { Keys: keys.slice(start, start + BATCH_GET_KEYS), ConsistentRead: true } },
    });
  }
  return inputs;
}

/**
 * The run's latest pause item: a reverse Query of one item on the pause prefix, strongly consistent. `below`, when
 * given, steps over the parts a crashed writer left above the latest pause item.
 */
export function latestPause(tableName: string, pk: string, below?: string): QueryCommandInput {
  return {
    TableName: tableName,
    KeyConditionExpression:
      below === undefined ? '#pk = :pk AND begins_with(#sk, :prefix)' : '#pk = :pk AND #sk BETWEEN :prefix AND :below',
    ScanIndexForward: false,
    Limit: 1,
    ConsistentRead: true,
    ExpressionAttributeNames: { '#pk': partitionKey.name, '#sk': sortKey.name },
    ExpressionAttributeValues: {
      ':pk': pk,
      ':prefix': Keys.pausesPrefix,
      ...(below === undefined ? {} : { ':below': below }),
    },
  };
}

/**
 * A page of one shard of a tenant's listing index (`partition`, a `Keys.listingShard`), newest first, older than
 * `before` (an index sort key, or an instant: §21's `createdBefore`, as an index key begins with its `createdAt`) when
 * given (keys only: the pauses are read by key afterwards). The position is a key condition, not an
 * `ExclusiveStartKey`: an index sort key names one pause of the tenant, whichever shard holds it.
 */
export function listingPage(
  tableName: string,
  partition: string,
  listing: Listing,
  limit: number,
  before?: string,
): QueryCommandInput {
  const index = listing === 'open' ? openByTenant : byTenant;
  return {
    TableName: tableName,
    IndexName: index.indexName,
    KeyConditionExpression: before === undefined ? '#ipk = :shard' : '#ipk = :shard AND #isk < :before',
    ScanIndexForward: false,
    Limit: limit,
    ExpressionAttributeNames: {
      '#ipk': index.partitionKey.name,
      ...(before === undefined ? {} : { '#isk': index.sortKey.name }),
    },
    ExpressionAttributeValues: { ':shard': partition, ...(before === undefined ? {} : { ':before': before }) },
  };
}

/** One shard of the due index: the keys of pauses due at `nowMs` or earlier, earliest first. */
export function duePage(tableName: string, shard: string, nowMs: number, limit: number): QueryCommandInput {
  return {
    TableName: tableName,
    IndexName: byDue.indexName,
    KeyConditionExpression: '#dpk = :shard AND #due <= :now',
    Limit: limit,
    ExpressionAttributeNames: { '#dpk': byDue.partitionKey.name, '#due': byDue.sortKey.name },
    ExpressionAttributeValues: { ':shard': shard, ':now': nowMs },
  };
}
