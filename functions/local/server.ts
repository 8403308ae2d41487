import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { jwtVerify } from 'jose';
import { EdgeCode, HttpProblem, problemResponse } from '../handlers/problem.ts';
import { type Claims, localContext, toPayloadV2, writeResult } from './payload-v2.ts';

/**
 * The local HTTP listener: each request becomes a payload v2 event for the same API handler the Lambda runs. It plays
 * API Gateway's part too: with a JWT secret it verifies `Authorization: Bearer` tokens (HS256) and passes their
 * claims as the JWT authorizer would; without one, every request is the single tenant `default`.
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
  /** The claim naming the tenant; default `tenant`. */
  tenantClaim?: string;
  /** Where an error outside the handler is logged. */
  onError?: (error: unknown) => void;
}

/** Bodies past this are refused before reaching the handler (its own pause limit is 6 MB). */
const MAX_READ_BYTES = 16 * 1024 * 1024;

/** An HTTP server that serves the API handler; call `listen` on it. */
export function createLocalServer(options: LocalServerOptions): Server {
  const secret = options.jwtSecret === undefined ? undefined : new TextEncoder().encode(options.jwtSecret);
  const tenantClaim = options.tenantClaim ?? 'tenant';
  return createServer((request, response) => {
    const context = localContext(crypto.randomUUID());
    const serve = async () => {
      const body = await readBody(request);
      const claims = secret === undefined ? { [tenantClaim]: 'default' } : await verifiedClaims(request, secret);
      const event = toPayloadV2(request, body, claims);
      writeResult(response, await options.handler(event, context));
    };
    serve().catch((error: unknown) => {
      if (!(error instanceof HttpProblem)) options.onError?.(error);
      if (!response.headersSent) writeResult(response, problemResponse(error, context.awsRequestId));
      else response.destroy();
    });
  });
}

/**
 * The claims of a valid bearer token, or `undefined` for a missing or invalid one: the handler then answers 401 on
 * every route that needs a tenant, as behind API Gateway (where `/health` needs none).
 */
async function verifiedClaims(request: IncomingMessage, secret: Uint8Array): Promise<Claims | undefined> {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (match?.[1] === undefined) return undefined;
  try {
    const { payload } = await jwtVerify(match[1], secret, { algorithms: ['HS256'] });
    const claims: Claims = {};
    for (const [name, value] of Object.entries(payload)) {
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') claims[name] = value;
      else if (Array.isArray(value)) claims[name] = value.map(String);
    }
    return claims;
  } catch {
    return undefined;
  }
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of request) {
    bytes += (chunk as Buffer).length;
    if (bytes > MAX_READ_BYTES) {
      throw new HttpProblem(413, EdgeCode.PayloadTooLarge, `The body is over ${MAX_READ_BYTES} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
