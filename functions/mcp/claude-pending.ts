import { PauseNotFoundError } from '../errors.ts';
import type { HandbackBackend } from './backend.ts';
import { type DeferredSession, listDeferred } from './claude-deferred.ts';
import { isClosed, pauseUrl } from './permission.ts';

/**
 * `handback claude-pending` (§22): the calls Claude Code's hook deferred on this machine (`claude -p` runs that ended
 * with `tool_deferred`), each with where its pause stands — still waiting for a person, or closed and waiting for
 * `claude-resume`.
 */

/** One deferred call and its pause's state now. */
export interface PendingCall extends DeferredSession {
  /** `waiting` while people decide; the pause's status once closed; `gone` or `unknown` when it cannot be read. */
  state: string;
  /** The pause's inbox page, when the inbox is known. */
  url?: string;
}

/** Every deferred call, oldest first, with its pause read through `backend` (without one, its state is unknown). */
export async function pendingCalls(
  env: NodeJS.ProcessEnv,
  backend: Pick<HandbackBackend, 'getPause' | 'inboxUrl'> | undefined,
): Promise<PendingCall[]> {
  const calls: PendingCall[] = [];
  for (const session of await listDeferred(env)) {
    const url = backend?.inboxUrl === undefined ? {} : { url: pauseUrl(backend.inboxUrl, session) };
    let state = 'unknown';
    if (backend !== undefined) {
      try {
        const view = await backend.getPause({ runId: session.runId, interruptId: session.interruptId });
        state = isClosed(view) ? view.status : 'waiting';
      } catch (error) {
        state = error instanceof PauseNotFoundError ? 'gone' : 'unknown';
      }
    }
    calls.push({ ...session, state, ...url });
  }
  return calls;
}

/** The calls as lines of text, one per call, and a line when there is none. */
export function pendingLines(calls: readonly PendingCall[]): string[] {
  if (calls.length === 0) return ['No deferred Claude Code calls on this machine.'];
  return calls.map((call) => {
    const state =
      call.state === 'waiting'
        ? 'waiting for a decision'
        : call.state === 'unknown' || call.state === 'gone'
          ? call.state
          : `${call.state}: claude-resume resumes it`;
    return `${call.deferredAt}  ${call.toolName}  ${state}  session ${call.sessionId}  in ${call.cwd}  pause ${call.interruptId}${call.url === undefined ? '' : `  ${call.url}`}`;
  });
}
