import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { Keys } from '../checkpoints/dynamodb/keys.ts';
import { TABLE } from '../checkpoints/table.ts';

/**
 * What the channels sent (§14): one conditional write per pause, entry and delivery, so that a redelivered event
 * posts or mails nothing twice, and each entry's message reference (Slack's `channel` + `ts`) for later updates. On
 * the pauses' own table, in the run's partition, under the `N#` sort-key prefix (a pause's items are `P#`, which the
 * store's reads of a run never step outside), with item kind `delivery`, so the stream's emitter ignores them.
 */

/** Names one delivery: a pause, an entry (`slack:C0123`), and what was delivered (`post`, `remind`, `mail`). */
export interface DeliveryKey {
  tenant: string;
  runId: string;
  interruptId: string;
  entry: string;
  what: string;
}

/** A message a channel posted, to update later. */
export interface MessageRef {
  channel: string;
  ts: string;
}

/** The port: claim a delivery once, keep and read its message reference, give back a claim whose send failed. */
export interface DeliveryLog {
  /**
   * Claims a delivery: true for the first caller, false once it is claimed (or done). A claim older than `staleMs`
   * whose send never finished may be claimed again, so a crash between the claim and the send does not lose it.
   */
  claim(key: DeliveryKey, staleMs?: number): Promise<boolean>;
  /** Marks a claimed delivery sent, with the message it made. */
  done(key: DeliveryKey, ref?: MessageRef): Promise<void>;
  /** Gives a claim back after its send failed, so the retried event sends it. */
  release(key: DeliveryKey): Promise<void>;
  /** The message a delivery made, once it is done. */
  ref(key: DeliveryKey): Promise<MessageRef | undefined>;
  /** Keeps a note beside a pause (who decided an ask from Slack), overwriting the last one. */
  note(key: DeliveryKey, text: string): Promise<void>;
  /** The note, if any. */
  noteOf(key: DeliveryKey): Promise<string | undefined>;
  /** Records which pause a posted message is about, so a click on it finds its pause (and only ours are found). */
  index(message: MessageRef, pause: PauseOfMessage): Promise<void>;
  /** The pause a posted message is about, or undefined for a message this deployment did not post. */
  lookup(message: MessageRef): Promise<PauseOfMessage | undefined>;
  /** True the first time `id` is seen within `ttlSeconds` (a replayed request is seen again). */
  once(id: string, ttlSeconds: number): Promise<boolean>;
}

/** The pause a message is about. */
export interface PauseOfMessage {
  tenant: string;
  runId: string;
  interruptId: string;
}

/** How long a claim holds before another delivery may take it over (a send takes seconds, not minutes). */
const STALE_CLAIM_MS = 120_000;
/** How long a delivery's record is kept after its pause's last possible event (the longest pause is a year). */
const KEEP_SECONDS = 400 * 24 * 3600;

/** The item kind of a delivery record. */
export const DELIVERY_KIND = 'delivery';

/** The sort key of a delivery: `N#<interruptId>#<entry>#<what>`. */
export function deliverySortKey(key: DeliveryKey): string {
  return `N#${key.interruptId}#${key.entry}#${key.what}`;
}

/** The partition of a message's index item: outside every run's partition. */
function messageKey(message: MessageRef): string {
  return `N#msg#${message.channel}#${message.ts}`;
}

