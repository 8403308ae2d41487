import { CorruptCheckpointError } from '../errors.ts';
import { canonicalJson } from '../json.ts';
import { type Decision, rebuildWithDecisions } from '../rehydrate/decide.ts';
import type { MessageFormat, PausedRound, ToolCall } from '../rehydrate/formats/format.ts';
import { POLICY_ERROR_REJECTED, policyDefaultText, policyRejectionText } from '../rehydrate/texts.ts';
import { type Outcome, Status } from '../vocabulary.ts';
import type { PendingDecisions, Principal } from '../wire.ts';
import type { ResumeResult } from './checkpoint-store.ts';
import { type DecodedRound, sha256 } from './codec.ts';
import { MessagesJson, withLazyMessages } from './continuation-json.ts';
import { voteCounts } from './deciding.ts';
import { approvedUntilOf } from './execution-views.ts';
import { LIBRARY_PRINCIPAL, SWEEP_PRINCIPAL } from './identity.ts';
import type { FormatRound } from './pause-reader.ts';
import {
  type Closing,
  continuationIdOf,
  decidedAndPending,
  effectiveDecisions,
  expiryReason,
  interruptIdOf,
  type PauseRecord,
} from './record.ts';

/**
 * How a pause closes (§9, §10), pure: the record a closing writes and the continuation it commits — the paused round
 * rebuilt with every ask's effective decision, hashed, so that every later read rebuilds it again and checks it — and
 * the other answers a decision gets (still pending, or the closed pause's continuation again).
 */

/**
 * `record` closed with `outcome` at `nowMs` by `by`, and the continuation that closing commits, named with
 * `continuationToken` (random, the caller's): the paused round rebuilt with every ask's effective decision (§10),
 * hashed from the paused round on; the messages before the round stay the stored text. The revision is the caller's.
 */
export function closeRecord(
  record: PauseRecord,
  transcript: FormatRound,
  closed: { outcome: Outcome; nowMs: number; by: Principal; continuationToken: string; reason?: string | undefined },
): { record: PauseRecord; result: ResumeResult } {
  const { outcome, nowMs, by, reason } = closed;
  const closedAt = new Date(nowMs).toISOString();
  if (outcome === 'expired') record = withExpiryDecisions(record, closedAt);
  const rebuilt = rebuild(transcript.format, record, transcript.round, outcome, reason);
  const text = continuationText(rebuilt);
  const closing: Closing = {
    continuationId: continuationIdOf(record, closed.continuationToken),
    closedAt,
    outcome,
    continuationSha256: sha256(text),
    by,
  };
  if (reason !== undefined) closing.reason = reason;
  const status = outcome === 'resumed' ? Status.Resumed : outcome === 'cancelled' ? Status.Cancelled : Status.Expired;
  const after: PauseRecord = { ...record, status, closing };
  delete after.dueAtMs;
  return { record: after, result: resultOf(after, rebuilt, transcript, false, text) };
}

/** The continuation of a closed record, rebuilt from its stored transcript and checked against its hash. */
export function closedResult(record: PauseRecord, transcript: FormatRound, replayed: boolean): ResumeResult {
  const closing = record.closing as Closing;
  let rebuilt: Rebuilt;
  try {
    rebuilt = rebuild(transcript.format, record, transcript.round, closing.outcome, closing.reason);
  } catch (cause) {
    throw new CorruptCheckpointError(
      record.runId,
      interruptIdOf(record),
      'its recorded decisions no longer fold into its transcript',
      { cause },
    );
  }
  const text = continuationText(rebuilt);
  if (sha256(text) !== closing.continuationSha256) {
    throw new CorruptCheckpointError(
      record.runId,
      interruptIdOf(record),
      'its continuation no longer rebuilds to the messages the resume returned',
    );
  }
  return resultOf(record, rebuilt, transcript, replayed, text);
}

/** Who closed a pause the policies decided whole: the policy whose decision came last, as a last person would. */
export function closingPrincipal(record: PauseRecord): Principal {
  const by = record.decisions.map((decision) => decision?.by).filter((principal) => principal !== undefined);
  return by.at(-1) ?? LIBRARY_PRINCIPAL;
}

