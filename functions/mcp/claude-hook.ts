import { basename } from 'node:path';
import { executionDetailOf } from '../adapters/claimed-executions.ts';
import { ERROR_FATES, type ErrorFate, HandbackError, OpenPauseExistsError } from '../errors.ts';
import * as z from '../zod.ts';
import { AGENTS, BackendConfigError, backendFromEnv, type HandbackBackend, pauseOrMeet } from './backend.ts';
import { findClaimed, forgetClaimed, recordClaimed } from './claude-claimed.ts';
import { type DeferredSession, findDeferred, forgetDeferred, recordDeferred } from './claude-deferred.ts';
import { isSessionId } from './claude-session.ts';
import { lastUserPrompt } from './claude-transcript.ts';
import {
  claimRefusal,
  decidedOf,
  idReused,
  isClosed,
  isSameCall,
  pauseUrl,
  permissionPause,
  TOOL_USE_ID,
} from './permission.ts';

/**
 * Claude Code's `PreToolUse` hook (§18), `handback claude-hook`: JSON in on stdin, JSON out on stdout, as Claude
 * Code's hooks reference gives them. For a call the settings' matcher sends here, it pauses one approval ask in run
 * `claude-<session_id>` (the ask's `toolCallId` the `tool_use_id`, the transcript the session's last prompt and the
 * call) and answers `defer`: `claude -p` exits with `stop_reason: "tool_deferred"`, no process waits. Run again by
 * `claude -p --resume <session>`, it meets the same pause: still open, `defer` again; closed, `allow` with the
 * decided input — once the call's execution is claimed (§19: one conditional write, judged again by the policies in
 * force), so two resumes racing from the deferred state run the call once and the other is denied — or `deny` with
 * the reason, or the claim's refusal. The same session and `tool_use_id` with another tool or other input never gets
 * that pause's decision (§19: one id, one call). A call it sees first that it cannot ask Handback about (no
 * configuration, no answer, bad input) is denied: it fails closed, saying so. A call it deferred before is never lost:
 * when Handback cannot be reached, or refuses the token, it is deferred again (§19), for a later resume to run.
 */

/** What Claude Code sends a `PreToolUse` hook (the fields read here; others are ignored). */
const preToolUse = z.object({
  // A UUID (§22): the session id goes into the run's id and, on resume, onto a `claude --resume` command line.
  session_id: z.string().check(z.refine(isSessionId, 'must be a Claude Code session id (a UUID)')),
  transcript_path: z.optional(z.string()),
  cwd: z.optional(z.string()),
  hook_event_name: z.literal('PreToolUse'),
  tool_name: z.string().check(z.minLength(1)),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z.string().check(z.regex(TOOL_USE_ID, 'must be 1–120 letters, digits, _ or -')),
});

/** The hook's answer: Claude Code's `hookSpecificOutput` for `PreToolUse`. */
export interface PreToolUseOutput {
  hookSpecificOutput: {
    hookEventName: 'PreToolUse';
    permissionDecision: 'allow' | 'deny' | 'ask' | 'defer';
    permissionDecisionReason: string;
    updatedInput?: Record<string, unknown>;
  };
}

/** What the hook runs on; each part defaults to the environment's. */
export interface HookDeps {
  env: NodeJS.ProcessEnv;
  /** @default backendFromEnv(env) */
  backend?: HandbackBackend;
}

/** One hook run: the answer for the call Claude Code sent on stdin. */
export async function claudeHook(stdin: string, deps: HookDeps): Promise<PreToolUseOutput> {
  let json: unknown;
  try {
    json = JSON.parse(stdin);
  } catch {
    return deny('handback claude-hook got no JSON on stdin, so the call is denied. Run it as a PreToolUse hook.');
  }
  const parsed = z.safeParse(preToolUse, json);
  if (!parsed.success) {
    return deny(
      `handback claude-hook cannot read this hook input (${z.prettifyError(parsed.error)}), so the call is denied.`,
    );
  }
  const input = parsed.data;
  // A call deferred before reached a pause: from here on only a decision, or a refused claim, denies it (§19).
  const earlier = await findDeferred(deps.env, input.session_id, input.tool_use_id);
  let backend = deps.backend;
  try {
    backend ??= await backendFromEnv(deps.env, AGENTS.claudeCode, { timeoutMs: 10_000 });
  } catch (error) {
    if (earlier !== undefined) return deferAgain(deps.env, earlier, 'Handback', error);
    if (error instanceof BackendConfigError)
      return deny(`${error.message} Until then every call this hook sees is denied.`);
    return unreachable('Handback', error);
  }
  try {
    return await decide(input, backend, deps);
  } catch (error) {
    if (earlier !== undefined) return deferAgain(deps.env, earlier, backend.where, error);
    // Handback answered, and refused the call as it is: saying it could not be reached would send people looking.
    const fate = error instanceof HandbackError ? (ERROR_FATES[error.code] as ErrorFate | undefined) : undefined;
    if (fate !== undefined && fate.status < 500) {
      return deny(`Denied: Handback refused to record this call (${(error as HandbackError).message}).`);
    }
    return unreachable(backend.where, error);
  } finally {
    if (deps.backend === undefined) await backend.close().catch(() => {});
  }
}

