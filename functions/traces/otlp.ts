import type { AttributeValue, Span } from './spans.ts';

/**
 * OTLP/HTTP with JSON (OpenTelemetry Protocol 1.x, `POST <endpoint>/v1/traces`, `application/json`): Handback's spans
 * encoded as an `ExportTraceServiceRequest` and sent, in a few dozen lines instead of the OpenTelemetry JS SDK
 * (docs/choices.md weighs the two). Every OTLP receiver takes JSON beside protobuf: the Collector, Jaeger, Grafana
 * Tempo, and the vendors' endpoints behind them.
 */

/** The `service.name` of Handback's spans. */
export const SERVICE_NAME = 'handback';

/** How long one export may take before it is given up (and logged): a trace never holds a request longer. */
export const EXPORT_TIMEOUT_MS = 3_000;

/** An attribute as OTLP/JSON writes it (`KeyValue`). */
function keyValue(key: string, value: AttributeValue) {
  return { key, value: anyValue(value) };
}

function anyValue(value: AttributeValue): Record<string, unknown> {
  if (Array.isArray(value)) return { arrayValue: { values: value.map((each) => ({ stringValue: each })) } };
  if (typeof value === 'boolean') return { boolValue: value };
  // OTLP/JSON writes 64-bit integers as strings.
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  return { stringValue: value };
}

/** Milliseconds since the epoch as OTLP's nanoseconds (a string: the number passes 2^53). */
function nanos(ms: number): string {
  return `${BigInt(Math.round(ms)) * 1_000_000n}`;
}

/** The `ExportTraceServiceRequest` of `spans`, from one resource (`service.name`) and one scope. */
export function exportRequest(spans: readonly Span[], resource: Record<string, AttributeValue> = {}) {
  return {
    resourceSpans: [
      {
        resource: {
          attributes: Object.entries({ 'service.name': SERVICE_NAME, ...resource }).map(([k, v]) => keyValue(k, v)),
        },
        scopeSpans: [
          {
            scope: { name: SERVICE_NAME },
            spans: spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
              name: span.name,
              kind: span.kind,
              startTimeUnixNano: nanos(span.startMs),
              endTimeUnixNano: nanos(span.endMs),
              attributes: Object.entries(span.attributes).map(([k, v]) => keyValue(k, v)),
              events: span.events.map((event) => ({
                timeUnixNano: nanos(event.timeMs),
                name: event.name,
                attributes: Object.entries(event.attributes).map(([k, v]) => keyValue(k, v)),
              })),
              // STATUS_CODE_ERROR is 2; an unset status is left out.
              ...(span.error === undefined ? {} : { status: { code: 2, message: span.error } }),
            })),
          },
        ],
      },
    ],
  };
}

/**
 * The traces URL of `OTEL_EXPORTER_OTLP_ENDPOINT`: the base URL with `/v1/traces` appended, as the OpenTelemetry
 * specification says for the signal-independent variable.
 */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/** Sends `spans` to the OTLP/HTTP endpoint; throws when it does not take them (a status, a timeout, no answer). */
export async function sendSpans(
  endpoint: string,
  spans: readonly Span[],
  options: { fetch?: typeof fetch; timeoutMs?: number; resource?: Record<string, AttributeValue> } = {},
): Promise<void> {
  if (spans.length === 0) return;
  const response = await (options.fetch ?? fetch)(tracesUrl(endpoint), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(exportRequest(spans, options.resource)),
    signal: AbortSignal.timeout(options.timeoutMs ?? EXPORT_TIMEOUT_MS),
  });
  // The body is read either way, so the connection is free for the next export.
  const text = await response.text();
  if (!response.ok) throw new Error(`The OTLP endpoint answered ${response.status}: ${text.slice(0, 200)}`);
}
