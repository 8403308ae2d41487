import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { EventSink } from './emitter.ts';
import { putEventsEntries } from './emitter.ts';

/**
 * The lifecycle events' sink on AWS (§11): the events on an EventBridge bus, source `handback`, detail-type the
 * event's. One `EventSink` like the webhook's, so the stream handler and the local service hand the same events to
 * the same emitter, and a channel is one more sink or one more rule on the bus.
 */

/** The most entries one `PutEvents` call takes. */
export const PUT_EVENTS_MAX_ENTRIES = 10;

/** A sink putting events on `eventBusName`, ten to a call; a call with any failed entry fails the delivery. */
export function createEventBridgeSink(client: EventBridgeClient, eventBusName: string): EventSink {
  return {
    async deliver(events) {
      const entries = putEventsEntries(events, eventBusName);
      for (let start = 0; start < entries.length; start += PUT_EVENTS_MAX_ENTRIES) {
        const batch = entries.slice(start, start + PUT_EVENTS_MAX_ENTRIES);
        const output = await client.send(new PutEventsCommand({ Entries: batch }));
        // The stream retries the whole record, so an entry that went through may be sent again: at least once.
        if ((output.FailedEntryCount ?? 0) > 0) {
          const failed = output.Entries?.find((entry) => entry.ErrorCode !== undefined);
          throw new Error(
            `PutEvents refused ${output.FailedEntryCount} of ${batch.length} entries: ${failed?.ErrorCode ?? 'unknown'}${failed?.ErrorMessage === undefined ? '' : ` (${failed.ErrorMessage})`}`,
          );
        }
      }
    },
  };
}
