import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import type { PauseView } from '../../functions/wire.ts';
import { mintToken } from '../../scripts/token.ts';
import { type RunningService, request, startService } from '../black-box/service.ts';

/**
 * A Handback service as `npm start` runs it, with tokens (HS256, `HANDBACK_JWT_SECRET`) for an agent
 * (`handback/agent`) and a person (`handback/decide`), on a table of its own in the tests' DynamoDB-compatible
 * server — so a coding agent may reach it by URL or share its store (`DYNAMODB_ENDPOINT` and `TABLE_NAME`) — and a
 * person who decides as the inbox does: over the HTTP API, with the ask's `argsHash`.
 */

/** The tenant the tokens name. */
export const TENANT = 'acme';

/** A running service and who may call it. */
export interface Handback {
  service: RunningService;
  url: string;
  /** The store the service runs on, for a coding agent without a URL. */
  store: { DYNAMODB_ENDPOINT: string; TABLE_NAME: string; HANDBACK_TENANT: string };
  agentToken: string;
  personToken: string;
  /** A token with neither of Handback's scopes. */
  unscopedToken: string;
  person: Person;
  stop(): Promise<unknown>;
}

/** Starts the service with `env` on top of the tokens' secret and its own table. */
export async function startHandback(env: Record<string, string> = {}): Promise<Handback> {
  const secret = `a-test-secret-of-more-than-32-bytes-${randomUUID()}`;
  const store = {
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    TABLE_NAME: `mcp-${randomUUID()}`,
    HANDBACK_TENANT: TENANT,
  };
  const service = await startService({
    HANDBACK_JWT_SECRET: secret,
    DYNAMODB_ENDPOINT: store.DYNAMODB_ENDPOINT,
    TABLE_NAME: store.TABLE_NAME,
    ...env,
  });
  const tokenEnv = { HANDBACK_JWT_SECRET: secret };
  const [agentToken, personToken, unscopedToken] = await Promise.all([
    mintToken(['--sub', 'claude-code-agent', '--scope', 'handback/agent', '--tenant', TENANT], tokenEnv),
    mintToken(['--sub', 'ann', '--name', 'Ann', '--scope', 'openid handback/decide', '--tenant', TENANT], tokenEnv),
    mintToken(['--sub', 'someone', '--scope', 'openid email', '--tenant', TENANT], tokenEnv),
  ]);
  return {
    service,
    url: service.url,
    store,
    agentToken,
    personToken,
    unscopedToken,
    person: person(service.url, personToken),
    stop: () => service.stop(),
  };
}

/** What a person does in the inbox, over the same HTTP API. */
export interface Person {
  /** The open pause of `runId`, once it is there. */
  waitingPause(runId: string, timeoutMs?: number): Promise<PauseView>;
  /** The pause as the person sees it now. */
  read(runId: string, interruptId: string): Promise<PauseView>;
  /** Decides the pause's one ask: approve, edit with `args`, or reject with `reason`. */
  decide(
    view: PauseView,
    decision:
      | { decision: 'approve' }
      | { decision: 'edit'; args: Record<string, unknown> }
      | { decision: 'reject'; reason: string },
    // biome-ignore lint/suspicious/noExplicitAny: responses are read as loose JSON in the tests
  ): Promise<{ status: number; body: any }>;
  /** Answers the pause's one `answer` ask. */
  // biome-ignore lint/suspicious/noExplicitAny: responses are read as loose JSON in the tests
  answer(view: PauseView, answer: unknown): Promise<{ status: number; body: any }>;
}

function person(url: string, token: string): Person {
  const auth = { authorization: `Bearer ${token}` };
  return {
    async waitingPause(runId, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const page = await request(`${url}/pauses?status=paused&limit=100`, 'GET', undefined, auth);
        const found = (page.body.items as PauseView[]).find((item) => item.runId === runId);
        if (found !== undefined) return found;
        if (Date.now() > deadline) throw new Error(`No open pause of run ${runId} after ${timeoutMs} ms.`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    async read(runId, interruptId) {
      return (await request(`${url}/runs/${runId}/pauses/${interruptId}`, 'GET', undefined, auth)).body as PauseView;
    },
    async decide(view, decision) {
      const ask = view.asks[0] as PauseView['asks'][number] & { argsHash?: string };
      const body = {
        interruptId: view.interruptId,
        decisions: [
          {
            toolCallId: ask.toolCallId,
            ...decision,
            ...(ask.argsHash === undefined ? {} : { argsHash: ask.argsHash }),
          },
        ],
      };
      return request(`${url}/runs/${view.runId}/resume`, 'POST', body, auth);
    },
    async answer(view, answer) {
      const ask = view.asks[0] as PauseView['asks'][number];
      const body = { interruptId: view.interruptId, decisions: [{ toolCallId: ask.toolCallId, answer }] };
      return request(`${url}/runs/${view.runId}/resume`, 'POST', body, auth);
    },
  };
}
