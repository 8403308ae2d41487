import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { InvokeStore } from '@aws/lambda-invoke-store';
import { lambdaRuntime } from './config.ts';

/**
 * X-Ray subsegments of the AWS SDK calls a function makes, in a middleware of each client: one subsegment per call
 * (retries included, counted in `aws.retries`), sent to the X-Ray endpoint Lambda runs beside every function
 * (`AWS_XRAY_DAEMON_ADDRESS`), parented to the function's own segment, with the call's trace header carried on to the
 * service so SQS, EventBridge, Step Functions and Lambda continue the trace. This replaces Powertools' tracer and the
 * X-Ray SDK under it (about 95 KB minified at every cold start, with cls-hooked's async hooks on every promise), of
 * which Handback used this alone; the X-Ray SDKs are in maintenance mode since February 2026 (docs/choices.md).
 *
 * Nothing is sent outside Lambda, with `POWERTOOLS_TRACE_ENABLED=false`, or when the invocation is not sampled
 * (`Sampled=0`: the header still goes on, so the services downstream do not sample either). The documents follow
 * "Sending segment documents to the X-Ray daemon" and the segment document's subsegment fields (AWS X-Ray Developer
 * Guide): a UDP datagram of the daemon header line and one subsegment, `type: "subsegment"` with its `parent_id`.
 */

/** What a traced client must have: the SDK v3 client's middleware stack and its region. */
export interface TraceableClient {
  middlewareStack: {
    add(middleware: unknown, options: { step: 'build'; name: string; override?: boolean }): void;
  };
  config: { region: string | (() => Promise<string>) };
}

/** The header line every datagram to the daemon starts with. */
export const DAEMON_HEADER = '{"format": "json", "version": 1}\n';

const MIDDLEWARE_NAME = 'HandbackXRaySubsegments';

/** The X-Ray trace header of this invocation, parsed: `Root`, `Parent`, `Sampled` and the keys X-Ray carries on. */
export interface TraceHeader {
  root: string;
  parent: string;
  sampled: boolean;
  /** Every other `key=value` (Lambda's `Lineage`, which its recursive-loop detection counts), in order. */
  rest: string[];
}

/** `Root=…;Parent=…;Sampled=1;Lineage=…` parsed; undefined without a root and a parent (nothing to attach to). */
export function parseTraceHeader(header: string | undefined): TraceHeader | undefined {
  if (header === undefined) return undefined;
  let root: string | undefined;
  let parent: string | undefined;
  let sampled = false;
  const rest: string[] = [];
  for (const field of header.split(';')) {
    const at = field.indexOf('=');
    const key = field.slice(0, at).trim();
    const value = field.slice(at + 1).trim();
    if (at < 0 || key === '') continue;
    if (key === 'Root') root = value;
    else if (key === 'Parent') parent = value;
    else if (key === 'Sampled') sampled = value === '1';
    else rest.push(`${key}=${value}`);
  }
  return root === undefined || parent === undefined ? undefined : { root, parent, sampled, rest };
}

/** The daemon's UDP address from `AWS_XRAY_DAEMON_ADDRESS`: `host:port`, or `udp:host:port tcp:host:port`. */
export function daemonAddress(value: string | undefined): { host: string; port: number } {
  const udp = value?.split(/\s+/).find((part) => part.startsWith('udp:')) ?? value?.split(/\s+/)[0];
  const match = /^(?:udp:)?(.+):(\d+)$/.exec(udp ?? '');
  return match?.[1] !== undefined ? { host: match[1], port: Number(match[2]) } : { host: '127.0.0.1', port: 2000 };
}

let socket: Socket | undefined;

/** One datagram to the daemon; a failed send loses one subsegment, never the call it traced. */
function send(document: object): void {
  // The address is read per datagram: Lambda sets it once, and a test may point it elsewhere between calls.
  const { host, port } = daemonAddress(lambdaRuntime.xrayDaemonAddress());
  if (socket === undefined) {
    socket = createSocket('udp4');
    // A trace must never hold the process open, nor an error of the socket surface as an uncaught exception.
    socket.unref();
    socket.on('error', () => {});
  }
  socket.send(`${DAEMON_HEADER}${JSON.stringify(document)}`, port, host, () => {});
}