async function decide(
  input: z.infer<typeof preToolUse>,
  backend: HandbackBackend,
  deps: HookDeps,
): Promise<PreToolUseOutput> {
  const runId = `claude-${input.session_id}`;
  const call = { toolUseId: input.tool_use_id, name: input.tool_name, input: input.tool_input };
  const project = input.cwd ? basename(input.cwd) || input.cwd : undefined;
  const context =
    (await lastUserPrompt(input.transcript_path)) ??
    `A Claude Code session${project === undefined ? '' : ` in ${project}`}`;
  let key: { runId: string; interruptId: string };
  try {
    key = await pauseOrMeet(
      backend,
      permissionPause(call, {
        runId,
        context,
        prompt: `Claude Code wants to run ${input.tool_name}.`,
        // §21: the hook's environment carries the trace Claude Code runs in, when it is traced.
        traceparent: deps.env.TRACEPARENT,
        // §22: the person deciding sees where the session works: its directory, and the project (its name).
        metadata: {
          source: 'claude-code',
          sessionId: input.session_id,
          ...(input.cwd === undefined || project === undefined ? {} : { cwd: input.cwd, project }),
        },
      }),
    );
  } catch (error) {
    if (error instanceof OpenPauseExistsError) {
      const waiting = error.interruptId === undefined ? '' : ` (pause ${error.interruptId})`;
      return deny(
        `Another call of this session still waits for a person in Handback${waiting}: this call is denied. Resume the session once that one is decided.`,
      );
    }
    throw error;
  }
  const view = await backend.getPause(key);
  // §19: the pause this id names was made for this call, or its decision is not this call's.
  if (!isSameCall(view, input.tool_use_id, call)) {
    return deny(idReused(key, 'Another call needs a tool_use_id of its own.'));
  }
  const where = backend.inboxUrl === undefined ? backend.where : pauseUrl(backend.inboxUrl, key);
  if (!isClosed(view)) {
    await recordDeferred(deps.env, {
      sessionId: input.session_id,
      runId,
      interruptId: key.interruptId,
      toolUseId: input.tool_use_id,
      toolName: input.tool_name,
      cwd: input.cwd ?? process.cwd(),
      deferredAt: new Date().toISOString(),
    });
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'defer',
        permissionDecisionReason: `Waiting for a person to decide in Handback (pause ${key.interruptId}, ${where}). Once decided, resume with: claude -p --resume ${input.session_id}`,
      },
    };
  }
  // Decided: this run resumes the session, so no resumer needs to any more.
  await forgetDeferred(deps.env, key.interruptId);
  const continuation =
    view.continuationId === undefined
      ? undefined
      : await backend.getContinuation({ runId, continuationId: view.continuationId });
  const decided = decidedOf(view, input.tool_use_id, continuation);
  if (decided.behavior === 'deny') return deny(decided.message);
  // §19: the call is claimed before it runs — once, and only if the policies in force and its approval still allow it.
  let claimed: { args: unknown; claimedAt: string };
  const ids = { runId, continuationId: view.continuationId as string, toolCallId: input.tool_use_id };
  try {
    claimed = await backend.claimExecution(ids);
  } catch (error) {
    const refused = claimRefusal(error, key);
    if (refused !== undefined) return deny(refused);
    throw error;
  }
  // For this call's PostToolUse, which reports how it ended; without the note the call still runs, its end unsaid.
  await recordClaimed(deps.env, input.session_id, input.tool_use_id, { ...ids, claimedAt: claimed.claimedAt }).catch(
    () => {},
  );
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      permissionDecisionReason: `Allowed as decided in Handback (pause ${key.interruptId}), with the decided input.`,
      updatedInput: claimed.args as Record<string, unknown>,
    },
  };
}

