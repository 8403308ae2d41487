import { spawn } from 'node:child_process';
import { PauseNotFoundError } from '../errors.ts';
import type { HandbackBackend } from './backend.ts';
import { type DeferredSession, forgetDeferred, listDeferred, takeDeferred } from './claude-deferred.ts';
import { isSessionId, sessionOfRun } from './claude-session.ts';
import { isClosed, pauseUrl } from './permission.ts';

/**
 * `handback claude-resume` (§18): the local hand-off of Claude Code's durable loop. It reads the sessions the hook
 * deferred on this machine (`claude-deferred.ts`), and for each whose pause has closed — decided, cancelled or
 * expired — runs `claude -p --resume <session>` once, in the session's own directory; the hook, run again by that
 * resume, answers the decision. With `--watch` it does so every few seconds until stopped, telling each session's
 * state once as it changes (§22): waiting for a decision, decided, resuming, ran, deferred again. A resume that exits
 * 0 while its decided call's execution is still unclaimed (§19: the call did not run, and was not denied) failed: its
 * record is given back for the next pass, and the command exits 1, so nothing approved is lost. On AWS the same
 * hand-off is a consumer of the stack's hand-off queue (docs/claude-code.md).
 */

/** A deferred session's states, as `claude-resume` tells them. */
export type SessionState = 'waiting for a decision' | 'decided' | 'resuming' | 'ran' | 'deferred again' | 'failed';

/** How sessions are resumed. */
export interface ResumeOptions {
  env: NodeJS.ProcessEnv;
  backend: Pick<HandbackBackend, 'getPause' | 'inboxUrl'>;
  /** The Claude Code command. */
  claude: string;
  /** More arguments for each resume, after `-p --resume <session>`. */
  args: readonly string[];
  /** Where progress is told. */
  log: (line: string) => void;
  /** The state last told per pause, so that passes after the first tell only what changed. @default a new map */
  told?: Map<string, SessionState>;
}

/** What one pass did, by session id. */
export interface ResumePass {
  resumed: string[];
  failed: string[];
  waiting: string[];
}

/** One pass: resumes each recorded session whose pause has closed, once; the others wait for the next pass. */
export async function resumeClosedSessions(options: ResumeOptions): Promise<ResumePass> {
  const pass: ResumePass = { resumed: [], failed: [], waiting: [] };
  const told = options.told ?? new Map<string, SessionState>();
  const tell = (session: DeferredSession, state: SessionState, detail: string) => {
    if (told.get(session.interruptId) === state) return;
    told.set(session.interruptId, state);
    options.log(`session ${session.sessionId}: ${state} (${detail})`);
  };
  for (const session of await listDeferred(options.env)) {
    // A record is a file anyone on the machine may have written: only a session id reaches the command line.
    if (!isSessionId(session.sessionId) || session.runId !== `claude-${session.sessionId}`) {
      options.log(
        `Refused the deferred record of pause ${session.interruptId}: session ${JSON.stringify(session.sessionId)} of run ${JSON.stringify(session.runId)} is not a Claude Code session (a UUID); nothing was started, and the record is forgotten.`,
      );
      await forgetDeferred(options.env, session.interruptId);
      pass.failed.push(String(session.sessionId));
      continue;
    }
    let status: string;
    try {
      const view = await options.backend.getPause({ runId: session.runId, interruptId: session.interruptId });
      if (!isClosed(view)) {
        const where =
          options.backend.inboxUrl === undefined ? '' : ` at ${pauseUrl(options.backend.inboxUrl, session)}`;
        tell(session, 'waiting for a decision', `${session.toolName}, pause ${session.interruptId}${where}`);
        pass.waiting.push(session.sessionId);
        continue;
      }
      status = view.status;
    } catch (error) {
      if (error instanceof PauseNotFoundError) {
        options.log(`Pause ${session.interruptId} of session ${session.sessionId} is gone; forgetting it.`);
        await forgetDeferred(options.env, session.interruptId);
        continue;
      }
      options.log(`Could not read pause ${session.interruptId}: ${error instanceof Error ? error.message : error}`);
      pass.failed.push(session.sessionId);
      continue;
    }
    const taken = await takeDeferred(options.env, session.interruptId);
    // Another resumer took it first.
    if (taken === undefined) continue;
    tell(session, 'decided', `pause ${session.interruptId} is ${status}`);
    tell(session, 'resuming', `claude -p --resume ${session.sessionId} in ${session.cwd}`);
    const outcome = await runResume(options, session);
    if (outcome === 'not started') {
      await taken.release();
      pass.failed.push(session.sessionId);
      continue;
    }
    if (outcome === 0) {
      const unclaimed = await unclaimedCall(options.backend, session);
      if (unclaimed !== undefined) {
        // The hook may have noted it again itself (it could not ask Handback): either way one record stays.
        await taken.release().catch(() => {});
        tell(session, 'failed', `claude -p --resume ${session.sessionId} exited 0, but ${unclaimed}`);
        pass.failed.push(session.sessionId);
        continue;
      }
    }
    await taken.done();
    if (outcome !== 0) {
      tell(session, 'failed', `claude -p --resume ${session.sessionId} exited ${outcome}`);
      pass.failed.push(session.sessionId);
      continue;
    }
    // The resume's hook may have deferred the session's next call: a new record of the same session.
    const again = (await listDeferred(options.env)).find(
      (other) => other.sessionId === session.sessionId && other.interruptId !== session.interruptId,
    );
    if (again === undefined) tell(session, 'ran', `claude -p --resume ${session.sessionId} exited 0`);
    else tell(session, 'deferred again', `${again.toolName}, pause ${again.interruptId}`);
    pass.resumed.push(session.sessionId);
  }
  return pass;
}

