import { createHash, randomBytes } from 'node:crypto';
import { traceparentOf } from '../fields.ts';

/**
 * W3C Trace Context (§21), read and written: a `traceparent` as its parts, a new trace's and span's random ids, and
 * the ids Handback derives from what a span is about, so that a span exported again (a stream's retry) is the same
 * span, never a second one.
 */

/** A `traceparent`'s parts: lowercase hex, as the header spells them. */
export interface TraceContext {
  traceId: string;
  /** The span the next span is a child of. */
  spanId: string;
  /** The caller recorded its span, and asks that the trace be kept: Handback exports only what is sampled. */
  sampled: boolean;
  /** The flags byte, in hex. */
  flags: string;
}

/** The parts of a `traceparent`; undefined for anything that is not one (`traceparentOf`). */
export function parseTraceparent(value: unknown): TraceContext | undefined {
  const normal = traceparentOf(value);
  if (normal === undefined) return undefined;
  const [, traceId = '', spanId = '', flags = '00'] = normal.split('-');
  return { traceId, spanId, flags, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** The `traceparent` (version `00`) of a trace's span. */
export function formatTraceparent(context: Pick<TraceContext, 'traceId' | 'spanId' | 'flags'>): string {
  return `00-${context.traceId}-${context.spanId}-${context.flags}`;
}

/** A random id of `bytes` bytes in hex, never all zeros (which Trace Context reserves for "none"). */
function randomId(bytes: number): string {
  for (;;) {
    const id = randomBytes(bytes).toString('hex');
    if (/[^0]/.test(id)) return id;
  }
}

/** A new trace's id: 16 random bytes. */
export function newTraceId(): string {
  return randomId(16);
}

/** A new span's id: 8 random bytes. */
export function newSpanId(): string {
  return randomId(8);
}

/** The span id of what `parts` name (a pause's ask, a call's execution): the same parts, the same id. */
export function derivedSpanId(...parts: string[]): string {
  const id = createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
  return /[^0]/.test(id) ? id : '0000000000000001';
}