/** What Claude Code sends a `PostToolUse` or `PostToolUseFailure` hook (the fields read here). */
const afterToolUse = z.object({
  session_id: z.string().check(z.refine(isSessionId, 'must be a Claude Code session id (a UUID)')),
  hook_event_name: z.enum(['PostToolUse', 'PostToolUseFailure']),
  tool_name: z.string(),
  tool_use_id: z.string().check(z.regex(TOOL_USE_ID, 'must be 1–120 letters, digits, _ or -')),
  /** `PostToolUseFailure`: what the tool's failure said. */
  error: z.optional(z.unknown()),
});

/** The after-hook's answer: nothing for the model; a `systemMessage` for the person when the end was not recorded. */
export interface PostToolUseOutput {
  systemMessage?: string;
}

/**
 * `handback claude-hook` as Claude Code's `PostToolUse` and `PostToolUseFailure` hook (§19): for a call this machine's
 * hook claimed and allowed, it records how the call ended (`succeeded`, or `failed` with the tool's error) through
 * the execution claim, so the inbox says "ran at…". Any other call, or input it cannot read, it leaves alone. It never
 * blocks: the call has run, and an end it cannot record stays "running since…" in the inbox, told to the person.
 */
export async function claudeAfterHook(stdin: string, deps: HookDeps): Promise<PostToolUseOutput> {
  let json: unknown;
  try {
    json = JSON.parse(stdin);
  } catch {
    return {};
  }
  const parsed = z.safeParse(afterToolUse, json);
  if (!parsed.success) return {};
  const input = parsed.data;
  const claimed = await findClaimed(deps.env, input.session_id, input.tool_use_id);
  if (claimed === undefined) return {};
  const failed = input.hook_event_name === 'PostToolUseFailure';
  const error = typeof input.error === 'string' ? input.error : JSON.stringify(input.error ?? 'the tool failed');
  let backend = deps.backend;
  try {
    backend ??= await backendFromEnv(deps.env, AGENTS.claudeCode, { timeoutMs: 10_000 });
    await backend.finishExecution({
      runId: claimed.runId,
      continuationId: claimed.continuationId,
      toolCallId: claimed.toolCallId,
      ...(failed ? { status: 'failed' as const, detail: executionDetailOf(error) } : { status: 'succeeded' as const }),
    });
    await forgetClaimed(deps.env, input.session_id, input.tool_use_id);
    return {};
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      systemMessage: `Handback could not record that ${input.tool_name} (${input.tool_use_id}) ${failed ? 'failed' : 'ran'} (${why}): its inbox shows it running since it was claimed.`,
    };
  } finally {
    if (deps.backend === undefined) await backend?.close().catch(() => {});
  }
}

/**
 * A call deferred before, whose resume could not ask Handback (§19: nothing lost): deferred again — its note kept
 * for `claude-resume` — never denied, so a later resume runs it once people's decision can be read.
 */
async function deferAgain(
  env: NodeJS.ProcessEnv,
  earlier: DeferredSession,
  where: string,
  error: unknown,
): Promise<PreToolUseOutput> {
  await recordDeferred(env, earlier).catch(() => {});
  const why = error instanceof Error ? error.message : String(error);
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'defer',
      permissionDecisionReason: `Deferred again: Handback could not be asked at ${where} (${why}), so this call (pause ${earlier.interruptId}) waits; nothing ran. Check HANDBACK_URL and HANDBACK_TOKEN, then resume with: claude -p --resume ${earlier.sessionId}`,
    },
  };
}

function deny(reason: string): PreToolUseOutput {
  return {
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
  };
}

/** Fail closed: Handback could not be asked, so nothing runs. */
function unreachable(where: string, error: unknown): PreToolUseOutput {
  const why = error instanceof Error ? error.message : String(error);
  return deny(
    `Denied because Handback could not be reached at ${where} (${why}). This hook fails closed: no call runs without a person's decision. Check HANDBACK_URL and HANDBACK_TOKEN, then try again.`,
  );
}
