import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { decodeProtectedHeader, type JWTPayload, jwtVerify } from 'jose';
import { ErrorCode } from '../errors.ts';
import { EdgeCode, HttpProblem, problemResponse } from '../handlers/problem.ts';
import { isOpenRequest } from '../handlers/routes.ts';
import { LIMITS } from '../vocabulary.ts';
import { checkAudience, type IssuerOptions, issuerTokens, rejectionOf, TokenRefused } from './issuer-tokens.ts';
import { type Claims, localContext, toPayloadV2, writeResult } from './payload-v2.ts';

/**
 * The local HTTP listener: each request becomes a payload v2 event for the same API handler the Lambda runs. It plays
 * API Gateway's part too: with an issuer or a JWT secret it is the JWT authorizer, verifying `Authorization: Bearer`
 * tokens (RSA-signed by the issuer's keys, as API Gateway does; HS256 with the secret) on the routes that need one,
 * answering 401 itself for a missing or invalid token, and passing the claims of a valid
 * one; without a secret, every request is the single tenant `default`. Given the host names it answers to, it refuses
 * every request addressed to another (§22: DNS rebinding), whatever its route.
 */

/** The API handler, as the local service calls it. */
export type LocalApiHandler = (
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
  context: Context,
) => Promise<APIGatewayProxyResultV2>;

/** How the listener authenticates and where it reports failures. */
export interface LocalServerOptions {
  handler: LocalApiHandler;
  /** `HANDBACK_JWT_SECRET`: require HS256 bearer tokens signed with it; unset = single tenant `default`. */
  jwtSecret?: string;
  /** `HANDBACK_JWT_AUDIENCE`: an HS256 token's `aud` (or `client_id`) must be one of these, when any are given. */
  audiences?: readonly string[];
  /** `HANDBACK_JWT_ISSUER` and `HANDBACK_JWT_AUDIENCE`: take RSA-signed tokens of this issuer, as API Gateway does. */
  issuer?: IssuerOptions;
  /** The claim naming the tenant; default `tenant`. */
  tenantClaim?: string;
  /** Where an error outside the handler is logged. */
  onError?: (error: unknown) => void;
  /**
   * The host names requests must be addressed to (`Host`, and `Origin` when sent), any port: a page from another site
   * that reaches the listener by DNS rebinding names its own host and is refused. Unset: any host.
   */
  allowedHosts?: readonly string[];
}

/** The names a loopback listener answers to (§22), before `HANDBACK_ALLOWED_HOSTS` adds others. */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

/**
 * Why a request is not for this listener, or undefined when it is: its `Host` (a name, any port) must be one of
 * `allowed`, and so must its `Origin`'s host when it sends one (a browser does on every cross-site request, and
 * sends `null` from a sandbox or a file, which matches nothing). Names compare case-insensitively.
 */
export function hostRefusal(
  headers: { host?: string | undefined; origin?: string | undefined },
  allowed: readonly string[],
): string | undefined {
  const names = new Set(allowed.map((name) => name.toLowerCase()));
  const host = hostName(headers.host);
  const listed = `${[...names].join(', ')}`;
  if (host === undefined || !names.has(host)) {
    return `This service answers only requests addressed to ${listed} (any port), not Host ${JSON.stringify(headers.host ?? '')}: a page of another site cannot reach it. HANDBACK_ALLOWED_HOSTS adds names.`;
  }
  if (headers.origin !== undefined) {
    let origin: string | undefined;
    try {
      origin = new URL(headers.origin).hostname.toLowerCase();
    } catch {
      origin = undefined;
    }
    if (origin === undefined || !names.has(origin)) {
      return `This service answers only pages of ${listed} (any port), not Origin ${JSON.stringify(headers.origin)}. HANDBACK_ALLOWED_HOSTS adds names.`;
    }
  }
  return undefined;
}

/**
 * The host names the listener answers to (§22): on a loopback address, or with `HANDBACK_ALLOWED_HOSTS` (names,
 * comma-separated), `localhost`, `127.0.0.1` and `[::1]` and those names; elsewhere without it, any (a service a
 * developer binds to all addresses is reached by names only they know).
 */