async function currentTraceHeader(): Promise<string | undefined> {
  if (!lambdaRuntime.onLambda() || !lambdaRuntime.tracingEnabled()) return undefined;
  // Per request on every runtime, Lambda's managed instances (several requests at once) included; the variable else.
  const store = await InvokeStore.getInstanceAsync();
  return store.getXRayTraceId() ?? lambdaRuntime.traceHeader();
}

interface CallMetadata {
  httpStatusCode?: number;
  requestId?: string;
  attempts?: number;
}

/** The resource names X-Ray's service map shows for the calls Handback makes. */
function resourceOf(input: Record<string, unknown>): Record<string, unknown> {
  const resource: Record<string, unknown> = {};
  if (typeof input.TableName === 'string') resource.table_name = input.TableName;
  if (typeof input.RequestItems === 'object' && input.RequestItems !== null) {
    resource.table_names = Object.keys(input.RequestItems);
  }
  if (typeof input.QueueUrl === 'string') resource.queue_url = input.QueueUrl;
  return resource;
}

function middleware(config: TraceableClient['config']) {
  return (
    next: (args: { input: Record<string, unknown>; request: { headers: Record<string, string> } }) => Promise<{
      output: { $metadata?: CallMetadata };
      response?: { headers?: Record<string, string> };
    }>,
    context: { clientName?: string; commandName?: string },
  ) =>
    async (args: { input: Record<string, unknown>; request: { headers: Record<string, string> } }) => {
      const trace = parseTraceHeader(await currentTraceHeader());
      if (trace === undefined || typeof args.request?.headers !== 'object') return next(args);
      const id = randomBytes(8).toString('hex');
      args.request.headers['X-Amzn-Trace-Id'] = [
        `Root=${trace.root}`,
        `Parent=${trace.sampled ? id : trace.parent}`,
        `Sampled=${trace.sampled ? 1 : 0}`,
        ...trace.rest,
      ].join(';');
      if (!trace.sampled) return next(args);
      const startTime = Date.now() / 1000;
      const service = (context.clientName ?? 'AWS').replace(/Client$/, '');
      const operation = (context.commandName ?? '').replace(/Command$/, '');
      const close = async (metadata: CallMetadata | undefined, contentLength: string | undefined, error?: Error) => {
        const status = metadata?.httpStatusCode;
        const region = typeof config.region === 'function' ? await config.region() : config.region;
        const throttle = status === 429 || error?.name === 'ThrottlingException';
        const fault = error !== undefined && (status === undefined || status >= 500);
        send({
          name: service,
          id,
          trace_id: trace.root,
          parent_id: trace.parent,
          type: 'subsegment',
          namespace: 'aws',
          start_time: startTime,
          end_time: Date.now() / 1000,
          aws: {
            operation,
            region,
            ...(metadata?.requestId === undefined ? {} : { request_id: metadata.requestId }),
            retries: Math.max((metadata?.attempts ?? 1) - 1, 0),
            ...resourceOf(args.input ?? {}),
          },
          ...(status === undefined
            ? {}
            : {
                http: {
                  response: {
                    status,
                    ...(contentLength === undefined ? {} : { content_length: Number(contentLength) }),
                  },
                },
              }),
          ...(throttle ? { throttle: true } : {}),
          ...(error !== undefined && !fault ? { error: true } : {}),
          ...(fault ? { fault: true } : {}),
          ...(error === undefined
            ? {}
            : {
                cause: {
                  exceptions: [
                    {
                      id: randomBytes(8).toString('hex'),
                      message: error.message,
                      type: error.name,
                      remote: status !== undefined,
                    },
                  ],
                },
              }),
        });
      };
      try {
        const result = await next(args);
        await close(result.output.$metadata, result.response?.headers?.['content-length']);
        return result;
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        await close((error as { $metadata?: CallMetadata }).$metadata, undefined, failure);
        throw error;
      }
    };
}

/** `client`, with a subsegment for each of its calls (idempotent: tracing a client twice traces it once). */
export function traceAwsClient<T extends TraceableClient>(client: T): T {
  client.middlewareStack.add(middleware(client.config), { step: 'build', name: MIDDLEWARE_NAME, override: true });
  return client;
}
