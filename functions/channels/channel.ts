import type { EventSink } from '../events/emitter.ts';
import type { LifecycleEvent } from '../events/lifecycle.ts';
import type { Logger } from '../resume/telemetry.ts';
import type { ChannelName } from '../vocabulary.ts';

/**
 * The channel port (§14): a channel takes a pause to people where they work, from its lifecycle events (§11), and
 * takes their decisions back through the same use cases every route uses (`decideTurn` / `resumeTurn` with `by`).
 * Each delivery renders the pause as the store has it now, not as the event saw it, so events may come in any order
 * and a late one never brings back what a later one took away; the delivery log makes each post or mail happen once.
 */

/** One built-in channel (or a third one, behind the same interface). */
export interface Channel {
  readonly name: ChannelName;
  /** Delivers one lifecycle event; throws when it should be retried (nothing it already sent is sent again). */
  deliver(event: LifecycleEvent): Promise<void>;
}

/**
 * Logs one send that failed (a post, an update, a mail), naming the channel, its recipient (a Slack channel id, an
 * email address) and the pause, so an operator sees whom it did not reach; the event is retried.
 */
export function logFailedSend(
  logger: Logger,
  channel: ChannelName,
  to: string,
  event: LifecycleEvent,
  error: unknown,
): void {
  const { runId, interruptId } = event.detail;
  logger.warn('Channel send failed', { channel, to, type: event.type, runId, interruptId, error });
}

/** The channels as one lifecycle sink: each event goes to each channel; one channel's failure does not stop another's. */
export function channelSink(channels: readonly Channel[]): EventSink {
  return {
    async deliver(events) {
      const results = await Promise.allSettled(
        events.flatMap((event) => channels.map((channel) => channel.deliver(event))),
      );
      const failed = results.find((result) => result.status === 'rejected');
      if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
    },
  };
}
