import { randomUUID } from 'node:crypto';
import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import { LinkKeyUnavailableError } from '../errors.ts';
import type { AnswerLinks } from '../links/links.ts';
import { LIFECYCLE_SOURCE } from '../vocabulary.ts';
import { type LifecycleEvent, lifecycleEventsOf, wantsAnswerLink } from './lifecycle.ts';

/**
 * Where lifecycle events go, and the emitter that turns committed changes into them. On AWS the table's stream feeds
 * `emitChanges` (at least once: a failed batch is retried by the stream); locally the store's change observer does,
 * fire and forget, to a webhook with retries and to the log. Neither ever blocks or fails the request that caused
 * the change: a failed emit is logged and counted.
 */

/** A destination of lifecycle events. */
export interface EventSink {
  /**
   * Delivers the events, or throws when a destination refused them: `UndeliveredEventsError` when it took some and
   * names the others, any other error when none can be known to be delivered.
   */
  deliver(events: readonly LifecycleEvent[]): Promise<void>;
}

/** A sink took some of the events it was given and not these (their indices in what it was given). */
export class UndeliveredEventsError extends Error {
  /** The indices of the events not delivered, in order. */
  readonly undelivered: readonly number[];

  constructor(message: string, undelivered: readonly number[]) {
    super(message);
    this.name = 'UndeliveredEventsError';
    this.undelivered = undelivered;
  }
}

/** Where the emitter reports. */
export interface EmitterLog {
  info(message: string, attributes: Record<string, unknown>): void;
  warn(message: string, attributes: Record<string, unknown>): void;
  error(message: string, attributes: Record<string, unknown>): void;
}

/** How an emitter is built. */
export interface EmitterOptions {
  sinks: EventSink[];
  log: EmitterLog;
  /** Counts events that could not be delivered (the `EventEmitFailures` metric). */
  countFailure?: (count: number) => void;
  /** Signs answer links for `Pause Created` and `Pause Reminder`, when an inbox is configured. */
  links?: AnswerLinks;
  /** The inbox page's public URL: links are `<inboxUrl>#<token>`. */
  inboxUrl?: string;
}

/** Turns changes into events and delivers them to every sink. */
export interface LifecycleEmitter {
  /** Emits the events of `changes`; throws when a sink failed (the stream handler retries the batch). */
  emitChanges(changes: readonly PauseChange[]): Promise<void>;
  /**
   * Emits the events of all `changes` together (a sink batches them: EventBridge ten to a call) and answers the
   * indices of the changes an event of which some sink did not take, logged and counted; none when all went through.
   */
  emitEach(changes: readonly PauseChange[]): Promise<number[]>;
  /** Emits without waiting: for the request path, where an emit must never block or fail the request. */
  observe(change: PauseChange): void;
}

/** The emitter over `options.sinks`. */
export function createLifecycleEmitter(options: EmitterOptions): LifecycleEmitter {
  const { sinks, log, countFailure, links, inboxUrl } = options;

  const eventsOf = async (changes: readonly PauseChange[]): Promise<LifecycleEvent[]> => {
    const events: LifecycleEvent[] = [];
    for (const event of changes.flatMap(lifecycleEventsOf)) {
      if (links !== undefined && inboxUrl !== undefined && wantsAnswerLink(event)) {
        const { tenant, runId, interruptId, expiresAt } = event.detail;
        try {
          event.detail.answerUrl = await links.linkFor({ tenant, runId, interruptId, expiresAt }, inboxUrl);
        } catch (error) {
          if (!(error instanceof LinkKeyUnavailableError)) throw error;
          // The event still tells of the change; people reach the pause through the inbox or a link made later.
          log.warn('Lifecycle event without its answer link: the link key is unavailable', {
            type: event.type,
            runId,
            interruptId,
          });
        }
      }
      events.push(event);
    }
    return events;
  };

  /** Delivers the changes' events to every sink: the changes not fully delivered, by index, and the first error. */
  const deliver = async (changes: readonly PauseChange[]): Promise<{ failed: number[]; error?: unknown }> => {
    const owners: number[] = [];
    const events: LifecycleEvent[] = [];
    for (const [index, change] of changes.entries()) {
      for (const event of await eventsOf([change])) {
        owners.push(index);
        events.push(event);
      }
    }
    if (events.length === 0) return { failed: [] };
    const results = await Promise.allSettled(sinks.map((sink) => sink.deliver(events)));
    for (const event of events) {
      // The answer link is a credential: never in a log line.
      log.info('Lifecycle event', {
        type: event.type,
        runId: event.detail.runId,
        interruptId: event.detail.interruptId,
      });
    }
    const undelivered = new Set<number>();
    let error: unknown;
    for (const result of results) {
      if (result.status === 'fulfilled') continue;
      error ??= result.reason;
      const missed =
        result.reason instanceof UndeliveredEventsError ? result.reason.undelivered : events.map((_, index) => index);
      for (const index of missed) undelivered.add(index);
    }
    if (error === undefined) return { failed: [] };
    countFailure?.(undelivered.size);
    log.error('Lifecycle events were not delivered', {
      count: undelivered.size,
      of: events.length,
      error: describeError(error),
    });
    const failed = [...new Set([...undelivered].map((index) => owners[index] as number))].sort((a, b) => a - b);
    return { failed, error };
  };

  const emitChanges = async (changes: readonly PauseChange[]) => {
    const { error } = await deliver(changes);
    if (error !== undefined) throw error;
  };

  return {
    emitChanges,
    emitEach: async (changes) => (await deliver(changes)).failed,
    observe(change) {
      emitChanges([change]).catch(() => {
        // Logged and counted above; the request that made the change goes on.
      });
    },
  };
}

/** The events as EventBridge `PutEvents` entries (source `handback`, detail-type the event's). */
export function putEventsEntries(events: readonly LifecycleEvent[], eventBusName: string) {
  return events.map((event) => ({
    EventBusName: eventBusName,
    Source: LIFECYCLE_SOURCE,
    DetailType: event.type,
    Detail: JSON.stringify(event.detail),
  }));
}

/** A sink that POSTs each event as JSON to `url`, retrying each a few times with backoff. */
export function createWebhookSink(
  url: string,
  options: { attempts?: number; backoffMs?: number; timeoutMs?: number; fetch?: typeof fetch } = {},
): EventSink {
  const attempts = options.attempts ?? 4;
  const backoffMs = options.backoffMs ?? 250;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const send = options.fetch ?? fetch;
  return {
    async deliver(events) {
      for (const event of events) {
        const body = JSON.stringify({
          id: randomUUID(),
          source: LIFECYCLE_SOURCE,
          'detail-type': event.type,
          time: new Date().toISOString(),
          detail: event.detail,
        });
        let lastError: unknown;
        for (let attempt = 0; attempt < attempts; attempt++) {
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, backoffMs * 2 ** (attempt - 1)));
          try {
            const response = await send(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body,
              signal: AbortSignal.timeout(timeoutMs),
            });
            if (response.ok) {
              lastError = undefined;
              break;
            }
            lastError = new Error(`The webhook answered ${response.status}`);
          } catch (error) {
            lastError = error;
          }
        }
        if (lastError !== undefined) throw lastError;
      }
    },
  };
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
