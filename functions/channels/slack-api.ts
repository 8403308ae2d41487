import { createHmac, timingSafeEqual } from 'node:crypto';
import { slackApiUrl } from '../settings.ts';

/**
 * Slack's Web API by plain `fetch` (docs/choices.md says why not `@slack/web-api`), and Slack's request signature.
 * A call answers Slack's JSON; `ok: false` is a `SlackApiError` naming the method and Slack's `error`.
 */

/** Slack answered `ok: false`, or not at all. */
export class SlackApiError extends Error {
  readonly method: string;
  readonly slackError: string;
  constructor(method: string, slackError: string) {
    super(`Slack's ${method} failed: ${slackError}`);
    this.name = 'SlackApiError';
    this.method = method;
    this.slackError = slackError;
  }
}

/**
 * How each method this service calls takes its arguments, as its page in Slack's method reference says ("Content
 * types"). Slack reads a JSON body only on the write methods that accept one; a read method such as `users.info` or
 * `auth.test` takes form-encoded arguments (or query parameters) and, sent JSON, sees no arguments at all (`users.info`
 * then answers `user_not_found`). A method missing here cannot be called: TypeScript refuses it.
 */
export const SLACK_METHODS = {
  'auth.test': 'form',
  'users.info': 'form',
  'chat.postMessage': 'json',
  'chat.update': 'json',
  'chat.postEphemeral': 'json',
  'views.open': 'json',
} as const;
/** A Slack Web API method this service calls. */
export type SlackMethod = keyof typeof SLACK_METHODS;

/** Calls Slack's Web API with a bot token. */
export type SlackCall = <T = Record<string, unknown>>(method: SlackMethod, args: Record<string, unknown>) => Promise<T>;

/** The default base URL of Slack's Web API. */
export const SLACK_API_URL: string = slackApiUrl.default;

/** A method's arguments as Slack takes them: a JSON body, or form fields (an object or array field as its JSON). */
export function slackRequestBody(method: SlackMethod, args: Record<string, unknown>): { type: string; body: string } {
  if (SLACK_METHODS[method] === 'json') {
    return { type: 'application/json; charset=utf-8', body: JSON.stringify(args) };
  }
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    form.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return { type: 'application/x-www-form-urlencoded', body: form.toString() };
}

/** A caller of `apiUrl` (default Slack's) with `token`; each call gives up after `timeoutMs`. */
export function createSlackCall(token: string, options: { apiUrl?: string; timeoutMs?: number } = {}): SlackCall {
  const base = (options.apiUrl ?? SLACK_API_URL).replace(/\/?$/, '/');
  const timeoutMs = options.timeoutMs ?? 2_000;
  return async <T>(method: SlackMethod, args: Record<string, unknown>) => {
    const { type, body } = slackRequestBody(method, args);
    let response: Response;
    try {
      response = await fetch(`${base}${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': type },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new SlackApiError(method, error instanceof Error ? error.name : 'request_failed');
    }
    const answer = (await response.json().catch(() => ({ ok: false, error: `http_${response.status}` }))) as {
      ok?: boolean;
      error?: string;
    };
    if (answer.ok !== true) throw new SlackApiError(method, answer.error ?? `http_${response.status}`);
    return answer as T;
  };
}

/** Slack's window for a request's timestamp, in seconds. */
export const SLACK_SIGNATURE_WINDOW_SECONDS = 300;

/**
 * Whether a request is Slack's: `X-Slack-Signature` is `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{raw body}` with the
 * signing secret, and the timestamp is within 300 s of `nowSeconds` (compared in constant time).
 */
export function isSlackSignature(request: {
  secret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  body: string;
  nowSeconds: number;
}): boolean {
  const { secret, timestamp, signature, body, nowSeconds } = request;
  if (timestamp === undefined || signature === undefined || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > SLACK_SIGNATURE_WINDOW_SECONDS) return false;
  const expected = Buffer.from(`v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Signs a request as Slack does (for tests and tools). */
export function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}
