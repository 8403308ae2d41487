import { createHandbackClient } from '../client/client.ts';
import type {
  ClientCancelInput,
  ClientClaimExecutionInput,
  ClientClaimInput,
  ClientContinuation,
  ClientContinuationKey,
  ClientFinishExecutionInput,
  ClientPauseInput,
  ClientPauseKey,
} from '../client/types.ts';
import { IdempotencyKeyReusedError } from '../errors.ts';
import { mcpWaitSeconds as MCP_WAIT_SECONDS } from '../settings.ts';
import { LIMITS } from '../vocabulary.ts';
import type { Actor, ClaimResult, ExecutionClaimed, ExecutionEnded, PauseView } from '../wire.ts';

/**
 * Where the coding-agent commands (§18, §22: `handback mcp`, `handback channel`, `handback claude-hook`,
 * `handback claude-resume`) reach Handback, as an agent would: a Handback service by URL (`HANDBACK_URL`,
 * `HANDBACK_TOKEN`, through `handback/client`), or, without a URL, a store of their own on the same table as the
 * service people decide in (`DYNAMODB_ENDPOINT` and `TABLE_NAME`: DynamoDB Local, or the stack's table by its regional
 * endpoint), through the library's store. Both do the same: pause, read, cancel, claim a closed pause's hand-off or a
 * dispatched call's execution (§19).
 */

/** What the commands need of Handback. */
export interface HandbackBackend {
  /** Records a pause (the same key and body again return it, §5); a pause a policy closed at once comes back closed. */
  pause(input: ClientPauseInput): Promise<{ runId: string; interruptId: string }>;
  /** One pause as it is now, strongly consistent. */
  getPause(key: ClientPauseKey): Promise<PauseView>;
  /** The continuation that closed a pause. */
  getContinuation(key: ClientContinuationKey): Promise<ClientContinuation>;
  /** Claims a closed pause's hand-off (§18): true for the first claimant and its retries. */
  claim(input: ClientClaimInput): Promise<ClaimResult>;
  /** §19: claims a dispatched call before it runs: the call to run, once, or why not (`AlreadyClaimedError`, …). */
  claimExecution(input: ClientClaimExecutionInput): Promise<ExecutionClaimed>;
  /** §19: records how a claimed call ended (its claimant only, once): the hook's `PostToolUse`. */
  finishExecution(input: ClientFinishExecutionInput): Promise<ExecutionEnded>;
  /** Cancels an open pause with a reason (§10), as the agent that made it. */
  cancel(input: ClientCancelInput): Promise<unknown>;
  /** The inbox page where people decide, when it is known. */
  inboxUrl?: string;
  /** Where this backend is, for messages: the service's URL, or the store's. */
  where: string;
  /** Lets go of what the backend holds (the embedded store, a client's sockets). */
  close(): Promise<void>;
}

/** A setting that cannot work; its message says which and what to set. */
export class BackendConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackendConfigError';
  }
}

/** Who pauses through a store backend (over HTTP the token says who): the MCP server, Claude Code's hook. */
export const AGENTS = {
  mcp: { kind: 'agent', subject: 'handback-mcp', via: 'library' },
  claudeCode: { kind: 'agent', subject: 'claude-code', via: 'library' },
} as const satisfies Record<string, Actor>;

/**
 * The backend the environment names: `HANDBACK_URL` (with `HANDBACK_TOKEN`, an agent token; `HANDBACK_INBOX_URL`,
 * else the service's `/inbox`), or `DYNAMODB_ENDPOINT` with `TABLE_NAME` (default `handback`)
 * and `HANDBACK_TENANT` (default `default`), pausing as `agent`. `timeoutMs`: one request's limit over HTTP.
 */
export async function backendFromEnv(
  env: NodeJS.ProcessEnv,
  agent: Actor,
  options: { timeoutMs?: number } = {},
): Promise<HandbackBackend> {
  const url = env.HANDBACK_URL?.trim();
  const inboxUrl = env.HANDBACK_INBOX_URL?.trim() || undefined;
  if (url) {
    let client: ReturnType<typeof createHandbackClient>;
    try {
      const token = env.HANDBACK_TOKEN?.trim();
      client = createHandbackClient({
        baseUrl: url,
        ...(token ? { token } : {}),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      });
    } catch {
      throw new BackendConfigError(`HANDBACK_URL=${url} is not a URL: set it to the Handback service's base URL.`);
    }
    return {
      pause: (input) => client.pause(input),
      getPause: (key) => client.getPause(key),
      getContinuation: (key) => client.getContinuation(key),
      claim: (input) => client.claim(input),
      claimExecution: (input) => client.claimExecution(input),
      finishExecution: (input) => client.finishExecution(input),
      cancel: (input) => client.cancel(input),
      inboxUrl: inboxUrl ?? `${url.replace(/\/+$/, '')}/inbox`,
      where: url,
      close: async () => {},
    };
  }
  const endpoint = env.DYNAMODB_ENDPOINT?.trim();
  if (!endpoint) {
    throw new BackendConfigError(
      'Handback is not configured: set HANDBACK_URL (and HANDBACK_TOKEN) to reach a Handback service, or DYNAMODB_ENDPOINT (and TABLE_NAME) for the store the service runs on.',
    );
  }
  // The store's modules (the AWS SDK, the rules) are loaded only by a backend that uses them.
  const { storeBackend } = await import('./store-backend.ts');
  return storeBackend({
    endpoint,
    tableName: env.TABLE_NAME?.trim() || 'handback',
    tenant: env.HANDBACK_TENANT?.trim() || LIMITS.defaultTenant,
    agent,
    env,
    transcripts: {
      bucket: env.TRANSCRIPT_BUCKET?.trim() || undefined,
      endpoint: env.HANDBACK_S3_ENDPOINT?.trim() || undefined,
    },
    ...(inboxUrl === undefined ? {} : { inboxUrl }),
  });
}

/**
 * Pauses, or meets the pause this call made before: the same body replays it (open or closed); the same call asked
 * with another body (another prompt) is its run's pause all the same.
 */
export async function pauseOrMeet(
  backend: Pick<HandbackBackend, 'pause'>,
  input: ClientPauseInput,
): Promise<{ runId: string; interruptId: string }> {
  try {
    const { runId, interruptId } = await backend.pause(input);
    return { runId, interruptId };
  } catch (error) {
    if (error instanceof IdempotencyKeyReusedError && typeof error.interruptId === 'string') {
      return { runId: input.runId, interruptId: error.interruptId };
    }
    throw error;
  }
}

/** The milliseconds one call waits: `HANDBACK_MCP_WAIT_SECONDS` (default `LIMITS.mcpWaitSeconds.default`), at most `maxSeconds`. */
export function waitMsFromEnv(env: NodeJS.ProcessEnv, maxSeconds?: number): number {
  return mcpWaitMs(env[MCP_WAIT_SECONDS.env], maxSeconds);
}

/** The milliseconds one call waits, from the setting's text (default `LIMITS.mcpWaitSeconds.default`), at most `maxSeconds`. */
export function mcpWaitMs(text: string | undefined, maxSeconds?: number): number {
  const raw = text?.trim();
  const seconds = raw === undefined || raw === '' ? LIMITS.mcpWaitSeconds.default : Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new Error(`${MCP_WAIT_SECONDS.env}=${raw} must be a number of seconds above 0.`);
  }
  return Math.round(Math.min(seconds, maxSeconds ?? seconds) * 1000);
}