export function allowedHostsOf(host: string, extra: string | undefined): { allowedHosts?: string[] } {
  const names = (extra ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const loopback = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i.test(host);
  return loopback || names.length > 0 ? { allowedHosts: [...LOOPBACK_HOSTS, ...names] } : {};
}

/** A `Host` header's name without its port (`[::1]` keeps its brackets), lowercased. */
function hostName(host: string | undefined): string | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:\s[\]]+)(?::\d{1,5})?$/.exec(host?.trim() ?? '');
  return match?.[1]?.toLowerCase();
}

/** Bodies past this are refused before reaching the handler (its own pause limit is 6 MB). */
const MAX_READ_BYTES = 16 * 1024 * 1024;
/** What a token the local secret does not verify is told. */
const HS256_REFUSED =
  "The bearer token's signature does not verify: it must be signed HS256 with this server's secret.";

/** An HTTP server that serves the API handler; call `listen` on it. */
export function createLocalServer(options: LocalServerOptions): Server {
  const secret = options.jwtSecret === undefined ? undefined : new TextEncoder().encode(options.jwtSecret);
  const keys: Verifiers = {
    ...(secret === undefined ? {} : { secret }),
    ...(options.issuer === undefined ? {} : { issuer: issuerTokens(options.issuer) }),
    audiences: options.audiences ?? [],
  };
  const authOff = keys.secret === undefined && keys.issuer === undefined;
  const tenantClaim = options.tenantClaim ?? 'tenant';
  return createServer((request, response) => {
    const context = localContext(crypto.randomUUID());
    const serve = async () => {
      // Before anything else, on every route: a request for another host changes nothing and learns nothing.
      const refusal =
        options.allowedHosts === undefined ? undefined : hostRefusal(request.headers, options.allowedHosts);
      if (refusal !== undefined) throw new HttpProblem(403, ErrorCode.Forbidden, refusal);
      const body = await readBody(request);
      const claims = authOff ? { [tenantClaim]: LIMITS.defaultTenant } : await authorize(request, keys);
      const event = toPayloadV2(request, body, claims);
      writeResult(response, await options.handler(event, context));
    };
    serve().catch((error: unknown) => {
      if (!(error instanceof HttpProblem)) options.onError?.(error);
      if (response.headersSent) response.destroy();
      else if (error instanceof BodyTooLarge) refuseBody(response, error, context.awsRequestId);
      else writeResult(response, problemResponse(error, context.awsRequestId));
    });
  });
}

/**
/**
 * The JWT authorizer's part: the claims of a valid bearer token. On a route that needs one, a missing or invalid token
 * is a 401 saying which of missing, malformed, bad signature or expired it is (never echoing the token); a valid token
 * without the tenant claim passes, and the handler answers that 401. On a public route nothing is refused, and a
 * valid token's claims still pass.
 */
async function authorize(request: IncomingMessage, keys: Verifiers): Promise<Claims | undefined> {
  const verified = await verify(request.headers.authorization, keys);
  if (!(verified instanceof HttpProblem)) return verified;
  const path = safeDecode(new URL(request.url ?? '/', 'http://localhost').pathname).replace(/(.)\/$/, '$1');
  if (isOpenRequest(request.method ?? 'GET', path)) return undefined;
  throw verified;
}

/** What the server checks tokens with: an HS256 secret, an issuer's RSA keys, or both (then by the token's `alg`). */
interface Verifiers {
  secret?: Uint8Array;
  issuer?: (token: string) => Promise<JWTPayload>;
  /** The audiences an HS256 token must name (the issuer's path checks its own). */
  audiences: readonly string[];
}

async function verify(authorization: string | undefined, keys: Verifiers): Promise<Claims | HttpProblem> {
  if (authorization === undefined || authorization.trim() === '') {
    // RFC 6750 §3.1: a request with no credentials at all gets the challenge without an error code.
    return unauthorized('A bearer token is required: send Authorization: Bearer <JWT>.');
  }
  const match = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(authorization);
  if (match?.[1] === undefined) {
    return unauthorized(
      'The Authorization header is malformed: it must be Bearer followed by one token.',
      'invalid_request',
    );
  }
  const token = match[1];
  let payload: JWTPayload;
  try {
    payload =
      keys.issuer !== undefined && (keys.secret === undefined || !isHs(token))
        ? await keys.issuer(token)
        : await verifySecret(token, keys);
  } catch (error) {
    return unauthorized(
      error instanceof TokenRefused ? error.message : rejectionOf(error, HS256_REFUSED),
      'invalid_token',
    );
  }
  {
    const claims: Claims = {};
    for (const [name, value] of Object.entries(payload)) {
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') claims[name] = value;
      else if (Array.isArray(value)) claims[name] = value.map(String);
      // An object claim (RFC 8693's `act`, §20) as API Gateway's JWT authorizer passes it: Go's `map[k:v]` text.
      else if (typeof value === 'object' && value !== null) claims[name] = goMapText(value);
    }
    return claims;
  }
}

