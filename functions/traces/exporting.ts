/**
 * What the traces (`traces.ts`) load on first use, as one chunk: the span builders, the OTLP/HTTP exporter and the
 * trace ids. A deployment without an OTLP endpoint never loads it.
 */

export { sendSpans } from './otlp.ts';
export { askSpans, executionSpan, executionSpans, pauseSpan } from './spans.ts';
export { formatTraceparent, newSpanId, newTraceId, parseTraceparent } from './trace-context.ts';
