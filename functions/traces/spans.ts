import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import { interruptIdOf, type PauseRecord } from '../checkpoints/record.ts';
import { OUTCOME_OF } from '../checkpoints/settled-asks.ts';
import { Status } from '../vocabulary.ts';
import { derivedSpanId, parseTraceparent } from './trace-context.ts';

/**
 * The spans Handback exports (§21), pure: `handback.pause` (the request), `handback.ask` (from the pause to the ask's
 * settling decision, one event per vote, escalation and policy outcome) and `handback.execution` (from the
 * claim to its end), each named, parented and attributed as docs/observability.md proposes. Only ids, tool names,
 * outcomes, counts and doors: never arguments, answers, reasons or who a person is (a trace travels further than the
 * API).
 */

/** An attribute's value, as OTLP carries them. */
export type AttributeValue = string | number | boolean | string[];

/** Something that happened at an instant of a span. */
export interface SpanEvent {
  name: string;
  timeMs: number;
  attributes: Record<string, AttributeValue>;
}

/** The span kinds Handback's spans are (OTLP's numbers). */
export const SpanKind = { Internal: 1, Server: 2 } as const;

/** A span as Handback builds it, before OTLP's encoding (`otlp.ts`). */
export interface Span {
  traceId: string;
  spanId: string;
  /** The span it is a child of; absent for a trace's root. */
  parentSpanId?: string;
  name: string;
  kind: (typeof SpanKind)[keyof typeof SpanKind];
  startMs: number;
  endMs: number;
  attributes: Record<string, AttributeValue>;
  events: SpanEvent[];
  /** An error's span: OTLP's status `ERROR` with this message; absent: unset. */
  error?: string;
}

/** The span names (§21). */
export const SPAN_NAMES = {
  pause: 'handback.pause',
  ask: 'handback.ask',
  execution: 'handback.execution',
} as const;

/** How an ask settled, as `handback.outcome` says it: §21's outcomes, and an `answer` ask's answer. */
export type AskOutcome = 'approve' | 'edit' | 'reject' | 'answer' | 'expired' | 'cancelled' | 'policy';

/** A `handback.pause` span's request, as it ended. */
export interface PauseRequest {
  /** The trace the span is in, and its own id. */
  traceId: string;
  spanId: string;
  /** The caller's span, when the request came in a trace; absent: the span is its trace's root. */
  parentSpanId?: string;
  startMs: number;
  endMs: number;
  runId: string;
  /** What the store answered; absent when it refused the pause. */
  created?: { interruptId: string; asks: readonly string[]; closed: boolean; replayed: boolean };
  /** The refusal's stable code, when the store refused it. */
  errorCode?: string;
}

/** The `handback.pause` span: the request that made (or was refused) a pause. */
export function pauseSpan(request: PauseRequest): Span {
  const { created } = request;
  const attributes: Record<string, AttributeValue> = { 'handback.run.id': request.runId };
  if (created !== undefined) {
    attributes['handback.pause.id'] = created.interruptId;
    attributes['handback.asks'] = created.asks.length;
    attributes['handback.replayed'] = created.replayed;
    // Every ask decided by the deployment's policies at once (§17): nothing waits.
    if (created.closed) attributes['handback.outcome'] = 'policy';
  }
  if (request.errorCode !== undefined) attributes['handback.error.code'] = request.errorCode;
  return {
    traceId: request.traceId,
    spanId: request.spanId,
    ...(request.parentSpanId === undefined ? {} : { parentSpanId: request.parentSpanId }),
    name: SPAN_NAMES.pause,
    kind: SpanKind.Server,
    startMs: request.startMs,
    endMs: request.endMs,
    attributes,
    events: [],
    ...(request.errorCode === undefined ? {} : { error: request.errorCode }),
  };
}

/** One level of an escalation ladder an ask reached (§21): when, and how many approvers it added. */
export interface EscalationStep {
  level: number;
  atMs: number;
  /** How many approvers the level added (never who they are). */
  approvers: number;
}

/** The event of an escalation level, on its ask's span. */
export function escalationEvent(step: EscalationStep): SpanEvent {
  return {
    name: 'handback.escalation',
    timeMs: step.atMs,
    attributes: { 'handback.level': step.level, 'handback.approvers': step.approvers },
  };
}