/** The delivery log on the pauses' table. */
export function createDynamoDBDeliveryLog(options: {
  client: DynamoDBDocumentClient;
  tableName: string;
  now?: () => number;
}): DeliveryLog {
  const { client, tableName } = options;
  const now = options.now ?? Date.now;
  const { partitionKey: pk, sortKey: sk, timeToLiveAttribute: ttl } = TABLE;
  const keyOf = (key: DeliveryKey) => ({ [pk.name]: Keys.run(key.tenant, key.runId), [sk.name]: deliverySortKey(key) });
  /** An item outside every run's partition (a message's index, a request seen once): its id is both keys. */
  const itemKey = (id: string) => ({ [pk.name]: id, [sk.name]: id });
  /** When DynamoDB may delete a record kept `seconds` from `atSeconds`. */
  const expiry = (atSeconds: number, seconds = KEEP_SECONDS) => ({ [ttl]: atSeconds + seconds });
  return {
    async claim(key, staleMs = STALE_CLAIM_MS) {
      const at = now();
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...keyOf(key),
              kind: DELIVERY_KIND,
              state: 'sending',
              claimedAt: at,
              ...expiry(Math.floor(at / 1000)),
            },
            // Once: no record yet, or a claim whose sender never finished and has gone quiet.
            ConditionExpression: 'attribute_not_exists(#pk) OR (#state = :sending AND #claimedAt < :stale)',
            ExpressionAttributeNames: { '#pk': pk.name, '#state': 'state', '#claimedAt': 'claimedAt' },
            ExpressionAttributeValues: { ':sending': 'sending', ':stale': at - staleMs },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
    async done(key, ref) {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keyOf(key),
          UpdateExpression: ref === undefined ? 'SET #state = :sent' : 'SET #state = :sent, #ref = :ref',
          ExpressionAttributeNames: { '#state': 'state', ...(ref === undefined ? {} : { '#ref': 'ref' }) },
          ExpressionAttributeValues: { ':sent': 'sent', ...(ref === undefined ? {} : { ':ref': ref }) },
        }),
      );
    },
    async release(key) {
      await client
        .send(
          new DeleteCommand({
            TableName: tableName,
            Key: keyOf(key),
            // Only our own unfinished claim: a sent delivery stays recorded.
            ConditionExpression: '#state = :sending',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':sending': 'sending' },
          }),
        )
        .catch((error: unknown) => {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
        });
    },
    async note(key, text) {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...keyOf(key),
            kind: DELIVERY_KIND,
            state: 'sent',
            text,
            ...expiry(Math.floor(now() / 1000)),
          },
        }),
      );
    },
    async noteOf(key) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keyOf(key), ConsistentRead: true }),
      );
      return typeof Item?.text === 'string' ? Item.text : undefined;
    },
    async index(message, pause) {
      const id = messageKey(message);
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...itemKey(id), kind: DELIVERY_KIND, ...pause, ...expiry(Math.floor(now() / 1000)) },
        }),
      );
    },
    async lookup(message) {
      const id = messageKey(message);
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: itemKey(id), ConsistentRead: true }),
      );
      if (Item === undefined) return undefined;
      return { tenant: String(Item.tenant), runId: String(Item.runId), interruptId: String(Item.interruptId) };
    },
    async once(id, ttlSeconds) {
      const key = `N#once#${id}`;
      const at = Math.floor(now() / 1000);
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: { ...itemKey(key), kind: DELIVERY_KIND, until: at + ttlSeconds, ...expiry(at, ttlSeconds) },
            // DynamoDB's TTL deletes late, so the window is checked here too.
            ConditionExpression: 'attribute_not_exists(#pk) OR #until < :now',
            ExpressionAttributeNames: { '#pk': pk.name, '#until': 'until' },
            ExpressionAttributeValues: { ':now': at },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
    async ref(key) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keyOf(key), ConsistentRead: true }),
      );
      const ref = Item?.ref as MessageRef | undefined;
      return Item?.state === 'sent' && ref !== undefined
        ? { channel: String(ref.channel), ts: String(ref.ts) }
        : undefined;
    },
  };
}

/** The delivery log in memory, for tests and the library. */
export function createMemoryDeliveryLog(now: () => number = Date.now): DeliveryLog {
  const records = new Map<string, { state: 'sending' | 'sent'; claimedAt: number; ref?: MessageRef }>();
  const id = (key: DeliveryKey) => JSON.stringify([key.tenant, key.runId, deliverySortKey(key)]);
  const notes = new Map<string, string>();
  const messages = new Map<string, PauseOfMessage>();
  const seen = new Map<string, number>();
  return {
    async note(key, text) {
      notes.set(id(key), text);
    },
    async noteOf(key) {
      return notes.get(id(key));
    },
    async index(message, pause) {
      messages.set(messageKey(message), pause);
    },
    async lookup(message) {
      return messages.get(messageKey(message));
    },
    async once(key, ttlSeconds) {
      const until = seen.get(key);
      if (until !== undefined && until > now()) return false;
      seen.set(key, now() + ttlSeconds * 1000);
      return true;
    },
    async claim(key, staleMs = STALE_CLAIM_MS) {
      const found = records.get(id(key));
      if (found !== undefined && !(found.state === 'sending' && found.claimedAt < now() - staleMs)) return false;
      records.set(id(key), { state: 'sending', claimedAt: now() });
      return true;
    },
    async done(key, ref) {
      const found = records.get(id(key));
      records.set(id(key), {
        state: 'sent',
        claimedAt: found?.claimedAt ?? now(),
        ...(ref === undefined ? {} : { ref }),
      });
    },
    async release(key) {
      if (records.get(id(key))?.state === 'sending') records.delete(id(key));
    },
    async ref(key) {
      const found = records.get(id(key));
      return found?.state === 'sent' ? found.ref : undefined;
    },
  };
}
