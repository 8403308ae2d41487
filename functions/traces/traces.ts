import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import { once } from '../once.ts';
import type { EscalationStep, EscalationsOf, ExecutionTrace, Span } from './spans.ts';

/**
 * Handback's traces (§21), as the use cases and the entry points hold them: made only when an OTLP endpoint is
 * configured (`tracesOf`), and even then this module alone is read at init — the span builders, the exporter and
 * the ids are a chunk (`exporting.ts`) read with the first span. Exports run beside the request that made them and
 * never fail it: a refused export is logged; `flush` waits for them (a Lambda invocation's end, before it freezes).
 */

export type { EscalationStep, EscalationsOf, ExecutionTrace };

/** The `handback.pause` span of one request, begun. */
export interface PauseTrace {
  /**
   * The `traceparent` the pause keeps and its continuation carries back: its `handback.pause` span, in the caller's
   * trace or a new one; the caller's own when the caller's trace is not sampled (nothing is exported then).
   */
  traceparent: string | undefined;
  /** Ends the span with what the store answered, or the refusal's code. */
  end(
    result: {
      created?: { interruptId: string; asks: readonly string[]; closed: boolean; replayed: boolean };
      errorCode?: string;
    },
    endMs: number,
  ): void;
}

/** The traces of a deployment with an OTLP endpoint. */
export interface Traces {
  /** Begins the `handback.pause` span of a request to pause run `runId`, which came with `traceparent` (or none). */
  pause(request: { runId: string; traceparent?: unknown }, startMs: number): Promise<PauseTrace>;
  /**
   * Exports the `handback.ask` spans of the asks a committed change settled (`askSpans`), and the `handback.execution`
   * spans of the executions it ended (`executionSpans`).
   */
  changed(change: PauseChange): void;
  /** Exports the `handback.execution` span of a call's execution (its claim to its end), once it ended or was refused. */
  execution(execution: ExecutionTrace): void;
  /** Waits for every export begun so far. */
  flush(): Promise<void>;
}

/** Where the traces report an export that failed. */
export interface TracesLog {
  warn(message: string, attributes: Record<string, unknown>): void;
}

/** How the traces are made. */
export interface TracesOptions {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: the OTLP/HTTP base URL (`/v1/traces` is appended). */
  endpoint: string;
  log: TracesLog;
  /** The escalation ladder's levels each ask reached (§21), for its span's events. @default none */
  escalationsOf?: EscalationsOf;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** The traces for `endpoint`, or undefined without one: then nothing of them is ever loaded or sent. */
export function tracesOf(endpoint: string | undefined, options: Omit<TracesOptions, 'endpoint'>): Traces | undefined {
  return endpoint === undefined ? undefined : createTraces({ ...options, endpoint });
}

/** The traces exporting to `options.endpoint`. */
export function createTraces(options: TracesOptions): Traces {
  const { endpoint, log } = options;
  const load = once(() => import('./exporting.ts'));
  const pending = new Set<Promise<void>>();
  const send = (spans: () => Promise<Span[]>) => {
    const sent: Promise<void> = spans()
      .then(async (made) => {
        if (made.length === 0) return;
        const { sendSpans } = await load();
        await sendSpans(endpoint, made, options.fetch === undefined ? {} : { fetch: options.fetch });
      })
      .catch((error: unknown) => log.warn('Spans not exported to the OTLP endpoint', { error: describe(error) }))
      .finally(() => pending.delete(sent));
    pending.add(sent);
  };
  return {
    async pause(request, startMs) {
      const m = await load();
      const incoming = m.parseTraceparent(request.traceparent);
      if (incoming !== undefined && !incoming.sampled) {
        return { traceparent: m.formatTraceparent(incoming), end: () => {} };
      }
      const traceId = incoming?.traceId ?? m.newTraceId();
      const flags = incoming?.flags ?? '01';
      const spanId = m.newSpanId();
      return {
        traceparent: m.formatTraceparent({ traceId, spanId, flags }),
        end(result, endMs) {
          send(async () => [
            m.pauseSpan({
              traceId,
              spanId,
              ...(incoming === undefined ? {} : { parentSpanId: incoming.spanId }),
              startMs,
              endMs,
              runId: request.runId,
              ...result,
            }),
          ]);
        },
      };
    },
    changed(change) {
      // Most changes settle no ask of a traced pause: nothing is loaded for those.
      if (change.after.traceparent === undefined) return;
      send(async () => {
        const m = await load();
        return [...m.askSpans(change, options.escalationsOf), ...m.executionSpans(change)];
      });
    },
    execution(execution) {
      if (execution.traceparent === undefined) return;
      send(async () => {
        const span = (await load()).executionSpan(execution);
        return span === undefined ? [] : [span];
      });
    },
    async flush() {
      while (pending.size > 0) await Promise.all(pending);
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
