import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { slackSignature } from '../../functions/channels/slack-api.ts';

/**
 * A local stand-in for Slack's Web API: records every call (method, token, content type, the arguments Slack would
 * read) and answers as Slack documents each method (`chat.postMessage` → `{ok, channel, ts}`, `users.info` →
 * `{ok, user}`, `auth.test` → `{ok, team_id}`). It reads arguments as Slack does: a JSON body only on the write methods
 * whose reference page accepts `application/json`; on any other method a JSON body is not read, so the method sees no
 * arguments (`users.info` answers `user_not_found`, as Slack does), and a body of another content type is refused.
 */

/** One recorded call. */
export interface SlackCallRecord {
  method: string;
  authorization: string | undefined;
  /** The request's content type, without parameters. */
  contentType: string | undefined;
  /** The arguments as Slack reads them: query parameters and the body's fields (JSON-valued fields parsed). */
  body: Record<string, unknown>;
  /** What the stand-in answered (`{ok, …}`, as Slack would). */
  answer: Record<string, unknown>;
}

/** A running stand-in. */
export interface SlackStandIn {
  /** The base URL, for `HANDBACK_SLACK_API_URL`. */
  url: string;
  calls: SlackCallRecord[];
  /** The calls of one method, in order. */
  of(method: string): SlackCallRecord[];
  close(): Promise<void>;
}

/**
 * The app `npm run slack:stand-in` stands in for, and what `npm run slack:click` signs with: the workspace, the bot
 * token and signing secret to give `npm start`, and the default channel. For trying Slack locally; never real secrets.
 */
export const STAND_IN_APP = {
  teamId: 'T0STANDIN1',
  botToken: 'xoxb-stand-in-bot-token',
  signingSecret: 'stand-in-signing-secret',
  channel: 'C0STANDIN1',
} as const;

/** The port `npm run slack:stand-in` listens on unless told another (and where `npm run slack:click` looks). */
export const STAND_IN_DEFAULT_PORT = 3101;

/** Slack users the stand-in knows. */
export const SLACK_USERS: Record<string, { email: string; real_name: string }> = {
  U0ALICE01: { email: 'alice@example.com', real_name: 'Alice Approver' },
  U0BOB0002: { email: 'bob@example.com', real_name: 'Bob Builder' },
};

/**
 * The write methods whose reference page lists `application/json` among their content types (of those the service
 * calls). Kept apart from the client's own table (`SLACK_METHODS`) on purpose: the stand-in models Slack, so a client
 * that sends a method the wrong way is refused here rather than agreed with.
 */
const JSON_METHODS = new Set(['chat.postMessage', 'chat.update', 'chat.postEphemeral', 'views.open']);
/** Form fields Slack reads as JSON text. */
const JSON_FIELDS = new Set(['blocks', 'attachments', 'view', 'metadata']);

type Arguments = Record<string, unknown>;

