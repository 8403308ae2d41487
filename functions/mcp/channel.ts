import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { OpenPauseExistsError } from '../errors.ts';
import type { PauseView } from '../wire.ts';
import * as z from '../zod.ts';
import type { HandbackBackend } from './backend.ts';
import { isSessionId } from './claude-session.ts';
import { decidedOf, isClosed, permissionPause } from './permission.ts';

/**
 * `handback channel` (§22): a Claude Code channel server. Each permission prompt of an interactive session that
 * Claude Code relays (`notifications/claude/channel/permission_request`) becomes one `approval` ask in the session's
 * run, `claude-<session>`, made through the backend as any agent's pause — judged by the policies, routed, four eyes
 * and quorum — and the decision that settles it goes back once as `notifications/claude/channel/permission`
 * `{request_id, behavior}`. Claude Code asks one prompt at a time and tells a channel nothing when the terminal
 * answers first (docs/claude-code.md), so a request still open when the next one comes, or when the session ends, was
 * answered at the terminal (or left): its pause is cancelled, saying so, and nothing is sent for it. Only a decision
 * read back from Handback sends anything.
 */

/** The reason a pause is cancelled with when Claude Code no longer waits for it. */
export const ANSWERED_ELSEWHERE = 'answered at the terminal or closed';

/** The notification Claude Code relays a permission prompt with, as the pinned CLI sends it. */
const permissionRequest = z.object({
  method: z.literal('notifications/claude/channel/permission_request'),
  params: z.object({
    request_id: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, _ or -')),
    tool_name: z.string().check(z.minLength(1), z.maxLength(256)),
    description: z.optional(z.string()),
    input_preview: z.optional(z.string()),
  }),
});

/** The Claude Code session the channel serves, from the environment Claude Code starts it with. */
export interface ChannelSession {
  /** `CLAUDE_CODE_SESSION_ID`: a UUID. */
  id: string;
  /** `CLAUDE_PROJECT_DIR`, the session's working directory. */
  cwd: string;
}

/** What the relay runs on. */
export interface ChannelDeps {
  backend: Pick<HandbackBackend, 'pause' | 'getPause' | 'getContinuation' | 'cancel'>;
  session: ChannelSession;
  /** What the session was asked, for the person deciding (the transcript's last prompt), when it can be read. */
  lastPrompt?: () => Promise<string | undefined>;
  /** Where the relay says what it does (stderr: Claude Code keeps it in its debug log). */
  log: (line: string) => void;
  /** Between two reads of a waiting pause. @default 1000 */
  pollMs?: number;
}

/** A running relay: the MCP server to connect, and its end. */
export interface ChannelRelay {
  server: Server;
  /** The session has ended: cancels what still waits (answered at the terminal or left), then closes the server. */
  end(): Promise<void>;
}

/** One relayed request, from its arrival to its one answer (or none). */
interface Relayed {
  requestId: string;
  toolName: string;
  key?: { runId: string; interruptId: string };
  /** `waiting` until a decision is sent (`answered`) or Claude Code no longer waits for it (`withdrawn`). */
  state: 'pausing' | 'waiting' | 'answered' | 'withdrawn';
}

