import { createServer, type Server } from 'node:http';

/**
 * An OTLP/HTTP receiver of the tests' own (§21): `POST /v1/traces` with JSON, as the OpenTelemetry Protocol defines
 * it — an `ExportTraceServiceRequest` of resource spans, scope spans and spans, ids in hex, times as nanosecond
 * strings, attributes as typed `AnyValue`s — decoded into flat spans the tests can read. It refuses anything else
 * (another path or media type: 404 and 415) as a collector would, so a malformed export fails the test that made it.
 */

/** An attribute's value as decoded from OTLP's `AnyValue`. */
export type Decoded = string | number | boolean | Decoded[];

/** One span as received. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, Decoded>;
  events: Array<{ name: string; timeMs: number; attributes: Record<string, Decoded> }>;
  status?: { code: number; message?: string };
  /** The resource's attributes (`service.name`). */
  resource: Record<string, Decoded>;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** The base URL to give as `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  /** Every span received so far, in order. */
  spans: ReceivedSpan[];
  /** Every request received, whatever its path (a request elsewhere is a failure to see). */
  requests: Array<{ method: string; path: string; contentType: string }>;
  /** Resolves once `count` spans named `name` (any name: undefined) arrived; rejects after `timeoutMs`. */
  waitFor(count: number, name?: string, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

function decodeValue(value: Record<string, unknown>): Decoded {
  if ('stringValue' in value) return String(value.stringValue);
  if ('boolValue' in value) return Boolean(value.boolValue);
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value) {
    const values = ((value.arrayValue as { values?: Array<Record<string, unknown>> }).values ?? []).map(decodeValue);
    return values;
  }
  throw new Error(`An AnyValue of no known kind: ${JSON.stringify(value)}`);
}

function decodeAttributes(list: unknown): Record<string, Decoded> {
  if (!Array.isArray(list)) throw new Error('attributes must be an array of KeyValue');
  return Object.fromEntries(
    list.map((entry: { key: string; value: Record<string, unknown> }) => [entry.key, decodeValue(entry.value)]),
  );
}

/** Nanoseconds since the epoch (a string, as OTLP/JSON writes 64-bit integers) as milliseconds. */
function millis(nanos: unknown): number {
  if (typeof nanos !== 'string' || !/^\d+$/.test(nanos)) throw new Error(`a time must be a string of digits: ${nanos}`);
  return Number(BigInt(nanos) / 1_000_000n);
}

const HEX = (bytes: number) => new RegExp(`^[0-9a-f]{${bytes * 2}}$`);

/** The spans of one `ExportTraceServiceRequest`, checked as OTLP/JSON requires. */
export function decodeExport(body: unknown): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of (body as { resourceSpans: unknown[] }).resourceSpans) {
    const { resource, scopeSpans } = resourceSpans as { resource: { attributes: unknown }; scopeSpans: unknown[] };
    const resourceAttributes = decodeAttributes(resource.attributes);
    for (const scope of scopeSpans) {
      for (const raw of (scope as { spans: Array<Record<string, unknown>> }).spans) {
        const traceId = String(raw.traceId);
        const spanId = String(raw.spanId);
        if (!HEX(16).test(traceId) || !HEX(8).test(spanId)) throw new Error(`ids must be hex: ${traceId} ${spanId}`);
        if (raw.parentSpanId !== undefined && !HEX(8).test(String(raw.parentSpanId))) {
          throw new Error(`a parent span id must be hex: ${String(raw.parentSpanId)}`);
        }
        const span: ReceivedSpan = {
          traceId,
          spanId,
          name: String(raw.name),
          kind: Number(raw.kind),
          startMs: millis(raw.startTimeUnixNano),
          endMs: millis(raw.endTimeUnixNano),
          attributes: decodeAttributes(raw.attributes ?? []),
          events: ((raw.events ?? []) as Array<Record<string, unknown>>).map((event) => ({
            name: String(event.name),
            timeMs: millis(event.timeUnixNano),
            attributes: decodeAttributes(event.attributes ?? []),
          })),
          resource: resourceAttributes,
        };
        if (raw.parentSpanId !== undefined) span.parentSpanId = String(raw.parentSpanId);
        if (raw.status !== undefined) span.status = raw.status as { code: number; message?: string };
        spans.push(span);
      }
    }
  }
  return spans;
}

/** Starts a receiver on `port` of 127.0.0.1 (a free one by default). */
export async function startOtlpReceiver(port = 0): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const contentType = String(request.headers['content-type'] ?? '');
      requests.push({ method: request.method ?? '', path: request.url ?? '', contentType });
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      if (!contentType.startsWith('application/json')) {
        response.writeHead(415).end();
        return;
      }
      try {
        spans.push(...decodeExport(JSON.parse(text)));
      } catch (error) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ message: (error as Error).message }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const waiter of waiters) waiter();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address() as { port: number };
  const named = (name?: string) => spans.filter((span) => name === undefined || span.name === name);
  return {
    url: `http://127.0.0.1:${address.port}`,
    spans,
    requests,
    waitFor(count, name, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (named(name).length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(named(name));
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${named(name).length} of ${count} ${name ?? 'spans'} arrived in ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
