import type { JSONValue } from '@strands-agents/sdk';
import type { ClientContinuation } from '../client/types.ts';
import { BadRequestError } from '../errors.ts';
import { isRejectionText } from '../rehydrate/texts.ts';
import type { ExecutionKey } from './shared.ts';
import { type Block, resultText } from './strands-messages.ts';

/** `handback/strands`'s interrupt responses: what `resume` answers each interrupt with, and the hook reads back. */

/** What the hook reads back from an interrupt's response on the resumed invocation. */
export type ApprovalResponse =
  | { decision: 'approve'; args: JSONValue; execution: ExecutionKey }
  | { decision: 'reject'; message: string }
  | { decision: 'answer'; answer: string };

/** The interrupt's response for one asked call: approved with its decided args, or the result people gave it. */
export function responseFor(
  continuation: ClientContinuation,
  toolUseId: string,
  result: Block | undefined,
): ApprovalResponse {
  const dispatched = continuation.dispatch.find((call) => call.toolCallId === toolUseId);
  if (dispatched !== undefined) {
    const { runId, continuationId } = continuation;
    return {
      decision: 'approve',
      args: dispatched.args as JSONValue,
      execution: { runId, continuationId, toolCallId: toolUseId },
    };
  }
  const text = result === undefined ? undefined : resultText(result);
  if (text === undefined) {
    throw new BadRequestError(`Continuation ${continuation.continuationId} has no result for call ${toolUseId}.`);
  }
  // An approval not dispatched was rejected (by a person, a policy, a cancel or an expiry): Handback's rejection text.
  return isRejectionText(text) ? { decision: 'reject', message: text } : { decision: 'answer', answer: text };
}

/** The response the hook was resumed with, checked: `resume` writes it, and nothing else should. */
export function approvalResponse(response: JSONValue, toolUseId: string): ApprovalResponse {
  const value = response as Partial<Record<string, unknown>> | null;
  const decision = typeof value === 'object' && value !== null ? value.decision : undefined;
  if (
    (decision === 'approve' && isExecutionKey(value?.execution)) ||
    (decision === 'reject' && typeof value?.message === 'string') ||
    (decision === 'answer' && typeof value?.answer === 'string')
  ) {
    return value as ApprovalResponse;
  }
  throw new BadRequestError(
    `The response to call ${toolUseId}'s interrupt is not a Handback decision: resume the agent with strandsHandback().resume.`,
  );
}

/** An interrupt response's execution ids, as `responseFor` wrote them. */
function isExecutionKey(value: unknown): value is ExecutionKey {
  const key = value as Partial<Record<string, unknown>> | null;
  return (
    typeof key === 'object' &&
    key !== null &&
    typeof key.runId === 'string' &&
    typeof key.continuationId === 'string' &&
    typeof key.toolCallId === 'string'
  );
}
