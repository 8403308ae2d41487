import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deferredDir } from './claude-deferred.ts';

/**
 * The calls Claude Code's hook claimed and allowed (§19), kept on this machine until Claude Code says how each ended:
 * the `PostToolUse` (or `PostToolUseFailure`) run of `handback claude-hook` for the same session and `tool_use_id`
 * reads the record, reports the end through the execution claim, and removes it. One small JSON file per call in
 * `$HANDBACK_STATE_DIR/claude-code/claimed/`, beside the deferred sessions; a call with no record (one this machine's
 * hook did not claim, or one claimed through `request_permission`) has no end to report here.
 */

/** One claimed call: where its execution claim is. */
export interface ClaimedCall {
  runId: string;
  continuationId: string;
  toolCallId: string;
  claimedAt: string;
}

/** The directory the records are in. */
function claimedDir(env: NodeJS.ProcessEnv): string {
  return join(deferredDir(env), '..', 'claimed');
}

/** The record's file: the session id (a UUID) and the `tool_use_id` (letters, digits, `_` and `-`) are file-safe. */
function fileOf(env: NodeJS.ProcessEnv, sessionId: string, toolUseId: string): string {
  return join(claimedDir(env), `${sessionId}.${toolUseId}.json`);
}

/** Notes a claimed call of a session, for its `PostToolUse`. */
export async function recordClaimed(
  env: NodeJS.ProcessEnv,
  sessionId: string,
  toolUseId: string,
  call: ClaimedCall,
): Promise<void> {
  await mkdir(claimedDir(env), { recursive: true });
  const file = fileOf(env, sessionId, toolUseId);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(call)}\n`);
  await rename(temporary, file);
}

/** The claimed call of a session's `tool_use_id`; undefined when none was noted. */
export async function findClaimed(
  env: NodeJS.ProcessEnv,
  sessionId: string,
  toolUseId: string,
): Promise<ClaimedCall | undefined> {
  try {
    return JSON.parse(await readFile(fileOf(env, sessionId, toolUseId), 'utf8')) as ClaimedCall;
  } catch {
    return undefined;
  }
}

/** Forgets a claimed call once its end is recorded. */
export async function forgetClaimed(env: NodeJS.ProcessEnv, sessionId: string, toolUseId: string): Promise<void> {
  await rm(fileOf(env, sessionId, toolUseId), { force: true });
}