/** The arguments Slack reads from a request, or the error it answers (its common errors for a malformed call). */
function argumentsOf(
  method: string,
  contentType: string | undefined,
  query: URLSearchParams,
  raw: string,
): { args: Arguments } | { error: string } {
  const args: Arguments = Object.fromEntries(query);
  if (raw === '') return { args };
  if (contentType === undefined) return { error: 'missing_post_type' };
  if (contentType === 'application/json') {
    // A method without JSON support does not read the body: it sees only the query's arguments.
    if (!JSON_METHODS.has(method)) return { args };
    try {
      const body = JSON.parse(raw) as unknown;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: 'invalid_json' };
      return { args: { ...args, ...(body as Arguments) } };
    } catch {
      return { error: 'invalid_json' };
    }
  }
  if (contentType === 'application/x-www-form-urlencoded') {
    for (const [name, value] of new URLSearchParams(raw)) {
      args[name] = JSON_FIELDS.has(name) ? parseOr(value) : value;
    }
    return { args };
  }
  return { error: 'invalid_post_type' };
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Slack's answer to one method with `args`, for workspace `teamId`. */
function answerOf(method: string, args: Arguments, teamId: string, clock: { next(): number; now(): number }) {
  switch (method) {
    case 'auth.test':
      return { ok: true, team_id: teamId, user_id: 'U0BOT0000' };
    case 'chat.postMessage': {
      // Every post takes the next ts, so the nth chat.postMessage is 1700000000+n (the tests count on it).
      const ts = clock.next();
      if (typeof args.channel !== 'string') return { ok: false, error: 'channel_not_found' };
      if (args.text === undefined && args.blocks === undefined) return { ok: false, error: 'no_text' };
      return { ok: true, channel: args.channel, ts: `${ts}.000100`, message: { text: args.text } };
    }
    case 'chat.update':
      if (typeof args.channel !== 'string') return { ok: false, error: 'channel_not_found' };
      if (typeof args.ts !== 'string') return { ok: false, error: 'message_not_found' };
      return { ok: true, channel: args.channel, ts: args.ts };
    case 'chat.postEphemeral':
      if (typeof args.channel !== 'string') return { ok: false, error: 'channel_not_found' };
      if (typeof args.user !== 'string') return { ok: false, error: 'user_not_in_channel' };
      return { ok: true, message_ts: `${clock.now()}.000200` };
    case 'views.open':
      if (typeof args.trigger_id !== 'string') return { ok: false, error: 'invalid_trigger_id' };
      if (typeof args.view !== 'object' || args.view === null) return { ok: false, error: 'invalid_arguments' };
      return { ok: true, view: { id: 'V0000001' } };
    case 'users.info': {
      // users.info's reference: `user_not_found` is "Value passed for `user` was invalid", a missing one included.
      const user = SLACK_USERS[String(args.user)];
      if (user === undefined) return { ok: false, error: 'user_not_found' };
      return { ok: true, user: { id: args.user, team_id: teamId, profile: user } };
    }
    default:
      return { ok: false, error: 'unknown_method' };
  }
}

/** The stand-in's own path (not Slack's): `GET` answers `{teamId, calls}`, for `npm run slack:click`. */
export const STAND_IN_RECORD_PATH = '/_stand-in/calls';

/**
 * Starts the stand-in for workspace `teamId`, on `options.port` (default a free one); `onCall` hears of each call as
 * it is recorded (what `npm run slack:stand-in` prints).
 */
export async function startSlackStandIn(
  teamId: string,
  options: { port?: number; host?: string; onCall?: (call: SlackCallRecord) => void } = {},
): Promise<SlackStandIn> {
  const calls: SlackCallRecord[] = [];
  let ts = 1_700_000_000;
  const clock = {
    next: () => {
      ts += 1;
      return ts;
    },
    now: () => ts,
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      if (req.method === 'GET' && url.pathname === STAND_IN_RECORD_PATH) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ teamId, calls }));
        return;
      }
      const method = url.pathname.replace(/^\/+/, '');
      const contentType = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
      const read = argumentsOf(method, contentType, url.searchParams, raw);
      const args = 'args' in read ? read.args : {};
      const bearer = req.headers.authorization?.startsWith('Bearer ') === true;
      const answer: Record<string, unknown> =
        'error' in read
          ? { ok: false, error: read.error }
          : !bearer && typeof args.token !== 'string'
            ? { ok: false, error: 'not_authed' }
            : answerOf(method, args, teamId, clock);
      const call = { method, authorization: req.headers.authorization, contentType, body: args, answer };
      calls.push(call);
      options.onCall?.(call);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/`,
    calls,
    of: (method) => calls.filter((call) => call.method === method),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** API Gateway's payload 2.0 of a Slack interaction (`payload`, form-encoded), signed with `secret` as Slack signs it. */
export function signedInteraction(payload: object, secret: string): APIGatewayProxyEventV2 {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(Math.floor(Date.now() / 1000));
  return {
    version: '2.0',
    routeKey: 'POST /channels/slack/interactions',
    rawPath: '/channels/slack/interactions',
    rawQueryString: '',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': slackSignature(secret, timestamp, body),
    },
    requestContext: {
      accountId: '111122223333',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: {
        method: 'POST',
        path: '/channels/slack/interactions',
        protocol: 'HTTP/1.1',
        sourceIp: '1.2.3.4',
        userAgent: 'Slackbot',
      },
      requestId: `request-${Math.random()}`,
      routeKey: 'POST /channels/slack/interactions',
      stage: '$default',
      time: '',
      timeEpoch: Date.now(),
    },
    body: Buffer.from(body).toString('base64'),
    isBase64Encoded: true,
  };
}
