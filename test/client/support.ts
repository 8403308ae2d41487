import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, inject } from 'vitest';
import { createHandbackClient, type HandbackClient } from '../../functions/client/index.ts';
import { type LocalService, startLocalService } from '../../functions/local/service.ts';

/**
 * What the client tests run against: `npm start`'s service started in this process (`startLocalService`, on the
 * DynamoDB-compatible server the global setup started, a table of its own), and stand-in HTTP servers that record
 * what they were sent.
 */

/** Starts the local service for the file's tests (on a fresh table) and stops it after them. */
export function useLocalService(env: Record<string, string> = {}): { url: string } {
  const handle = { url: '' };
  let service: LocalService | undefined;
  beforeAll(async () => {
    service = await startLocalService({
      ...process.env,
      DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
      TABLE_NAME: `handback-client-${randomUUID()}`,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'ERROR',
      HANDBACK_SWEEP_INTERVAL_MS: '100',
      ...env,
    });
    handle.url = service.url;
  });
  afterAll(async () => {
    await service?.close();
  });
  return handle;
}

/** Handback reached through `handback/client` by the agent and by each person deciding, as the adapter suites use it. */
export interface SignedInBackend {
  agent: HandbackClient;
  as(person: string): HandbackClient;
  /** Lets `seconds` pass, and the service's own sweep (every 100 ms) close what expired. */
  expire(seconds: number): Promise<void>;
}

const JWT_SECRET = 'a-test-secret-of-at-least-32-bytes-long!';

/**
 * Starts the local service with sign-in (HS256 tokens, `HANDBACK_JWT_SECRET`) for the file's tests; each backend it
 * makes reaches it as the agent (`agent-1`) and as each person, with a token of their own in tenant `acme`.
 */
export function useSignedInService(): () => SignedInBackend {
  const service = useLocalService({ HANDBACK_JWT_SECRET: JWT_SECRET });
  const secret = new TextEncoder().encode(JWT_SECRET);
  const tokenFor = (sub: string) =>
    new SignJWT({ tenant: 'acme', sub }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(secret);
  return () => {
    const on = (sub: string) => createHandbackClient({ baseUrl: service.url, token: () => tokenFor(sub) });
    return {
      agent: on('agent-1'),
      as: on,
      expire: (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 1500)),
    };
  };
}

/** One request a stand-in server received. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A stand-in HTTP server on 127.0.0.1 that records each request and answers it with `answer`. */
export async function standIn(
  answer: (request: Received, response: ServerResponse, index: number) => void | Promise<void>,
): Promise<{ url: string; received: Received[]; close(): Promise<void>; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      received.push(request);
      void answer(request, res, received.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Writes a JSON (or problem) response. */
export function reply(
  response: ServerResponse,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
): void {
  const type = status >= 400 ? 'application/problem+json' : 'application/json';
  response.writeHead(status, { 'content-type': type, ...headers });
  response.end(body === undefined ? '' : JSON.stringify(body));
}

/** An ai-sdk round: a user message and one assistant message calling `ask_human` and `refund_order`. */
export function aiSdkRound(extraUserText = ''): unknown[] {
  return [
    { role: 'user', content: `Refund order A-1042, please.${extraUserText}` },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'call_ask', toolName: 'ask_human', input: { question: 'Why?' } },
        { type: 'tool-call', toolCallId: 'call_refund', toolName: 'refund_order', input: { amount: 120 } },
      ],
    },
  ];
}