/** A relay for one session. */
export function createChannelRelay(deps: ChannelDeps): ChannelRelay {
  if (!isSessionId(deps.session.id)) {
    throw new Error(`CLAUDE_CODE_SESSION_ID must be a Claude Code session id (a UUID), got ${deps.session.id}.`);
  }
  const runId = `claude-${deps.session.id}`;
  const project = basename(deps.session.cwd) || deps.session.cwd;
  const server = new Server(
    { name: 'handback-channel', version: '0.1.0' },
    {
      capabilities: { experimental: { 'claude/channel': {}, 'claude/channel/permission': {} } },
      instructions:
        "Handback relays this session's permission prompts to the people who decide them (its inbox, Slack, email). It sends no messages into the session.",
    },
  );
  const relayed = new Map<string, Relayed>();
  let ended = false;
  let poller: ReturnType<typeof setTimeout> | undefined;
  // Requests are taken one after the other, as Claude Code asks them: a new one may first withdraw the one before.
  let queue = Promise.resolve();

  server.setNotificationHandler(permissionRequest, (notification) => {
    queue = queue
      .then(() => receive(notification.params))
      .catch((error) => deps.log(`relay failed: ${describe(error)}`));
  });

  async function receive(params: z.infer<typeof permissionRequest>['params']): Promise<void> {
    if (ended || relayed.has(params.request_id)) return;
    const request: Relayed = { requestId: params.request_id, toolName: params.tool_name, state: 'pausing' };
    relayed.set(request.requestId, request);
    // One prompt at a time: one still waiting here was answered at the terminal.
    await withdraw([...relayed.values()].filter((other) => other !== request && other.state === 'waiting'));
    const toolCallId = `channel-${request.requestId}-${randomBytes(6).toString('hex')}`;
    const pause = permissionPause(
      { toolUseId: toolCallId, name: params.tool_name, input: inputOf(params.input_preview) },
      {
        runId,
        context: (await deps.lastPrompt?.().catch(() => undefined)) ?? `A Claude Code session in ${project}`,
        said: params.description,
        prompt: `Claude Code asks to run ${params.tool_name} in ${project}.`,
        // Claude Code takes allow or deny back, never other input.
        editable: false,
        metadata: {
          source: 'claude-code',
          via: 'channel',
          sessionId: deps.session.id,
          cwd: deps.session.cwd,
          project,
          requestId: request.requestId,
        },
      },
    );
    try {
      request.key = await pauseOnce(pause);
    } catch (error) {
      // The prompt stays on the terminal: nothing is sent, the person there decides.
      request.state = 'withdrawn';
      deps.log(`request ${request.requestId} (${request.toolName}) could not be asked in Handback: ${describe(error)}`);
      return;
    }
    if (ended) {
      await withdraw([request]);
      return;
    }
    request.state = 'waiting';
    deps.log(
      `request ${request.requestId} (${request.toolName}) waits in Handback as pause ${request.key.interruptId}`,
    );
    await look(request);
    schedule();
  }

  /** Pauses; a pause of this session left open by a channel that was stopped before it could cancel it is cancelled. */
  async function pauseOnce(pause: ReturnType<typeof permissionPause>) {
    try {
      return await deps.backend.pause(pause);
    } catch (error) {
      if (!(error instanceof OpenPauseExistsError) || error.interruptId === undefined) throw error;
      const left = await deps.backend.getPause({ runId, interruptId: error.interruptId });
      if (left.metadata?.via !== 'channel') throw error;
      await cancel({ runId, interruptId: error.interruptId });
      return deps.backend.pause(pause);
    }
  }

  /** Reads a waiting request's pause; once closed, sends its decision, once. */
  async function look(request: Relayed): Promise<void> {
    if (request.state !== 'waiting' || request.key === undefined) return;
    let view: PauseView;
    try {
      view = await deps.backend.getPause(request.key);
    } catch (error) {
      deps.log(`pause ${request.key.interruptId} could not be read (${describe(error)}); trying again`);
      return;
    }
    if (!isClosed(view) || request.state !== 'waiting') return;
    const continuation =
      view.continuationId === undefined
        ? undefined
        : await deps.backend.getContinuation({ runId: request.key.runId, continuationId: view.continuationId });
    if (request.state !== 'waiting') return;
    const toolCallId = view.asks[0]?.toolCallId ?? '';
    const behavior = decidedOf(view, toolCallId, continuation).behavior;
    // Marked before it is sent: whatever reads the pause next, this request is answered once.
    request.state = 'answered';
    deps.log(`request ${request.requestId}: pause ${request.key.interruptId} is ${view.status}, answering ${behavior}`);
    await server
      .notification({
        method: 'notifications/claude/channel/permission',
        params: { request_id: request.requestId, behavior },
      })
      .catch((error) => deps.log(`the answer to ${request.requestId} could not be sent: ${describe(error)}`));
  }

  function schedule(): void {
    if (ended || poller !== undefined) return;
    const waiting = () => [...relayed.values()].filter((request) => request.state === 'waiting');
    if (waiting().length === 0) return;
    poller = setTimeout(async () => {
      await Promise.all(waiting().map((request) => look(request).catch((error) => deps.log(describe(error)))));
      poller = undefined;
      schedule();
    }, deps.pollMs ?? 1000);
  }

  /** Claude Code no longer waits for these: their pauses are cancelled, and nothing is ever sent for them. */
  async function withdraw(requests: Relayed[]): Promise<void> {
    await Promise.all(
      requests.map(async (request) => {
        request.state = 'withdrawn';
        if (request.key === undefined) return;
        await cancel(request.key);
        deps.log(`request ${request.requestId}: pause ${request.key.interruptId} cancelled (${ANSWERED_ELSEWHERE})`);
      }),
    );
  }

  async function cancel(key: { runId: string; interruptId: string }): Promise<void> {
    try {
      await deps.backend.cancel({ ...key, reason: ANSWERED_ELSEWHERE });
    } catch (error) {
      // Decided or closed meanwhile: nothing is sent for it all the same.
      deps.log(`pause ${key.interruptId} was not cancelled: ${describe(error)}`);
    }
  }

  return {
    server,
    async end() {
      if (ended) return;
      ended = true;
      if (poller !== undefined) clearTimeout(poller);
      // A request being paused now is withdrawn by its own handler once its pause is made (`ended`).
      await Promise.all([withdraw([...relayed.values()].filter((request) => request.state === 'waiting')), queue]);
      await server.close();
    },
  };
}

/**
 * The call's input as Claude Code previews it: the object when the preview is JSON (it is, unless a long value was
 * cut), else the preview's text — what people and policies see; the call runs with Claude Code's own input.
 */
export function inputOf(preview: string | undefined): Record<string, unknown> {
  if (preview === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(preview);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Cut: shown as it came.
  }
  return { input_preview: preview };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
