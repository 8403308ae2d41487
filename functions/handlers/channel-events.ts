import type { Channel } from '../channels/channel.ts';
import { isFinal } from '../errors.ts';
import type { LifecycleDetail, LifecycleEvent } from '../events/lifecycle.ts';
import { Metric, MetricUnit } from '../resume/telemetry.ts';
import { isOneOf, LIFECYCLE_SOURCE, LIFECYCLE_TYPES } from '../vocabulary.ts';
import { type EntryTelemetry, withTelemetry } from './telemetry.ts';

/**
 * A channel's Lambda entry point on AWS (§14): its rule on the lifecycle bus invokes it (asynchronously) with one
 * lifecycle event, which it hands to the channel. The channel reads the pause as it is now and claims each send in the
 * delivery log, so a retried or redelivered event sends nothing twice. A failure is counted (`ChannelFailures`) and
 * thrown: Lambda retries the event, then keeps it in the channel's dead-letter queue, whose alarm calls a person. An
 * event that is not a lifecycle event (another source on the bus, a malformed detail), or whose delivery fails with a
 * final error (its pause is gone), is logged and dropped: no retry could deliver it.
 */

/** The EventBridge event as the rule delivers it. */
export interface BusEvent {
  source?: unknown;
  'detail-type'?: unknown;
  detail?: unknown;
}

/** The lifecycle event a bus event carries, or undefined when it carries none. */
export function lifecycleEventOfBus(event: BusEvent): LifecycleEvent | undefined {
  const type = event['detail-type'];
  if (event.source !== LIFECYCLE_SOURCE || !isOneOf(LIFECYCLE_TYPES, type)) return undefined;
  const detail = event.detail as Partial<LifecycleDetail> | undefined;
  const named = (value: unknown) => typeof value === 'string' && value !== '';
  if (detail === undefined || !named(detail.tenant) || !named(detail.runId) || !named(detail.interruptId)) {
    return undefined;
  }
  return { type, detail: detail as LifecycleDetail };
}

/** What a channel's entry point runs on; `channel` may be made on first use (Slack's, once its secret is read). */
export interface ChannelEventDeps extends EntryTelemetry {
  channel: () => Promise<Channel>;
}

/** The handler of one channel's rule. */
export function createChannelEventHandler(deps: ChannelEventDeps) {
  const { logger, metrics } = deps;
  const handle = async (event: BusEvent): Promise<void> => {
    const lifecycle = lifecycleEventOfBus(event);
    if (lifecycle === undefined) {
      logger.warn('Not a lifecycle event: dropped', {
        source: String(event.source),
        type: String(event['detail-type']),
      });
      return;
    }
    const ids = { runId: lifecycle.detail.runId, interruptId: lifecycle.detail.interruptId, type: lifecycle.type };
    let channel: Channel | undefined;
    try {
      channel = await deps.channel();
      await channel.deliver(lifecycle);
    } catch (error) {
      if (isFinal(error)) {
        logger.warn('Channel delivery refused for good: dropped', { ...ids, channel: channel?.name, error });
        return;
      }
      metrics.addMetric(Metric.ChannelFailures, MetricUnit.Count, 1);
      logger.error('Channel delivery failed; the event is retried', { ...ids, channel: channel?.name, error });
      throw error;
    }
    logger.info('Delivered', { ...ids, channel: channel.name });
  };
  return withTelemetry(deps, handle);
}
