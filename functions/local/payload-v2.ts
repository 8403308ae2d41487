import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2, Context } from 'aws-lambda';

/**
 * The local service's adapter between Node's HTTP server and the API handler: an `IncomingMessage` becomes the
 * API Gateway HTTP API payload v2 event the Lambda would receive (with the JWT authorizer's claims), and the
 * handler's result goes back out as the response.
 */

/** The claims a verified token carries, as API Gateway's JWT authorizer passes them. */
export type Claims = Record<string, string | number | boolean | string[]>;

/** A payload v2 event for `request` and its `body`; `claims` present when a token was verified. */
export function toPayloadV2(
  request: IncomingMessage,
  body: Buffer,
  claims: Claims | undefined,
): APIGatewayProxyEventV2WithJWTAuthorizer {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  const method = request.method ?? 'GET';
  const now = new Date();
  const requestId = randomUUID();
  // API Gateway decodes the path it routes on; rawPath stays as sent.
  const path = safeDecode(url.pathname);
  const textual = body.length === 0 || isTextual(headers['content-type']);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? '127.0.0.1',
      domainPrefix: 'local',
      http: {
        method,
        path,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
      authorizer: { principalId: '', integrationLatency: 0, jwt: { claims: claims ?? {}, scopes: [] } },
    },
    ...(body.length > 0 ? { body: textual ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: !textual,
  };
}

/** A Lambda context for one local invocation. */
export function localContext(requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'handback-local',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:handback-local',
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: 'local',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 30_000,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/** Writes a payload v2 result (structured or a bare string, as Lambda allows) to `response`. */
export function writeResult(response: ServerResponse, result: APIGatewayProxyResultV2): void {
  if (typeof result === 'string' || result === undefined || result === null) {
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(result ?? '');
    return;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  const body =
    result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  response.writeHead(result.statusCode ?? 200, headers).end(body);
}

function isTextual(contentType: string | undefined): boolean {
  return (
    contentType === undefined ||
    /^(text\/|application\/([\w.+-]*\+)?json|application\/x-www-form-urlencoded)/i.test(contentType)
  );
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
