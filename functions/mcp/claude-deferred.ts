import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The sessions Claude Code's hook deferred (§18), kept on this machine so that `handback claude-resume` knows which
 * sessions to resume, and where (a session resumes in the directory it ran in): one small JSON file per deferred
 * pause in `$HANDBACK_STATE_DIR/claude-code/deferred/` (default `~/.handback`). A resumer takes a record by renaming
 * it — one rename wins — so two resumers on one machine resume a session once; the hook's claim makes the tool run
 * once whatever resumes it.
 */

/** One deferred session. */
export interface DeferredSession {
  sessionId: string;
  runId: string;
  interruptId: string;
  toolUseId: string;
  toolName: string;
  /** Where the session ran: its resume runs there. */
  cwd: string;
  deferredAt: string;
}

/** The directory the records are in. */
export function deferredDir(env: NodeJS.ProcessEnv): string {
  const state = env.HANDBACK_STATE_DIR?.trim() || join(env.HOME?.trim() || homedir(), '.handback');
  return join(state, 'claude-code', 'deferred');
}

const SUFFIX = '.json';

/** The record's file: named by the pause, whose id is URL-safe. */
function fileOf(dir: string, interruptId: string): string {
  return join(dir, `${interruptId}${SUFFIX}`);
}

/** Records a deferred session (again: the same file, rewritten whole). */
export async function recordDeferred(env: NodeJS.ProcessEnv, session: DeferredSession): Promise<void> {
  const dir = deferredDir(env);
  await mkdir(dir, { recursive: true });
  const temporary = join(dir, `.${session.interruptId}.${process.pid}.tmp`);
  await writeFile(temporary, `${JSON.stringify(session)}\n`);
  await rename(temporary, fileOf(dir, session.interruptId));
}

/** Forgets a deferred session, when it was recorded. */
export async function forgetDeferred(env: NodeJS.ProcessEnv, interruptId: string): Promise<void> {
  await rm(fileOf(deferredDir(env), interruptId), { force: true });
}

/** Every recorded session, oldest first; a record that cannot be read is left out. */
export async function listDeferred(env: NodeJS.ProcessEnv): Promise<DeferredSession[]> {
  const dir = deferredDir(env);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const sessions: DeferredSession[] = [];
  for (const name of names.filter((entry) => entry.endsWith(SUFFIX) && !entry.startsWith('.'))) {
    try {
      sessions.push(JSON.parse(await readFile(join(dir, name), 'utf8')) as DeferredSession);
    } catch {
      // Taken by another resumer meanwhile, or not a record of ours.
    }
  }
  return sessions.sort((a, b) => a.deferredAt.localeCompare(b.deferredAt));
}

/**
 * The record of call `toolUseId` of session `sessionId`, when the hook deferred it on this machine — taken by a
 * resumer or not: a hook run that finds one is a resume of a call that reached a pause (§19: nothing lost).
 */
export async function findDeferred(
  env: NodeJS.ProcessEnv,
  sessionId: string,
  toolUseId: string,
): Promise<DeferredSession | undefined> {
  const dir = deferredDir(env);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return undefined;
  }
  // Noted (`<pause>.json`) or taken by a resumer (`.<pause>.taken-<pid>`); never a record still being written.
  for (const name of names.filter((entry) => entry.endsWith(SUFFIX) || entry.includes('.taken-'))) {
    try {
      const session = JSON.parse(await readFile(join(dir, name), 'utf8')) as DeferredSession;
      if (session.sessionId === sessionId && session.toolUseId === toolUseId) return session;
    } catch {
      // Gone meanwhile, or not a record of ours.
    }
  }
  return undefined;
}

/**
 * Takes a record for this resumer: true when this process renamed it (it resumes the session), false when another
 * did first. Give it back with `release` when the resume could not start, or drop it with `done`.
 */
export async function takeDeferred(
  env: NodeJS.ProcessEnv,
  interruptId: string,
): Promise<{ done(): Promise<void>; release(): Promise<void> } | undefined> {
  const dir = deferredDir(env);
  const taken = join(dir, `.${interruptId}.taken-${process.pid}`);
  try {
    await rename(fileOf(dir, interruptId), taken);
  } catch {
    return undefined;
  }
  return {
    done: () => rm(taken, { force: true }),
    release: () => rename(taken, fileOf(dir, interruptId)),
  };
}