/**
 * Where the escalation ladder (§21) tells an ask's span which of its levels the ask reached: given the record, each
 * ask's steps. The ladder's module passes its own reader to `askSpans`; without one, no ask escalated.
 */
export type EscalationsOf = (record: PauseRecord, askIndex: number) => readonly EscalationStep[];

/**
 * The `handback.ask` spans of the asks `change` settled: an ask whose decision this change recorded, or which its
 * closing settled undecided (a cancel, an expiry). Each spans from the pause's creation to that moment, in the trace
 * of the pause's `traceparent` as a child of its span; none for a pause outside a sampled trace. The span id is the
 * ask's own (`derivedSpanId`), so a change delivered twice exports the same span twice, never two spans.
 */
export function askSpans(change: PauseChange, escalationsOf: EscalationsOf = () => []): Span[] {
  const { before, after } = change;
  const trace = parseTraceparent(after.traceparent);
  if (trace === undefined || !trace.sampled) return [];
  const closedNow = after.status !== Status.Paused && (before === undefined || before.status === Status.Paused);
  const interruptId = interruptIdOf(after);
  const createdMs = Date.parse(after.createdAt);
  const spans: Span[] = [];
  after.asks.forEach((ask, index) => {
    const decision = after.decisions[index];
    const decidedNow = decision !== undefined && before?.decisions[index] === undefined;
    const settledUndecided = closedNow && decision === undefined;
    if (!decidedNow && !settledUndecided) return;
    const outcome: AskOutcome = settledUndecided
      ? after.status === Status.Cancelled
        ? 'cancelled'
        : 'expired'
      : outcomeOf(decision);
    // An expiry that only marks the pause (`onExpiry: "fail"`) writes no closing: it ended at `expiresAt`.
    const endMs = settledUndecided
      ? after.closing === undefined
        ? after.expiresAtMs
        : Date.parse(after.closing.closedAt)
      : Date.parse(decision?.decidedAt ?? after.createdAt);
    const votes = after.votes?.[index] ?? [];
    const steps = escalationsOf(after, index);
    const attributes: Record<string, AttributeValue> = {
      'handback.tool': ask.name,
      'gen_ai.tool.call.id': ask.toolCallId,
      'handback.ask.kind': ask.kind,
      'handback.outcome': outcome,
      'handback.run.id': after.runId,
      'handback.pause.id': interruptId,
      // The votes that settled it: a quorum's, or the one person's decision; none for a policy, an expiry or a cancel.
      'handback.votes': votes.length > 0 ? votes.length : isPersonal(outcome) ? 1 : 0,
      'handback.level': steps.reduce((level, step) => Math.max(level, step.level), 0),
    };
    if (decision?.by !== undefined && isPersonal(outcome)) attributes['handback.via'] = decision.by.via;
    if (ask.policy !== undefined) {
      attributes['handback.policy.outcome'] = ask.policy.outcome;
      if (ask.policy.policyIds.length > 0) attributes['handback.policy.id'] = ask.policy.policyIds;
    }
    // The policies record their version on the principal of each decision they made (`by.policyVersion`).
    const version = (decision?.by as { policyVersion?: unknown } | undefined)?.policyVersion;
    if (typeof version === 'string') attributes['handback.policy.version'] = version;
    const events: SpanEvent[] = [];
    if (ask.policy !== undefined) {
      events.push({
        name: 'handback.policy',
        timeMs: createdMs,
        attributes: {
          'handback.policy.outcome': ask.policy.outcome,
          'handback.policy.id': ask.policy.policyIds,
          ...(ask.policy.shadow === true ? { 'handback.policy.shadow': true } : {}),
        },
      });
    }
    for (const vote of votes) {
      events.push({
        name: 'handback.vote',
        timeMs: Date.parse(vote.at),
        attributes: { 'handback.decision': vote.body.decision, 'handback.via': vote.by.via },
      });
    }
    events.push(...steps.map(escalationEvent));
    events.sort((a, b) => a.timeMs - b.timeMs);
    spans.push({
      traceId: trace.traceId,
      spanId: derivedSpanId('ask', after.tenant, after.runId, interruptId, ask.toolCallId),
      parentSpanId: trace.spanId,
      name: SPAN_NAMES.ask,
      kind: SpanKind.Internal,
      startMs: createdMs,
      endMs: Math.max(endMs, createdMs),
      attributes,
      events,
    });
  });
  return spans;
}