/**
 * After a resume (§19): what is wrong when a decided call of pause `key` was neither claimed nor denied — its
 * execution still `waiting` (approved, not run) — or when the pause cannot be read to tell; undefined when each
 * dispatched call was claimed (or refused at run time) and every other was answered deny.
 */
export async function unclaimedCall(
  backend: Pick<HandbackBackend, 'getPause'>,
  key: { runId: string; interruptId: string },
): Promise<string | undefined> {
  let view: Awaited<ReturnType<HandbackBackend['getPause']>>;
  try {
    view = await backend.getPause({ runId: key.runId, interruptId: key.interruptId });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return `pause ${key.interruptId} could not be read to tell whether its call ran (${why})`;
  }
  const waiting = view.asks.find((ask) => ask.execution?.status === 'waiting');
  if (waiting === undefined) return undefined;
  return `approved call ${waiting.toolCallId} (${waiting.name}) of pause ${key.interruptId} was not claimed: it did not run`;
}

/** Passes every `intervalMs` until `signal` aborts. */
export async function watchSessions(
  options: ResumeOptions & { intervalMs: number; signal: AbortSignal },
): Promise<void> {
  const told = options.told ?? new Map<string, SessionState>();
  while (!options.signal.aborted) {
    await resumeClosedSessions({ ...options, told });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, options.intervalMs);
      options.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  }
}

/**
 * Resumes one session the caller names (a hand-off consumer: the run id of a closed pause's pointer) in `cwd`: its
 * exit code, `not started` when `claude` could not start, or `refused` — for an id that is not a Claude Code
 * session's, before any process starts.
 */
export async function resumeSession(
  options: Pick<ResumeOptions, 'env' | 'claude' | 'args' | 'log'> & { backend?: Pick<HandbackBackend, 'getPause'> },
  named: { sessionId?: string; runId?: string; interruptId?: string; cwd: string },
): Promise<number | 'not started' | 'refused'> {
  const sessionId = named.runId === undefined ? named.sessionId : sessionOfRun(named.runId);
  if (!isSessionId(sessionId)) {
    const given = named.runId === undefined ? `session ${named.sessionId}` : `run ${named.runId}`;
    options.log(`Refused ${given}: not a Claude Code session (claude-<UUID>, or the UUID); nothing was started.`);
    return 'refused';
  }
  const code = await runResume(options, { sessionId, cwd: named.cwd });
  // §19: a pointer's pause named (--pause), the resume succeeded only if its decided call ran or was denied.
  if (code !== 0 || named.interruptId === undefined || options.backend === undefined) return code;
  const unclaimed = await unclaimedCall(options.backend, {
    runId: `claude-${sessionId}`,
    interruptId: named.interruptId,
  });
  if (unclaimed === undefined) return 0;
  options.log(`session ${sessionId}: failed (claude -p --resume ${sessionId} exited 0, but ${unclaimed})`);
  return 1;
}

/** `claude -p --resume <session>` in the session's directory: its exit code, or `not started`. */
function runResume(
  options: Pick<ResumeOptions, 'env' | 'claude' | 'args' | 'log'>,
  session: Pick<DeferredSession, 'sessionId' | 'cwd'>,
): Promise<number | 'not started'> {
  if (!isSessionId(session.sessionId)) return Promise.resolve('not started');
  return new Promise((resolve) => {
    const child = spawn(options.claude, ['-p', '--resume', session.sessionId, ...options.args], {
      cwd: session.cwd,
      env: options.env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', (error) => {
      options.log(`Could not start ${options.claude}: ${error.message}`);
      resolve('not started');
    });
    child.once('close', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}
