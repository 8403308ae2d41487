import { InvalidAnswerError } from '../errors.ts';
import { jsonProblem } from '../json.ts';
import type { MessageFormat } from './formats/format.ts';

/**
 * The result of every reserved call that no one decided (§3.5): the call was not run because the turn paused for a
 * person, and the model may call it again.
 */
export const NOT_DISPATCHED =
  'Not run: this turn paused for a person to answer another tool call, so this call was never dispatched. Call it again if you still need its result.';

/**
 * The result of a call a person rejected (§9): it was not run, and the model should not try it again on its own —
 * a rejection must not make the model loop.
 */
export const REJECTED =
  'Not run: a person reviewed this tool call and declined it, so it was not carried out. Do not call it again unless the person asks for it; go on without it, or ask the person what to do instead.';

/** `REJECTED`, then `Reason: <reason>` on its own line when a reason is given (an empty one is no reason). */
export function rejectionText(reason?: string): string {
  return withReason(REJECTED, reason);
}

// §19: a policy's rejection never reads as a person's.

/** The result of a call the deployment's policy `policyId` rejected (§19), then its reason: no person declined it. */
export function policyRejectionText(policyId: string, reason?: string): string {
  return withReason(`Not run: the deployment's policy ${policyId} does not allow this call.`, reason);
}

/** The result of a call the deployment's policies could not judge (§19): rejected, fail closed. */
export const POLICY_ERROR_REJECTED = "Not run: the deployment's policies could not judge this call.";

/** The result of a call no policy allows where the deployment's default is to reject (§17, §19), then why. */
export function policyDefaultText(reason?: string): string {
  return withReason("Not run: the deployment's policies do not allow this call.", reason);
}

/** Whether a call's result text is a rejection, by a person or by the deployment's policies (§9, §19). */
export function isRejectionText(text: string): boolean {
  return text.startsWith(REJECTED) || text.startsWith(POLICY_REJECTED_PREFIX);
}

/** What every policy's rejection starts with. */
const POLICY_REJECTED_PREFIX = "Not run: the deployment's polic";

function withReason(text: string, reason: string | undefined): string {
  return reason === undefined || reason === '' ? text : `${text}\nReason: ${reason}`;
}

/**
 * The answer as a call's observation (§3.4): a string verbatim, any other JSON value as its JSON text. Throws
 * `InvalidAnswerError` for a value that is not JSON (undefined, a function, a class instance, a cycle, a hole,
 * `NaN`…) or that nests more than `LIMITS.bodyDepth` levels deep (as deep as the HTTP edge lets a request nest); `at`, a JSON pointer to where the value sits in
 * a request (`/decisions/0/answer`), prefixes the failure's path.
 */
export function answerText(answer: unknown, at = ''): string {
  const problem = jsonProblem(answer);
  if (problem !== undefined) {
    const path = problem.path || '/';
    throw new InvalidAnswerError(`${at === '' ? 'The answer' : at} is not a JSON value: ${path} ${problem.message}.`, [
      { path: at === '' ? path : `${at}${problem.path}`, message: `${path} ${problem.message}` },
    ]);
  }
  return typeof answer === 'string' ? answer : JSON.stringify(answer);
}

/** `answerText`, and refused with `InvalidAnswerError` when the format's provider cannot carry the text (§3.8). */
export function resultText(format: MessageFormat, value: unknown, at = ''): string {
  return carried(format, answerText(value, at), at);
}

/**
 * The text of an answer its schema already took as JSON (`wire.ts`'s `answer`): a string verbatim, any other value
 * as its JSON text, refused with `InvalidAnswerError` only when the format's provider cannot carry it (§3.8).
 */
export function parsedAnswerText(format: MessageFormat, answer: unknown, at: string): string {
  return carried(format, typeof answer === 'string' ? answer : JSON.stringify(answer), at);
}

function carried(format: MessageFormat, text: string, at: string): string {
  const refusal = format.refuseAnswerText?.(text);
  if (refusal !== undefined) throw new InvalidAnswerError(refusal, [{ path: at, message: refusal }]);
  return text;
}
