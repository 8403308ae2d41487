import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandOutput,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import type { EventSink } from './emitter.ts';
import { putEventsEntries, UndeliveredEventsError } from './emitter.ts';

/**
 * The lifecycle events' sink on AWS (§11): the events on an EventBridge bus, source `handback`, detail-type the
 * event's. One `EventSink` like the webhook's, so the stream handler and the local service hand the same events to
 * the same emitter, and a channel is one more sink or one more rule on the bus.
 */

/** The most entries one `PutEvents` call takes. */
export const PUT_EVENTS_MAX_ENTRIES = 10;

/** The most bytes the entries of one `PutEvents` call may add up to, as EventBridge counts them (under 256 KB). */
export const PUT_EVENTS_MAX_BYTES = 256 * 1024 - 1;

/** How the sink retries the entries a call refused. */
export interface EventBridgeSinkOptions {
  /** Calls made for an entry at most, the first included. @default 3 */
  attempts?: number;
  /** The first backoff before a retry, doubled each time, with full jitter. @default 100 */
  backoffMs?: number;
}

/** An entry's size as EventBridge counts it: its source, detail-type, detail and resources in UTF-8 (no time here). */
export function entryBytes(entry: PutEventsRequestEntry): number {
  let bytes = 0;
  for (const text of [entry.Source, entry.DetailType, entry.Detail, ...(entry.Resources ?? [])]) {
    if (text !== undefined) bytes += Buffer.byteLength(text, 'utf8');
  }
  return bytes;
}

/**
 * The entries' indices in calls of at most ten entries and `PUT_EVENTS_MAX_BYTES`, in order; an entry too large for
 * any call goes alone (EventBridge refuses it, and it is reported like any refused entry).
 */
export function putEventsBatches(entries: readonly PutEventsRequestEntry[]): number[][] {
  const batches: number[][] = [];
  let batch: number[] = [];
  let bytes = 0;
  entries.forEach((entry, index) => {
    const size = entryBytes(entry);
    if (batch.length === PUT_EVENTS_MAX_ENTRIES || (batch.length > 0 && bytes + size > PUT_EVENTS_MAX_BYTES)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(index);
    bytes += size;
  });
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * A sink putting events on `eventBusName` in as few calls as EventBridge takes them (ten entries, 256 KB), the calls
 * at once. An entry a call refused (`FailedEntryCount`: throttled, an internal failure) is sent again, alone with the
 * others refused, after a backoff, up to `attempts` calls in all; one still refused then — or in a call that failed
 * whole — is reported by its index (`UndeliveredEventsError`), so the stream retries only the records it came from.
 * An entry that went through is never sent again by the sink: at least once, never more than the stream makes it.
 */
export function createEventBridgeSink(
  client: EventBridgeClient,
  eventBusName: string,
  options: EventBridgeSinkOptions = {},
): EventSink {
  const attempts = Math.max(1, options.attempts ?? 3);
  const backoffMs = options.backoffMs ?? 100;
  return {
    async deliver(events) {
      const entries = putEventsEntries(events, eventBusName);
      const refused = new Map<number, string>();
      const put = async (indices: readonly number[]): Promise<void> => {
        let pending = [...indices];
        for (let attempt = 1; pending.length > 0; attempt++) {
          if (attempt > 1) await sleep(Math.random() * backoffMs * 2 ** (attempt - 2));
          let output: PutEventsCommandOutput;
          try {
            const batch = pending.map((index) => entries[index] as PutEventsRequestEntry);
            output = await client.send(new PutEventsCommand({ Entries: batch }));
          } catch (error) {
            // The SDK has retried what it retries; the whole call failed: every entry of it is undelivered.
            for (const index of pending) refused.set(index, describe(error));
            return;
          }
          if ((output.FailedEntryCount ?? 0) === 0) {
            for (const index of pending) refused.delete(index);
            return;
          }
          // The result's entries are in the request's order: an entry with an ErrorCode was refused. A count that
          // names no entry leaves each one in doubt: every one is reported.
          const again = pending.filter((_, at) => output.Entries?.[at]?.ErrorCode !== undefined);
          if (again.length === 0) {
            for (const index of pending) refused.set(index, `${output.FailedEntryCount} failed entries, none named`);
            return;
          }
          for (const [at, index] of pending.entries()) {
            const result = output.Entries?.[at];
            if (result?.ErrorCode !== undefined) {
              const message = result.ErrorMessage === undefined ? '' : ` (${result.ErrorMessage})`;
              refused.set(index, `${result.ErrorCode}${message}`);
            } else refused.delete(index);
          }
          pending = attempt < attempts ? again : [];
        }
      };
      await Promise.all(putEventsBatches(entries).map(put));
      if (refused.size > 0) {
        const [first] = [...refused.values()];
        throw new UndeliveredEventsError(
          `PutEvents did not take ${refused.size} of ${entries.length} entries (each tried up to ${attempts} times): ${first}`,
          [...refused.keys()].sort((a, b) => a - b),
        );
      }
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
