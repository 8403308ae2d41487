import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { slackSignature } from '../../functions/channels/slack-api.ts';

/**
 * A local stand-in for Slack's Web API: records every call (method, token, JSON body) and answers as Slack documents
 * each method (`chat.postMessage` → `{ok, channel, ts}`, `users.info` → `{ok, user}`, `auth.test` → `{ok, team_id}`).
 */

/** One recorded call. */
export interface SlackCallRecord {
  method: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
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

/** Slack users the stand-in knows. */
export const SLACK_USERS: Record<string, { email: string; real_name: string }> = {
  U0ALICE01: { email: 'alice@example.com', real_name: 'Alice Approver' },
  U0BOB0002: { email: 'bob@example.com', real_name: 'Bob Builder' },
};

/** Starts the stand-in for workspace `teamId`. */
export async function startSlackStandIn(teamId: string): Promise<SlackStandIn> {
  const calls: SlackCallRecord[] = [];
  let ts = 1_700_000_000;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const method = (req.url ?? '').replace(/^\/+/, '');
      const body = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
      calls.push({ method, authorization: req.headers.authorization, body });
      const answer = (() => {
        switch (method) {
          case 'auth.test':
            return { ok: true, team_id: teamId, user_id: 'U0BOT0000' };
          case 'chat.postMessage':
            ts += 1;
            return { ok: true, channel: body.channel, ts: `${ts}.000100`, message: { text: body.text } };
          case 'chat.update':
            return { ok: true, channel: body.channel, ts: body.ts };
          case 'chat.postEphemeral':
            return { ok: true, message_ts: `${ts}.000200` };
          case 'views.open':
            return { ok: true, view: { id: 'V0000001' } };
          case 'users.info': {
            const user = SLACK_USERS[String(body.user)];
            if (user === undefined) return { ok: false, error: 'user_not_found' };
            return { ok: true, user: { id: body.user, team_id: teamId, profile: user } };
          }
          default:
            return { ok: false, error: 'unknown_method' };
        }
      })();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
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
