import type { PausePage, PauseView } from '../checkpoints/checkpoint-store.ts';
import { BadRequestError, type HandbackError } from '../errors.ts';
import type { ClaimResult, ExecutionClaimed, ExecutionEnded } from '../wire.ts';
import { errorOf, HandbackHttpError } from './problems.ts';
import type {
  ClientContinuation,
  ClientDecideResult,
  ClientPauseCreated,
  CreateLinkInput,
  HandbackClient,
  LinkCreated,
  LinkDelivered,
} from './types.ts';

/**
 * The HTTP client (§15): the store's operations over the HTTP API (§5, §9–§13), with nothing but `fetch` — no Node
 * module, no Buffer, nothing of the server — so it runs on Node 20+, Lambda, Deno and in browsers. Every attempt has
 * a timeout; the requests the contract makes safe to repeat (a pause under one `Idempotency-Key`, a resume or
 * decision that replays, a cancel, every read) are retried on a 503 or when no answer came, with backoff that
 * honours `Retry-After`. A body whose `messages` were left out past 5 MB (`messagesOmitted`) is completed from the
 * slices the API serves, so the caller always gets the whole transcript.
 */

/** How to reach the API. */
export interface HandbackClientOptions {
  /** The API's base URL (the local service's `http://127.0.0.1:3000`, or the HTTP API's URL with its stage). */
  baseUrl: string;
  /** A bearer token, or a function returning one, called before each attempt (so a refreshed token is used). */
  token?: string | (() => string | Promise<string>);
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Milliseconds one attempt may take before it is abandoned. @default 10000 */
  timeoutMs?: number;
  /** Attempts of a request that is safe to repeat, the first included. @default 3 */
  maxAttempts?: number;
  /** The first retry's delay when the service names none; each further one doubles it (with jitter). @default 250 */
  retryDelayMs?: number;
}

/**
 * The routes the client calls (§5, §9–§13): method, path and the success statuses it reads; `retried` when the
 * contract makes the request safe to repeat. The OpenAPI document is checked against this table.
 */
export const CLIENT_ROUTES = {
  pause: { method: 'POST', path: '/runs/{runId}/pauses', success: [200, 201], retried: true },
  resume: { method: 'POST', path: '/runs/{runId}/resume', success: [200], retried: true },
  decide: { method: 'POST', path: '/runs/{runId}/resume', success: [200, 202], retried: true },
  cancel: { method: 'POST', path: '/runs/{runId}/pauses/{interruptId}/cancel', success: [200], retried: true },
  getPause: { method: 'GET', path: '/runs/{runId}/pauses/{interruptId}', success: [200], retried: true },
  getContinuation: {
    method: 'GET',
    path: '/runs/{runId}/continuations/{continuationId}',
    success: [200],
    retried: true,
  },
  listPauses: { method: 'GET', path: '/pauses', success: [200], retried: true },
  // The same claimant again is told the same: safe to repeat.
  claim: { method: 'POST', path: '/runs/{runId}/pauses/{interruptId}/claim', success: [200], retried: true },
  // §19: a retried claim carries its first attempt's Idempotency-Key, so it is the same claim; the same end replays.
  claimExecution: {
    method: 'POST',
    path: '/runs/{runId}/continuations/{continuationId}/executions',
    success: [200],
    retried: true,
  },
  finishExecution: {
    method: 'PUT',
    path: '/runs/{runId}/continuations/{continuationId}/executions/{toolCallId}',
    success: [200],
    retried: true,
  },
  // Not repeated: each request mints a link of its own, and a second one is a second capability.
  createLink: { method: 'POST', path: '/runs/{runId}/pauses/{interruptId}/links', success: [201, 202], retried: false },
} as const satisfies Record<
  keyof HandbackClient,
  { method: 'GET' | 'POST' | 'PUT'; path: string; success: readonly number[]; retried: boolean }
>;

/** The longest wait between two attempts, whatever `Retry-After` says. */
const MAX_RETRY_DELAY_MS = 20_000;

interface Call {
  method: 'GET' | 'POST' | 'PUT';
  /** The path, its ids filled in. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Whether the contract makes this request safe to repeat. */
  retry: boolean;
  /** The ids the request names, carried over into its errors. */
  ids: Record<string, string>;
}

interface Answer {
  status: number;
  body: unknown;
}

