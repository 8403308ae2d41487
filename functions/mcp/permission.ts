import type { ClientContinuation, ClientPauseInput } from '../client/types.ts';
import {
  AlreadyClaimedError,
  ApprovalExpiredError,
  type HandbackError,
  PolicyEvaluationError,
  PolicyForbidsError,
} from '../errors.ts';
import { traceparentOf } from '../fields.ts';
import { canonicalJson } from '../json.ts';
import { rejectionText } from '../rehydrate/texts.ts';
import type { PauseView } from '../wire.ts';

/**
 * A coding agent's permission prompt as a Handback pause (§18), pure: the one `approval` ask both the MCP tool
 * `request_permission` and Claude Code's hook (`handback claude-hook`) make, and what a closed pause answers —
 * allow with the decided input (approve or edit: the continuation's `dispatch`, the rules' own answer), or deny with
 * why (the rejection's text with the person's reason, "cancelled: …", "expired: …").
 */

/** The tool call a person is asked to permit. */
export interface PermissionCall {
  /** The call's id (Claude Code's `tool_use_id`): the ask's `toolCallId`. */
  toolUseId: string;
  /** The tool's name (`Write`, `Bash`, `mcp__github__create_issue`). */
  name: string;
  /** The call's input, as the model made it. */
  input: Record<string, unknown>;
}

/** A tool call id a pause takes as its ask's `toolCallId` and in its run's name: what the Messages API's ids are. */
export const TOOL_USE_ID = /^[A-Za-z0-9_-]{1,120}$/;

/**
 * The pause of a permission request: the call as an `anthropic` round after `context` (with what the agent `said`
 * before it, when given), one approval ask on it — not editable where only allow or deny can go back.
 */
export function permissionPause(
  call: PermissionCall,
  options: {
    runId: string;
    context: string;
    prompt: string;
    said?: string;
    editable?: false;
    metadata?: Record<string, unknown>;
    /** The W3C trace the call was made in (§21); a malformed one is left out. */
    traceparent?: string | undefined;
  },
): ClientPauseInput {
  const traceparent = traceparentOf(options.traceparent);
  const said = options.said === undefined || options.said === '' ? [] : [{ type: 'text', text: options.said }];
  return {
    runId: options.runId,
    format: 'anthropic',
    messages: [
      { role: 'user', content: options.context },
      {
        role: 'assistant',
        content: [...said, { type: 'tool_use', id: call.toolUseId, name: call.name, input: call.input }],
      },
    ],
    asks: [
      {
        toolCallId: call.toolUseId,
        kind: 'approval',
        prompt: options.prompt,
        ...(options.editable === undefined ? {} : { editable: options.editable }),
      },
    ],
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
    ...(traceparent === undefined ? {} : { traceparent }),
    // The same call asked again meets its own pause: the same key and body return it, open or closed (§5).
    idempotencyKey: call.toolUseId,
  };
}

/** What a closed pause decided for a call. */
export type Decided =
  | { behavior: 'allow'; updatedInput: Record<string, unknown> }
  | { behavior: 'deny'; message: string };

// §19
/** What a call that reuses an id made for another call is told: it never gets that pause's decision. */
export const ID_REUSED = 'this id was already used for another call';

/**
 * Whether the pause's ask `toolCallId` is about the call `call` (§19: one id, one call): the same tool name and the
 * same arguments, compared as their `argsHash` is made (canonical JSON), the model's own as the pause recorded them.
 */
export function isSameCall(
  view: Pick<PauseView, 'asks'>,
  toolCallId: string,
  call: { name: string; input: unknown },
): boolean {
  const ask = view.asks.find((candidate) => candidate.toolCallId === toolCallId);
  if (ask === undefined || ask.name !== call.name || ask.argsOmitted === true) return false;
  return canonicalJson(ask.args ?? null) === canonicalJson(call.input ?? null);
}