/** The 202 of a request that left asks waiting (§9, §13); `hashes` are the asks' model-argument hashes. */
export function pendingOf(record: PauseRecord, replayed: boolean, hashes: readonly string[]): PendingDecisions {
  const body: PendingDecisions = {
    runId: record.runId,
    interruptId: interruptIdOf(record),
    status: 'paused' as const,
    ...decidedAndPending(record),
    replayed,
  };
  const votes = voteCounts(record, hashes);
  if (votes !== undefined) body.votes = votes;
  return body;
}

/** The paused round as far as the asks tell it: enough for the decision rules, without parsing the transcript. */
export function roundOfAsks(record: PauseRecord): PausedRound {
  const calls: ToolCall[] = record.asks.map((ask) => ({ id: ask.toolCallId, name: ask.name, args: ask.args }));
  return { start: 0, calls, answered: new Set() };
}

type Rebuilt = ReturnType<typeof rebuild>;

function rebuild(
  format: MessageFormat,
  record: PauseRecord,
  messages: readonly unknown[],
  outcome: Outcome,
  reason?: string,
) {
  return rebuildWithDecisions(
    format,
    messages,
    effectiveDecisions(record, outcome, reason) as Decision[],
    policyRejections(record),
  );
}

/**
 * The words of each rejection a policy recorded (§19): the model is told a policy decided, never a person. Only the
 * decisions that name their policy set's version, recorded since these words were, get them: a continuation
 * committed before rebuilds to the text it was hashed with.
 */
function policyRejections(record: PauseRecord): Map<string, string> | undefined {
  let texts: Map<string, string> | undefined;
  record.asks.forEach((ask, index) => {
    const decided = record.decisions[index];
    const by = decided?.by;
    if (decided === undefined || by?.via !== 'policy' || by.policyVersion === undefined) return;
    if (!('decision' in decided.body) || decided.body.decision !== 'reject') return;
    const id = by.subject.replace(/^policy:/, '');
    const reason = decided.body.reason;
    const text =
      id === 'error'
        ? POLICY_ERROR_REJECTED
        : id === 'default'
          ? policyDefaultText(reason)
          : policyRejectionText(id, reason);
    texts ??= new Map();
    texts.set(ask.toolCallId, text);
  });
  return texts;
}

/** The text `continuationSha256` hashes: the rebuilt messages from the paused round on, as JSON. */
function continuationText(rebuilt: Rebuilt): string {
  return JSON.stringify(rebuilt.messages.slice(rebuilt.roundStart));
}

/**
 * The closing's result: its `messages` are the stored text before the paused round and the rebuilt round, parsed
 * only when read (see `continuation-json.ts`).
 */
function resultOf(
  record: PauseRecord,
  rebuilt: Rebuilt,
  transcript: DecodedRound,
  replayed: boolean,
  text: string,
): ResumeResult {
  const closing = record.closing as Closing;
  const result: ResumeResult = {
    runId: record.runId,
    interruptId: interruptIdOf(record),
    continuationId: closing.continuationId,
    format: record.format,
    outcome: closing.outcome,
    dispatch: rebuilt.dispatch.map((call) => {
      // §19: how long the approval lets the call run, where its policies bound it.
      const until = approvedUntilOf(
        record,
        record.asks.findIndex((ask) => ask.toolCallId === call.toolCallId),
      );
      return until === undefined ? call : { ...call, approvedUntil: until };
    }),
    messages: [],
    resumedAt: closing.closedAt,
    replayed,
  };
  if (record.taskToken !== undefined) result.taskToken = record.taskToken;
  if (record.callbackId !== undefined) result.callbackId = record.callbackId;
  if (record.traceparent !== undefined) result.traceparent = record.traceparent;
  // The hashed text is the messages' own when the rebuilt messages start at the round (the pause recorded where).
  const roundText = rebuilt.roundStart === 0 ? text : undefined;
  return withLazyMessages(result, new MessagesJson(transcript.head, transcript.before, rebuilt.messages, roundText));
}

/**
 * An expiry that acts records the sweep's rejection as the decision of each ask no one decided (§13), with the
 * reason §10 gives, so the audit trail says who closed what.
 */
function withExpiryDecisions(record: PauseRecord, closedAt: string): PauseRecord {
  const reason = expiryReason(record);
  const body = { decision: 'reject' as const, reason };
  const hash = sha256(canonicalJson(body));
  return {
    ...record,
    decisions: record.decisions.map((decision) => decision ?? { body, hash, decidedAt: closedAt, by: SWEEP_PRINCIPAL }),
  };
}
