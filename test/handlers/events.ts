import { randomUUID } from 'node:crypto';
import type {
  APIGatewayProxyEventV2WithJWTAuthorizer,
  Context,
  EventBridgeEvent,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';

/** An openai-chat turn paused on `ask_human`, with two other reserved calls in the same round. */
export function pausedTurn(extra = ''): unknown[] {
  return [
    { role: 'system', content: `You are a support agent.${extra}` },
    { role: 'user', content: 'Please refund order A-1042.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_lookup', type: 'function', function: { name: 'lookup_order', arguments: '{"orderId":"A-1042"}' } },
        { id: 'call_ask', type: 'function', function: { name: 'ask_human', arguments: '{"question":"Refund?"}' } },
        { id: 'call_notify', type: 'function', function: { name: 'notify', arguments: '{"channel":"#support"}' } },
      ],
    },
  ];
}

/** The pause body for `pausedTurn`. */
export function pauseBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format: 'openai-chat',
    messages: pausedTurn(),
    toolCallId: 'call_ask',
    prompt: 'Refund A-1042?',
    ...overrides,
  };
}

/** What an API Gateway HTTP API (payload v2) sends for a request, with the JWT authorizer's claims. */
export function httpEvent(
  method: string,
  pathAndQuery: string,
  options: {
    body?: unknown;
    rawBody?: string;
    contentType?: string;
    claims?: Record<string, string> | null;
    headers?: Record<string, string>;
  } = {},
): APIGatewayProxyEventV2WithJWTAuthorizer {
  const url = new URL(pathAndQuery, 'https://api.example.com');
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const headers: Record<string, string> = {
    accept: '*/*',
    host: 'abc123.execute-api.eu-west-1.amazonaws.com',
    'user-agent': 'vitest',
    'x-forwarded-proto': 'https',
    ...(body === undefined
      ? {}
      : {
          'Content-Type': options.contentType ?? 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        }),
    ...options.headers,
  };
  const query = Object.fromEntries(url.searchParams);
  const now = Date.now();
  const claims = options.claims === undefined ? { tenant: 'acme', sub: 'user-1' } : options.claims;
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: {
        method,
        path: decodeURIComponent(url.pathname),
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: 'vitest',
      },
      requestId: `req-${randomUUID()}`,
      routeKey: '$default',
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
      // API Gateway leaves `authorizer` out of routes without one; with a JWT authorizer it carries the claims.
      ...(claims === null
        ? {}
        : { authorizer: { principalId: '', integrationLatency: 0, jwt: { claims, scopes: [] } } }),
    } as APIGatewayProxyEventV2WithJWTAuthorizer['requestContext'],
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: false,
  };
}

/** A Lambda context. */
export function lambdaContext(): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'handback-api',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:handback-api',
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: '/aws/lambda/handback-api',
    logStreamName: '2026/11/30/[$LATEST]abc',
    getRemainingTimeInMillis: () => 30_000,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/** An SQS event of one record per body, as Lambda's event source mapping delivers it. */
export function sqsEvent(bodies: string[]): SQSEvent {
  return {
    Records: bodies.map(
      (body, index): SQSRecord => ({
        messageId: `msg-${index}`,
        receiptHandle: `handle-${index}`,
        body,
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(Date.now()),
          SenderId: 'AIDAEXAMPLE',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: 'd41d8cd98f00b204e9800998ecf8427e',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:handback-resume',
        awsRegion: 'eu-west-1',
      }),
    ),
  };
}

/** An EventBridge event as a rule delivers it to Lambda. */
export function eventBridgeEvent(detail: unknown, detailType = 'Resume Requested'): EventBridgeEvent<string, unknown> {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': detailType,
    source: 'com.example.approvals',
    account: '123456789012',
    time: new Date().toISOString(),
    region: 'eu-west-1',
    resources: [],
    detail,
  };
}