/** `value` as Go's `fmt` prints a map: `map[k:v k2:map[…]]`, keys sorted, lists `[a b]`. */
function goMapText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goMapText).join(' ')}]`;
  if (typeof value !== 'object' || value === null) return String(value);
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[${entries.map(([key, item]) => `${key}:${goMapText(item)}`).join(' ')}]`;
}

/** An HS256 token of the local secret (§16): it must expire (`exp`), and name a listed audience where any are set. */
async function verifySecret(token: string, keys: Verifiers): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, keys.secret as Uint8Array, {
    algorithms: ['HS256'],
    requiredClaims: ['exp'],
  });
  checkAudience(payload, keys.audiences);
  return payload;
}

/** Whether a token says it is HMAC-signed: with both configured, such a token is the secret's to check. */
function isHs(token: string): boolean {
  try {
    return /^HS/.test(String(decodeProtectedHeader(token).alg));
  } catch {
    return false;
  }
}

/** A 401 with its RFC 6750 challenge (the details hold no quote or backslash, as a quoted-string must not). */
function unauthorized(detail: string, error?: 'invalid_request' | 'invalid_token'): HttpProblem {
  const challenge = error === undefined ? 'Bearer' : `Bearer error="${error}", error_description="${detail}"`;
  return new HttpProblem(401, EdgeCode.Unauthorized, detail, { 'WWW-Authenticate': challenge });
}

/** After refusing a body, what is still read (and dropped) so the client can finish sending and read the 413. */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
const DRAIN_MAX_MS = 10_000;

/** A body over `MAX_READ_BYTES`; `drained` settles once the client has sent the rest, or was cut off. */
class BodyTooLarge extends HttpProblem {
  readonly drained: Promise<'drained' | 'cut off'>;

  constructor(drained: Promise<'drained' | 'cut off'>) {
    super(413, EdgeCode.PayloadTooLarge, `The body is over ${MAX_READ_BYTES} bytes.`, { Connection: 'close' });
    this.drained = drained;
  }
}

/**
 * The request body, up to `MAX_READ_BYTES`. Past that (or when `Content-Length` says it will be) it rejects with a
 * `BodyTooLarge`, and keeps reading and dropping what the client still sends, within bounds.
 */
function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let refused: { limit: number; cutOff: () => void } | undefined;
    const refuse = () => {
      chunks.length = 0;
      const drained = new Promise<'drained' | 'cut off'>((settle) => {
        const timer = setTimeout(() => settle('cut off'), DRAIN_MAX_MS);
        const done = (how: 'drained' | 'cut off') => {
          clearTimeout(timer);
          settle(how);
        };
        refused = { limit: bytes + DRAIN_MAX_BYTES, cutOff: () => done('cut off') };
        request.once('end', () => done('drained'));
        request.once('close', () => done(request.complete ? 'drained' : 'cut off'));
      });
      reject(new BodyTooLarge(drained));
    };
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (refused !== undefined) {
        if (bytes > refused.limit) refused.cutOff();
      } else if (bytes > MAX_READ_BYTES) refuse();
      else chunks.push(chunk);
    });
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
    if (Number(request.headers['content-length']) > MAX_READ_BYTES) refuse();
  });
}

/**
 * Writes the 413 at once (a client that reads while it sends sees it now), but ends the response, after which Node
 * closes the connection (`Connection: close`), only once the client has sent its whole body: closing under a client
 * still writing resets the connection, and the client sees ECONNRESET or EPIPE instead of the 413. A client that
 * keeps sending past the drain bounds is cut off once the response is flushed.
 */
function refuseBody(response: ServerResponse, error: BodyTooLarge, requestId: string): void {
  const { statusCode, headers, body } = problemResponse(error, requestId);
  const socket = response.socket;
  response.writeHead(statusCode, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
  response.write(body);
  void error.drained.then((how) => {
    if (how === 'cut off') response.once('finish', () => socket?.destroy());
    response.end();
  });
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