/** A client on the HTTP API at `baseUrl`. */
export function createHandbackClient(options: HandbackClientOptions): HandbackClient {
  const base = String(options?.baseUrl ?? '').replace(/\/+$/, '');
  if (!/^https?:\/\/./i.test(base)) {
    throw new BadRequestError('createHandbackClient needs a baseUrl such as http://127.0.0.1:3000.', [
      { path: '/baseUrl', message: 'must be an http or https URL' },
    ]);
  }
  const send = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
  const retryDelayMs = options.retryDelayMs ?? 250;

  const headersFor = async (call: Call): Promise<Record<string, string>> => {
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const token = typeof options.token === 'function' ? await options.token() : options.token;
    if (token !== undefined && token !== '') headers.authorization = `Bearer ${token}`;
    return headers;
  };

  const request = async (call: Call): Promise<Answer> => {
    const url = base + call.path + queryString(call.query);
    const init = { method: call.method, ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }) };
    for (let attempt = 1; ; attempt++) {
      const last = !call.retry || attempt >= maxAttempts;
      let answer: Answer & { retryAfter: number | undefined };
      try {
        const signal = AbortSignal.timeout(timeoutMs);
        const response = await send(url, { ...init, headers: await headersFor(call), signal });
        const text = await response.text();
        answer = { status: response.status, body: parseJson(text), retryAfter: retryAfterMs(response.headers) };
      } catch (error) {
        if (!last) {
          await sleep(backoff(attempt, retryDelayMs));
          continue;
        }
        throw noAnswer(call, error, timeoutMs, attempt);
      }
      if (answer.status === 503 && !last) {
        await sleep(answer.retryAfter ?? backoff(attempt, retryDelayMs));
        continue;
      }
      if (answer.status >= 400) {
        throw errorOf(answer.status, answer.body, {
          ids: call.ids,
          ...(answer.retryAfter === undefined ? {} : { retryAfterSeconds: answer.retryAfter / 1000 }),
        });
      }
      return answer;
    }
  };

  /** `body` with its messages whole: read in slices from `path` (with `query`) when the service left them out. */
  const whole = async <T extends object>(
    body: T,
    path: string,
    query: Record<string, string | undefined>,
    ids: Record<string, string>,
  ): Promise<T> => {
    const { messagesOmitted, total: _total, from: _from, next: _next, ...rest } = body as Record<string, unknown>;
    if (messagesOmitted !== true) return rest as T;
    const messages: unknown[] = [];
    let from: number | undefined = 0;
    while (from !== undefined) {
      const slice = await request({ method: 'GET', path, query: { ...query, from: String(from) }, retry: true, ids });
      const page = slice.body as { messages?: unknown[]; next?: number };
      if (!Array.isArray(page.messages)) {
        throw new HandbackHttpError(`GET ${path} answered a slice without messages from ${from}.`, { status: 200 });
      }
      messages.push(...page.messages);
      from = typeof page.next === 'number' && page.next > from ? page.next : undefined;
    }
    return { ...rest, messages } as T;
  };

  /** A call of one of `CLIENT_ROUTES`, its path filled with `ids`. */
  const call = (
    name: keyof typeof CLIENT_ROUTES,
    ids: Record<string, string>,
    rest: Pick<Call, 'body' | 'query' | 'headers'> = {},
  ): Call => {
    const route = CLIENT_ROUTES[name];
    const path = route.path.replace(/\{(\w+)\}/g, (_, id: string) => encodeURIComponent(String(ids[id])));
    return { method: route.method, path, retry: route.retried, ids, ...rest };
  };

  /** A 200 resume body, its messages read whole from the continuation when they were left out. */
  const continuationOf = (body: unknown, runId: string): Promise<ClientContinuation> => {
    const continuation = body as ClientContinuation;
    const ids = { runId, continuationId: continuation.continuationId };
    return whole(continuation, call('getContinuation', ids).path, {}, ids);
  };

  return {
    async pause(input) {
      const { idempotencyKey, runId, traceparent, ...body } = input;
      // One key for every attempt: a retry after an unclear failure returns the first attempt's pause (§5).
      const key = idempotencyKey ?? crypto.randomUUID();
      // §21: the trace the pause joins travels as its W3C header, as every instrumented HTTP client sends it.
      const headers = { 'idempotency-key': key, ...(traceparent === undefined ? {} : { traceparent }) };
      const answer = await request(call('pause', { runId }, { body, headers }));
      const created = answer.body as ClientPauseCreated;
      // The deployment's policies decided every ask (§17): the 200 is the closed pause, its messages whole.
      if (created.status === 'resumed') return { ...created, ...(await continuationOf(created, runId)) };
      return created;
    },

    async resume({ runId, interruptId, answer }) {
      const response = await request(call('resume', { runId, interruptId }, { body: { interruptId, answer } }));
      return continuationOf(response.body, runId);
    },

    async decide({ runId, interruptId, decisions }): Promise<ClientDecideResult> {
      const response = await request(call('decide', { runId, interruptId }, { body: { interruptId, decisions } }));
      if (response.status === 202) return { kind: 'pending', ...(response.body as object) } as ClientDecideResult;
      return { kind: 'closed', ...(await continuationOf(response.body, runId)) };
    },

    async cancel({ runId, interruptId, reason }) {
      const body = reason === undefined ? {} : { reason };
      const response = await request(call('cancel', { runId, interruptId }, { body }));
      return continuationOf(response.body, runId);
    },

    async getPause({ runId, interruptId }, options = {}) {
      const query = options.includeMessages ? { include: 'messages' } : {};
      const read = call('getPause', { runId, interruptId }, { query });
      const response = await request(read);
      return whole(response.body as PauseView, read.path, query, read.ids);
    },

    async getContinuation({ runId, continuationId }) {
      const read = call('getContinuation', { runId, continuationId });
      const response = await request(read);
      return whole(response.body as ClientContinuation, read.path, {}, read.ids);
    },

    async listPauses(query = {}) {
      const response = await request(
        call(
          'listPauses',
          {},
          {
            query: {
              status: query.status,
              limit: query.limit === undefined ? undefined : String(query.limit),
              cursor: query.cursor,
              mine: query.mine ? 'true' : undefined,
            },
          },
        ),
      );
      return response.body as PausePage;
    },

    async claim({ runId, interruptId, claimant }) {
      const response = await request(call('claim', { runId, interruptId }, { body: { claimant } }));
      return response.body as ClaimResult;
    },

    async claimExecution({ runId, continuationId, toolCallId, idempotencyKey }) {
      // One key for every attempt: a retry after an unclear failure is the first attempt's claim, not a second one.
      const headers = { 'idempotency-key': idempotencyKey ?? crypto.randomUUID() };
      const answer = await request(
        call('claimExecution', { runId, continuationId, toolCallId }, { body: { toolCallId }, headers }),
      );
      return answer.body as ExecutionClaimed;
    },

    async finishExecution({ runId, continuationId, toolCallId, status, detail }) {
      const body = { status, ...(detail === undefined ? {} : { detail }) };
      const answer = await request(call('finishExecution', { runId, continuationId, toolCallId }, { body }));
      return answer.body as ExecutionEnded;
    },

    async createLink({ runId, interruptId, email, name, deliver }: CreateLinkInput) {
      const body = { email, ...(name === undefined ? {} : { name }), ...(deliver === true ? { deliver } : {}) };
      const response = await request(call('createLink', { runId, interruptId }, { body }));
      return response.body as LinkCreated & LinkDelivered;
    },
  };
}

