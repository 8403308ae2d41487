import { createHash, timingSafeEqual } from 'node:crypto';
import { errorBody, SCIM_MEDIA_TYPE, type ScimKeep, scimRequest } from '../directory/scim.ts';
import { StorageUnavailableError } from '../errors.ts';
import { checkJsonDepth } from '../resume/request.ts';
import type { ApiEvent, ApiResult } from './serve.ts';

/**
 * The `/scim/v2` edge (§20 SCIM): its own bearer secret — never a user's token, never the JWT authorizer — compared in
 * constant time before anything is read; the tenant the deployment provisions; the body read as SCIM's media type;
 * every answer `application/scim+json`, a refusal a SCIM Error that changes nothing. Loaded by the first `/scim`
 * request only (`http-api.ts` imports it lazily), with the protocol and its libraries.
 */

/** What `/scim/v2` serves with: the tenant it provisions, its secret (read on first use), and the directory. */
export interface ScimEdge {
  tenant: string;
  /** The SCIM secret: `HANDBACK_SCIM_TOKEN` locally, the stack's Secrets Manager secret on AWS. */
  token: () => Promise<string>;
  keep: ScimKeep;
}

/** Bytes of a SCIM body read at most: a Group of every person of a tenant, by id, fits. */
export const SCIM_BODY_BYTES = 1024 * 1024;

/** The path prefix every SCIM path starts with. */
export const SCIM_PREFIX = '/scim/v2';

/** Answers one `/scim/v2` request. */
export async function serveScim(edge: ScimEdge, event: ApiEvent): Promise<ApiResult> {
  if (!(await authorized(edge, event.headers?.authorization))) {
    return answer(401, errorBody(401, 'A SCIM request needs the SCIM secret: Authorization: Bearer <secret>.'), {
      'WWW-Authenticate': 'Bearer realm="scim"',
    });
  }
  const method = event.requestContext.http.method.toUpperCase();
  const path = event.requestContext.http.path.slice(SCIM_PREFIX.length);
  let body: unknown;
  if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
    const read = bodyOf(event);
    if ('status' in read) return answer(read.status, errorBody(read.status, read.detail, read.scimType));
    body = read.body;
  }
  try {
    const result = await scimRequest(edge.keep, {
      tenant: edge.tenant,
      method,
      path,
      query: event.queryStringParameters ?? {},
      body,
      base: `https://${event.requestContext.domainName}${SCIM_PREFIX}`,
    });
    return answer(result.status, result.body, result.headers);
  } catch (error) {
    if (error instanceof StorageUnavailableError) {
      return answer(503, errorBody(503, error.message), { 'Retry-After': String(error.retryAfterSeconds) });
    }
    throw error;
  }
}

/** Whether `authorization` is `Bearer <the secret>`, compared in constant time (over digests: any length). */
async function authorized(edge: ScimEdge, authorization: string | undefined): Promise<boolean> {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  if (match?.[1] === undefined) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(match[1]), digest(await edge.token()));
}

/** `application/scim+json` or `application/json` (RFC 7644 section 3.1 allows both from a client), any parameters. */
const SCIM_MEDIA = /^\s*application\/(scim\+)?json\s*(;.*)?$/i;

/** The request's JSON body, or why it is refused. */
function bodyOf(event: ApiEvent): { body: unknown } | { status: number; detail: string; scimType?: string } {
  const { body, isBase64Encoded } = event;
  const raw = body === undefined ? '' : isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
  const bytes = Buffer.byteLength(raw);
  if (bytes > SCIM_BODY_BYTES) {
    return { status: 413, detail: `The body is ${bytes} bytes; a SCIM request takes at most ${SCIM_BODY_BYTES}.` };
  }
  const contentType = event.headers?.['content-type'];
  if (contentType === undefined || !SCIM_MEDIA.test(contentType)) {
    return { status: 415, detail: `The body must be JSON, sent with Content-Type: ${SCIM_MEDIA_TYPE}.` };
  }
  try {
    const parsed: unknown = JSON.parse(raw);
    checkJsonDepth(parsed, 'body');
    return { body: parsed };
  } catch (error) {
    return {
      status: 400,
      detail: `The body is not JSON SCIM can read: ${(error as Error).message}`,
      scimType: 'invalidSyntax',
    };
  }
}

function answer(status: number, body: object | undefined, headers: Record<string, string> = {}): ApiResult {
  return {
    statusCode: status,
    headers: {
      ...(body === undefined ? {} : { 'Content-Type': SCIM_MEDIA_TYPE }),
      'Cache-Control': 'no-store',
      ...headers,
    },
    body: body === undefined ? '' : JSON.stringify(body),
  };
}