/** How a recorded decision settled its ask. */
function outcomeOf(decision: PauseRecord['decisions'][number]): AskOutcome {
  if (decision === undefined) return 'expired';
  if (decision.by?.via === 'policy') return 'policy';
  if (decision.by?.via === 'sweep') return 'expired';
  if ('answer' in decision.body) return 'answer';
  return OUTCOME_OF[decision.body.decision];
}

/** Whether a person (or an agent, or a link) decided: not a policy, the sweep or a closing. */
function isPersonal(outcome: AskOutcome): boolean {
  return outcome !== 'policy' && outcome !== 'expired' && outcome !== 'cancelled';
}

/** The statuses a call's execution ends in. */
export type ExecutionStatus = 'succeeded' | 'failed' | 'refused';

/** A call's execution after its approval, from its claim to its end, for `executionSpan`. */
export interface ExecutionTrace {
  /** The pause's `traceparent` (the continuation's): the trace the span joins. */
  traceparent: string | undefined;
  tenant: string;
  runId: string;
  continuationId: string;
  toolCallId: string;
  /** The call's tool name. */
  tool: string;
  /** When it was claimed; a refused claim's own time. */
  claimedAtMs: number;
  /** When it ended: its finish, or the refusal. */
  endedAtMs: number;
  status: ExecutionStatus;
  /** A refusal's code (`policy_forbids`, `approval_expired`), never the tool's own error text. */
  reason?: string;
}

/**
 * The `handback.execution` span of a call run after its approval: in the pause's trace as a child of its span,
 * its id the execution's own, so the finish and any retry of it export one span; undefined outside a sampled trace.
 */
export function executionSpan(execution: ExecutionTrace): Span | undefined {
  const trace = parseTraceparent(execution.traceparent);
  if (trace === undefined || !trace.sampled) return undefined;
  const attributes: Record<string, AttributeValue> = {
    'handback.tool': execution.tool,
    'gen_ai.tool.call.id': execution.toolCallId,
    'handback.run.id': execution.runId,
    'handback.continuation.id': execution.continuationId,
    'handback.execution.status': execution.status,
  };
  if (execution.reason !== undefined) attributes['handback.execution.reason'] = execution.reason;
  return {
    traceId: trace.traceId,
    spanId: derivedSpanId(
      'execution',
      execution.tenant,
      execution.runId,
      execution.continuationId,
      execution.toolCallId,
    ),
    parentSpanId: trace.spanId,
    name: SPAN_NAMES.execution,
    kind: SpanKind.Internal,
    startMs: execution.claimedAtMs,
    endMs: Math.max(execution.endedAtMs, execution.claimedAtMs),
    attributes,
    events: [],
    ...(execution.status === 'succeeded' ? {} : { error: execution.reason ?? execution.status }),
  };
}

/**
 * The `handback.execution` spans of the executions a committed change ended (§19: a finish told by its claimant, or a
 * claim refused at run time), from its claim to its end, in the pause's trace: what the claim and finish use cases
 * (`POST`/`PUT …/executions`) wrote, exported by the process that saw the change, as the asks' spans are.
 */
export function executionSpans(change: PauseChange): Span[] {
  const { before, after } = change;
  const continuationId = after.closing?.continuationId;
  if (continuationId === undefined) return [];
  const spans: Span[] = [];
  (after.executions ?? []).forEach((execution, index) => {
    const ask = after.asks[index];
    if (execution === undefined || ask === undefined || execution.status === 'claimed') return;
    if (before?.executions?.[index]?.status === execution.status) return;
    const claimedAtMs = Date.parse(execution.claimedAt);
    const span = executionSpan({
      traceparent: after.traceparent,
      tenant: after.tenant,
      runId: after.runId,
      continuationId,
      toolCallId: ask.toolCallId,
      tool: ask.name,
      claimedAtMs,
      endedAtMs: execution.endedAt === undefined ? claimedAtMs : Date.parse(execution.endedAt),
      status: execution.status,
      ...(execution.refusal === undefined ? {} : { reason: execution.refusal.code }),
    });
    if (span !== undefined) spans.push(span);
  });
  return spans;
}