/** The words of a call refused for reusing an id (§19): which pause the id belongs to, and that nothing changed. */
export function idReused(key: { runId: string; interruptId: string }, askAgain: string): string {
  return `Denied: ${ID_REUSED} (pause ${key.interruptId} of run ${key.runId}, made for another tool or other input); nothing was recorded on that pause. ${askAgain}`;
}

/**
 * What an agent is told when the execution claim of a decided call refuses it (§19): another run claimed it, or the
 * policies in force or the approval's validity refused it at run time (recorded). Undefined for any other failure.
 */
export function claimRefusal(error: unknown, key: { interruptId: string }): string | undefined {
  if (error instanceof AlreadyClaimedError) {
    return `Not run here: already decided and handed to another run (pause ${key.interruptId}, claimed at ${error.claimedAt}).`;
  }
  if (isRunTimeRefusal(error)) return `Not run: refused at run time. ${error.message}`;
  return undefined;
}

function isRunTimeRefusal(error: unknown): error is HandbackError {
  return (
    error instanceof PolicyForbidsError ||
    error instanceof PolicyEvaluationError ||
    error instanceof ApprovalExpiredError
  );
}

/** Whether the pause no longer waits for anyone. */
export function isClosed(view: Pick<PauseView, 'status'>): boolean {
  return view.status !== 'paused';
}

/**
 * What a closed pause decided for `toolCallId`: allow with its `dispatch` arguments (the original ones when
 * approved, the person's when edited), or deny with the call's result text — the rejection and its reason, the
 * cancel's, the expiry's. `continuation` is the pause's, when it has one (an `onExpiry: "fail"` pause that expired
 * has none).
 */
export function decidedOf(
  view: Pick<PauseView, 'status' | 'expiresAt'>,
  toolCallId: string,
  continuation: Pick<ClientContinuation, 'outcome' | 'dispatch' | 'messages'> | undefined,
): Decided {
  if (continuation === undefined)
    return { behavior: 'deny', message: `expired: no one decided before ${view.expiresAt}` };
  const dispatched = continuation.dispatch.find((call) => call.toolCallId === toolCallId);
  if (dispatched !== undefined && continuation.outcome === 'resumed') {
    return { behavior: 'allow', updatedInput: dispatched.args as Record<string, unknown> };
  }
  const text = resultText(continuation.messages, toolCallId) ?? rejectionText();
  switch (continuation.outcome) {
    case 'cancelled':
      return { behavior: 'deny', message: `cancelled: ${text}` };
    case 'expired':
      return { behavior: 'deny', message: `expired: ${text}` };
    default:
      return { behavior: 'deny', message: text };
  }
}

/** The text of the `tool_result` for `toolUseId` in an `anthropic` transcript, when it has one. */
export function resultText(messages: readonly unknown[], toolUseId: string): string | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const content = (messages[index] as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    for (const block of content as Array<Record<string, unknown>>) {
      if (block?.type !== 'tool_result' || block.tool_use_id !== toolUseId) continue;
      if (typeof block.content === 'string') return block.content;
      if (Array.isArray(block.content)) {
        return (block.content as Array<{ text?: unknown }>)
          .map((part) => (typeof part?.text === 'string' ? part.text : ''))
          .join('');
      }
    }
  }
  return undefined;
}

/** The inbox page of one pause, where people decide it: `<inbox>?run=…&pause=…`. */
export function pauseUrl(inboxUrl: string, pause: { runId: string; interruptId: string }): string {
  const query = new URLSearchParams({ run: pause.runId, pause: pause.interruptId });
  return `${inboxUrl}${inboxUrl.includes('?') ? '&' : '?'}${query}`;
}

/** What a caller told to stop waiting is told: the pause that still waits, where, and how to get its decision. */
export function stillWaiting(
  pause: { runId: string; interruptId: string },
  options: { inboxUrl?: string; askAgain: string },
): string {
  const where = options.inboxUrl === undefined ? '' : ` at ${pauseUrl(options.inboxUrl, pause)}`;
  return `No one has decided yet: pause ${pause.interruptId} of run ${pause.runId} still waits for a person${where}. It stays open and decidable; ${options.askAgain}`;
}