function queryString(query: Record<string, string | undefined> = {}): string {
  const entries = Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries).toString()}`;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `Retry-After` in milliseconds: delay-seconds or an HTTP date (RFC 9110, section 10.2.3), at most `MAX_RETRY_DELAY_MS`. */
function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const ms = /^\s*\d+\s*$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), MAX_RETRY_DELAY_MS) : undefined;
}

/** Exponential backoff with full jitter (the delay for attempt n is up to base · 2^(n−1)). */
function backoff(attempt: number, baseMs: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, Math.random() * baseMs * 2 ** (attempt - 1));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The error for a request that got no answer: timed out, or the network failed. */
function noAnswer(call: Call, error: unknown, timeoutMs: number, attempts: number): HandbackError {
  const timedOut = (error as { name?: unknown } | null)?.name === 'TimeoutError';
  const what = timedOut ? `timed out after ${timeoutMs} ms` : 'got no answer (a network failure)';
  const tries = attempts === 1 ? '' : ` on each of ${attempts} attempts`;
  return new HandbackHttpError(
    `${call.method} ${call.path} ${what}${tries}. It may or may not have been carried out; ${call.retry ? 'repeating it is safe.' : 'read the pause before repeating it.'}`,
    { code: timedOut ? 'timeout' : 'network_error', cause: error },
  );
}
