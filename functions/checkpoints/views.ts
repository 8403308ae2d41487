import type { ToolCall } from '../rehydrate/formats/format.ts';
import type { Actor } from '../wire.ts';
import type { AskView, PauseClosed, PauseCreated, PauseView, ResumeResult } from './checkpoint-store.ts';
import { escalationView } from './escalation.ts';
import { dispatchedAsks, executionViewOf } from './execution-views.ts';
import {
  type Ask,
  decidedAndPending,
  expiresAtOf,
  interruptIdOf,
  type PauseRecord,
  type RecordedDecision,
  statusAt,
} from './record.ts';
import { argsHashOf, currentArgsHash, isArgsHash, modelHashes, tallyOf } from './tally.ts';
import { refusalOf } from './who-decides.ts';

/** What callers see of a record, pure: the GET-pause body, the 201 body. Nothing here reads storage or a clock. */

/**
 * The GET-pause body of `record` at `nowMs`; `calls` fills in args the record left out (from the transcript). Each ask
 * carries its `argsHash` and `tally` (§16); with a `viewer`, also the `refusal` a decision by that principal would get
 * now and `mayDecide` (§13), decided by the same rules the store applies (`who-decides.ts`), so no page recomputes them.
 */
export function toPauseView(
  record: PauseRecord,
  nowMs: number,
  calls?: ReadonlyMap<string, ToolCall>,
  viewer?: Actor,
): PauseView {
  const status = statusAt(record, nowMs);
  const hashes = modelHashes(record, calls);
  const dispatched = dispatchedAsks(record);
  const asks = record.asks.map((ask, index) => {
    const view = toAskView(record, ask, record.decisions[index], calls);
    const votes = record.votes?.[index];
    if (votes !== undefined && votes.length > 0) {
      view.votes = votes.map((vote) => ({
        ...vote.body,
        by: vote.by,
        ...(vote.for === undefined ? {} : { for: vote.for }),
        at: vote.at,
        ...(vote.policy === undefined ? {} : { policy: vote.policy }),
      }));
    }
    const modelHash = hashes[index] as string;
    const argsHash = currentArgsHash(votes, modelHash);
    if (isArgsHash(argsHash)) view.argsHash = argsHash;
    // §19: what the policies make of the current arguments, while they are an edit's: the newest vote's, or those of
    // the edit that decided an ask without votes.
    const decided = record.decisions[index]?.body;
    const current =
      (votes?.length ?? 0) === 0 && decided !== undefined && 'decision' in decided && decided.decision === 'edit'
        ? argsHashOf(decided.args)
        : argsHash;
    if (ask.policyNow !== undefined && ask.policyNow.argsHash === current) view.policyNow = ask.policyNow.policy;
    view.tally = tallyOf(record, index, modelHash);
    if (viewer !== undefined) {
      const refusal = refusalOf(record, index, viewer, status);
      view.mayDecide = refusal === undefined;
      if (refusal !== undefined) view.refusal = refusal;
    }
    // §19: a dispatched call's execution, as recorded — never "ran" before its claim says so.
    const execution = executionViewOf(record, index, dispatched[index] === true);
    if (execution !== undefined) view.execution = execution;
    return view;
  });
  const first = asks[0] as AskView;
  const { decided, pending } = decidedAndPending(record);
  const view: PauseView = {
    runId: record.runId,
    interruptId: interruptIdOf(record),
    status,
    format: record.format,
    toolCall: { id: first.toolCallId, name: first.name, args: first.args },
    prompt: first.prompt,
    answerSchema: first.answerSchema ?? null,
    asks,
    decided,
    // Once the pause is not open nothing waits any more: the closing settled every ask a person left.
    pending: status === 'paused' ? pending : [],
    metadata: record.metadata ?? null,
    onExpiry: record.onExpiry,
    pausedBy: record.pausedBy,
    createdAt: record.createdAt,
    expiresAt: expiresAtOf(record),
  };
  if (record.context !== undefined && Object.keys(record.context).length > 0) view.context = record.context;
  if (record.remindAtMs !== undefined) view.remindAt = new Date(record.remindAtMs).toISOString();
  if (record.notify !== undefined) view.notify = record.notify;
  if (record.closing !== undefined) {
    view.resumedAt = record.closing.closedAt;
    view.continuationId = record.closing.continuationId;
    view.outcome = record.closing.outcome;
    if (record.closing.outcome === 'cancelled' && record.closing.by !== undefined) view.cancelledBy = record.closing.by;
    if (record.closing.outcome === 'cancelled' && record.closing.reason) view.cancelReason = record.closing.reason;
  }
  if (record.fourEyes === true) view.fourEyes = true;
  return view;
}

function toAskView(
  record: PauseRecord,
  ask: Ask,
  recorded: RecordedDecision | undefined,
  calls?: ReadonlyMap<string, ToolCall>,
): AskView {
  const filled = ask.argsOmitted ? calls?.get(ask.toolCallId) : undefined;
  const view: AskView = {
    toolCallId: ask.toolCallId,
    name: ask.name,
    args: filled !== undefined ? filled.args : ask.argsOmitted ? null : ask.args,
    kind: ask.kind,
    prompt: ask.prompt ?? null,
  };
  if (ask.argsOmitted && filled === undefined) view.argsOmitted = true;
  if (ask.answerSchema !== undefined) view.answerSchema = ask.answerSchema;
  if (ask.argsSchema !== undefined) view.argsSchema = ask.argsSchema;
  if (ask.kind === 'approval') view.editable = ask.editable ?? true;
  if (ask.approvers !== undefined) view.approvers = ask.approvers;
  if (ask.approvals !== undefined) view.approvals = ask.approvals;
  if (ask.fourEyes === true) view.fourEyes = true;
  if (ask.policy !== undefined) view.policy = ask.policy;
  const escalation = escalationView(record, ask);
  if (escalation !== undefined) view.escalation = escalation;
  if (recorded !== undefined) {
    view.decision =
      recorded.by === undefined
        ? recorded.body
        : { ...recorded.body, by: recorded.by, ...(recorded.for === undefined ? {} : { for: recorded.for }) };
    if (recorded.policy !== undefined) view.decision = { ...view.decision, policy: recorded.policy };
    view.decidedAt = recorded.decidedAt;
  }
  return view;
}

/** The 201 body of a pause. */
export function toPauseCreated(record: PauseRecord, replayed = false): PauseCreated {
  const created: PauseCreated = {
    runId: record.runId,
    interruptId: interruptIdOf(record),
    toolCallId: (record.asks[0] as Ask).toolCallId,
    asks: record.asks.map((ask) => ask.toolCallId),
    status: 'paused',
    createdAt: record.createdAt,
    expiresAt: expiresAtOf(record),
  };
  if (replayed) created.replayed = true;
  return created;
}

/** The answer of a pause the policies decided whole (§17): its continuation, and what the 201 would have said. */
export function toPauseClosed(record: PauseRecord, result: ResumeResult): PauseClosed {
  const closed = result as PauseClosed;
  // The continuation keeps its lazily parsed `messages` (continuation-json.ts): fields are added, never copied.
  Object.assign(closed, {
    status: 'resumed',
    toolCallId: (record.asks[0] as Ask).toolCallId,
    asks: record.asks.map((ask) => ask.toolCallId),
    createdAt: record.createdAt,
    expiresAt: expiresAtOf(record),
  });
  return closed;
}
