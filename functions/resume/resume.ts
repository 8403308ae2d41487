import type {
  CancelInput,
  CheckpointStore,
  ClaimExecutionInput,
  Continuation,
  ContinuationKey,
  DecideInput,
  DecideResult,
  ExecutionClaimed,
  ExecutionEnded,
  FinishExecutionInput,
  ListPausesQuery,
  PauseClosed,
  PauseCreated,
  PauseInput,
  PauseKey,
  PausePage,
  PauseView,
  ResumeInput,
  ResumeResult,
  StatsInput,
  SweepResult,
} from '../checkpoints/checkpoint-store.ts';
import { messageCount } from '../checkpoints/continuation-json.ts';
import { checkNotifyConfigured, notifyOf } from '../checkpoints/notify.ts';
import type { PeopleDeps } from '../checkpoints/people-me.ts';
import {
  AlreadyDecidedError,
  AlreadyResumedError,
  ForbiddenError,
  HandbackError,
  LinkKeyUnavailableError,
  NoChannelError,
  PauseCancelledError,
  PauseExpiredError,
} from '../errors.ts';
import { type ClaimInput, type ClaimResult, claimClosedPause, type HandoffClaims } from '../handoff/claims.ts';
import type { Handoff } from '../handoff/handoff.ts';
import { type AnswerLinks, grantorOf, type LinkRecipient, LinksNotConfiguredError } from '../links/links.ts';
import type { PolicyEngine } from '../policies/port.ts';
import type { Traces } from '../traces/traces.ts';
import { type ChannelName, LIMITS, type Via } from '../vocabulary.ts';
import type { Actor, CreatedLink, DeliveredLink } from '../wire.ts';
import type { DecisionStats } from '../wire-reports.ts';
import { countEscalation } from './decision-metrics.ts';
import { jsonBytes } from './request.ts';
import { Metric, MetricUnit, type Telemetry } from './telemetry.ts';

/**
 * The use cases every entry point shares: the HTTP API, the Step Functions task, the SQS and
 * EventBridge handlers, the sweep and the local service all go through these, so each of them hands off, counts and
 * logs the same way. Reads go through here too (one door), so a handler never talks to the store itself.
 */

/** What the use cases run on: the storage port, the hand-off, answer links, logs and metrics. */
export interface UseCaseDeps extends Telemetry {
  store: CheckpointStore;
  handoff: Handoff;
  /** Signs answer links when an inbox is configured (§11). */
  links?: AnswerLinks;
  /** The inbox page's public URL; when unset, the HTTP edge derives it from the request's own host. */
  inboxUrl?: string;
  /** Milliseconds since the epoch; injected for tests. */
  now?: () => number;
  /** The channels this deployment has configured (§14): a pause's `notify` may name only these. */
  channels?: readonly ChannelName[];
  /**
   * Mails a delivered link to its recipient (§16, `POST …/links` with `deliver: true`), as the email channel mails
   * its links; absent where the deployment has no email channel (then such a request is 409 `no_channel`).
   */
  deliverLink?: LinkMailer;
  /** Where closed pauses' hand-offs are claimed (§18); without it the claim route is not configured. */
  claims?: HandoffClaims;
  /** The spans exported to an OTLP endpoint (§21), when one is configured. */
  traces?: Traces;
  /** The deployment's policies (§19: `GET /policies`), the store's own engine; absent where none are configured. */
  policies?: () => Promise<PolicyEngine>;
  // §20 delegation
  /** The deployment's directory of persons, for `GET /people/me` and a person's own delegation; absent: none. */
  people?: PeopleDeps;
}

/** Mails `link`, a delivered answer link to the pause `view`, to `recipient`. */
export type LinkMailer = (view: PauseView, recipient: LinkRecipient, link: string) => Promise<void>;

/** The 201 body, with the answer link when an inbox is configured. */
export type PauseCreatedBody = PauseCreated & { answerUrl?: string };

/**
 * Records a paused turn, counting its transcript's bytes; adds the answer link when there is an inbox. A pause the
 * deployment's policies decided whole (§17) is closed already: its continuation is handed off like a last decision's.
 */
export async function pauseTurn(
  deps: UseCaseDeps,
  input: PauseInput,
  options: { inboxUrl?: string } = {},
): Promise<PauseCreatedBody | PauseClosed> {
  const bytes = jsonBytes(input.messages);
  checkNotifyConfigured(notifyOf(input), deps.channels ?? []);
  const created = await tracedPause(deps, input);
  if (!created.replayed) {
    deps.metrics.addMetric(Metric.Pauses, MetricUnit.Count, 1);
    deps.metrics.addMetric(Metric.PauseBytes, MetricUnit.Bytes, bytes);
  }
  deps.logger.info(created.replayed ? 'Pause replayed' : 'Paused', {
    runId: created.runId,
    interruptId: created.interruptId,
    format: input.format,
    asks: created.asks.length,
    pauseBytes: bytes,
    messageCount: Array.isArray(input.messages) ? input.messages.length : 0,
    expiresAt: created.expiresAt,
  });
  if (created.status === 'resumed') {
    // The store's own answer always says whether it was replayed (`replayed` is optional only for the client's).
    await handOff(deps, created as ResumeResult, 'api');
    return created;
  }
  const inboxUrl = deps.inboxUrl ?? options.inboxUrl;
  // A link is a capability (§13): only a person who paused is given one, granted to them (§16) so it decides as they
  // do and no more; an agent's pause reaches people another way.
  const by = input.by;
  if (deps.links === undefined || inboxUrl === undefined || by?.kind !== 'person') return created;
  const { replayed: _, ...body } = created;
  try {
    const answerUrl = await deps.links.linkFor(
      { tenant: input.tenant, runId: created.runId, interruptId: created.interruptId, expiresAt: created.expiresAt },
      inboxUrl,
      {
        kind: 'granted',
        grantor: grantorOf(
          by,
          (input.asks ?? []).map((ask) => ask?.approvers),
        ),
      },
    );
    return { ...body, answerUrl };
  } catch (error) {
    if (!(error instanceof LinkKeyUnavailableError)) throw error;
    // The pause is committed: it is answered without its link rather than failed.
    deps.logger.warn('Pause created without its answer link: the link key is unavailable', {
      runId: created.runId,
      interruptId: created.interruptId,
    });
    return body;
  }
}

/**
 * The store's pause inside its `handback.pause` span (§21), when traces are configured: the pause keeps the span's
 * `traceparent`, so its asks' spans and the agent's next invocation are its children.
 */
async function tracedPause(deps: UseCaseDeps, input: PauseInput): Promise<PauseCreated | PauseClosed> {
  if (deps.traces === undefined) return deps.store.pause(input);
  const now = deps.now ?? Date.now;
  const span = await deps.traces.pause({ runId: input.runId, traceparent: input.traceparent }, now());
  try {
    const created = await deps.store.pause(
      span.traceparent === undefined ? input : { ...input, traceparent: span.traceparent },
    );
    const { interruptId, asks, status } = created;
    span.end(
      { created: { interruptId, asks, closed: status === 'resumed', replayed: created.replayed === true } },
      now(),
    );
    return created;
  } catch (error) {
    span.end({ errorCode: error instanceof HandbackError ? error.code : 'internal_error' }, now());
    throw error;
  }
}

/** What `createLink` needs: the pause, whom the link is for, and who asks for it. */
export interface CreateLinkInput extends PauseKey {
  recipient: LinkRecipient;
  /** Mail it to the recipient instead of answering with it (§16): a delivered link, deciding as that address. */
  deliver?: boolean;
  /** Who asks (§13): only a `person` may hand out a link. */
  by: Actor;
}

export type { CreatedLink, DeliveredLink } from '../wire.ts';

/**
 * Makes an answer link for one recipient (§16). Answered with its URL, it is granted: it decides as the person who asked
 * for it, and the recipient is a label. With `deliver`, Handback mails it to the recipient's address instead (409
 * `no_channel` without an email channel) and it decides as that address. Only a `person` that may read the pause may
 * ask: an agent never holds a link (403 `forbidden`), and an unknown or another tenant's pause is 404.
 */
export async function createLink(
  deps: UseCaseDeps,
  input: CreateLinkInput & { deliver: true },
  options?: { inboxUrl?: string },
): Promise<DeliveredLink>;
export async function createLink(
  deps: UseCaseDeps,
  input: CreateLinkInput & { deliver?: false },
  options?: { inboxUrl?: string },
): Promise<CreatedLink>;
export async function createLink(
  deps: UseCaseDeps,
  input: CreateLinkInput,
  options?: { inboxUrl?: string },
): Promise<CreatedLink | DeliveredLink>;
export async function createLink(
  deps: UseCaseDeps,
  input: CreateLinkInput,
  options: { inboxUrl?: string } = {},
): Promise<CreatedLink | DeliveredLink> {
  const { tenant, runId, interruptId, recipient, by } = input;
  if (by.kind !== 'person') {
    throw new ForbiddenError(
      `Only a person may create an answer link; this request is by a principal of kind ${by.kind}.`,
    );
  }
  const inboxUrl = deps.inboxUrl ?? options.inboxUrl;
  if (deps.links === undefined || inboxUrl === undefined) {
    throw new LinksNotConfiguredError();
  }
  const view = await getPause(deps, { tenant, runId, interruptId });
  const pause = { tenant, runId, interruptId, expiresAt: view.expiresAt };
  if (input.deliver === true) {
    if (deps.deliverLink === undefined) throw new NoChannelError();
    const link = await deps.links.linkFor(pause, inboxUrl, { kind: 'delivered', recipient });
    await deps.deliverLink(view, recipient, link);
    deps.logger.info('Link delivered', { runId, interruptId });
    return { recipient, delivered: true };
  }
  const grantor = grantorOf(
    by,
    view.asks.map((ask) => ask.approvers),
  );
  const answerUrl = await deps.links.linkFor(pause, inboxUrl, { kind: 'granted', grantor, recipient });
  deps.logger.info('Link created', { runId, interruptId });
  return { answerUrl, recipient };
}

/** Part one: answers a pause's one `answer` ask exactly once and hands the continuation off. */
export async function resumeTurn(deps: UseCaseDeps, input: ResumeInput, trigger: Via): Promise<ResumeResult> {
  const result = await counted(deps, input, trigger, () => deps.store.resume(input));
  await handOff(deps, result, trigger);
  return result;
}

/**
 * Records decisions (§9). The request that records the last one commits the continuation, which is handed off; a
 * replayed closing hands off again (delivery is at least once).
 */
export async function decideTurn(deps: UseCaseDeps, input: DecideInput, trigger: Via): Promise<DecideResult> {
  const result = await counted(deps, input, trigger, () => deps.store.decide(input));
  if (result.kind === 'closed') {
    await handOff(deps, result, trigger);
  } else {
    deps.metrics.addMetric(Metric.PartialDecisions, MetricUnit.Count, 1);
    deps.logger.info(result.replayed ? 'Decisions replayed' : 'Decided', {
      runId: result.runId,
      interruptId: result.interruptId,
      trigger,
      decided: result.decided.length,
      pending: result.pending.length,
    });
  }
  return result;
}

/** Cancels a pause (§10) and hands the continuation off (`SendTaskFailure` for a task token). */
export async function cancelTurn(deps: UseCaseDeps, input: CancelInput, trigger: Via): Promise<ResumeResult> {
  const result = await counted(deps, input, trigger, () => deps.store.cancel(input));
  await handOff(deps, result, trigger);
  return result;
}

/**
 * The sweep (§10): due reminders, expiries marked, `onExpiry: "reject"` pauses closed and handed off, a bounded number
 * at once (§23). The store keeps each closing it made due until its hand-off is acknowledged, so a target that refuses
 * now gets the continuation on a later tick (§6: at least once); a hand-off that fails is logged and counted, and the
 * sweep goes on.
 */
export async function sweepDue(deps: UseCaseDeps, options: { limit?: number } = {}): Promise<SweepResult> {
  const result = await deps.store.closeDue({
    ...options,
    // Each closing handed off as soon as it is committed; one that fails is counted and logged by handOff, and stays
    // due for a later tick. The other pauses are not held up.
    deliver: (closed) => handOff(deps, closed, 'sweep'),
  });
  for (const view of result.reminded) deps.logger.info('Reminder due', idsOf(view));
  for (const view of result.expired) {
    deps.metrics.addMetric(Metric.PausesExpired, MetricUnit.Count, 1);
    deps.logger.info('Expired', idsOf(view));
  }
  for (const closed of result.closed) {
    if (!closed.replayed) deps.metrics.addMetric(Metric.PausesExpired, MetricUnit.Count, 1);
  }
  // §21: each level once, from the sweep's own conditional write that reached it (a racer reached none).
  for (const level of result.escalated ?? []) countEscalation(deps.metrics, level);
  return result;
}

/** One pause, with its messages when asked. */
export function getPause(
  deps: UseCaseDeps,
  key: PauseKey,
  options: { includeMessages?: boolean; by?: Actor } = {},
): Promise<PauseView> {
  return deps.store.getPause(key, options);
}

/** The continuation that closed a pause. */
export function getContinuation(deps: UseCaseDeps, key: ContinuationKey): Promise<Continuation> {
  return deps.store.getContinuation(key);
}

/**
 * Claims a closed pause's hand-off for one consumer (§18): the first claimant gets it, every other one is told who
 * has it. Logged like every decision that changes what runs.
 */
export async function claimHandoff(deps: UseCaseDeps, input: ClaimInput): Promise<ClaimResult> {
  if (deps.claims === undefined) throw new Error('Hand-off claims are not configured.');
  const claim = await claimClosedPause({ getPause: (key) => deps.store.getPause(key), claims: deps.claims }, input);
  deps.logger.info(claim.claimed ? 'Hand-off claimed' : 'Hand-off claimed before', {
    runId: claim.runId,
    interruptId: claim.interruptId,
  });
  return claim;
}

// §19
/**
 * Claims a dispatched call before it runs: the store judges it again and records the one claim (or its refusal).
 * Logged like every change of what runs; a refusal is logged as every refusal is.
 */
export async function claimExecution(deps: UseCaseDeps, input: ClaimExecutionInput): Promise<ExecutionClaimed> {
  const ids = { runId: input.runId, continuationId: input.continuationId, toolCallId: input.toolCallId };
  try {
    const claimed = await deps.store.claimExecution(input);
    deps.logger.info('Execution claimed', ids);
    return claimed;
  } catch (error) {
    if (error instanceof HandbackError) deps.logger.info('Execution refused', { ...ids, code: error.code });
    throw error;
  }
}

/** Records how a claimed execution ended, told by its claimant. */
export async function finishExecution(deps: UseCaseDeps, input: FinishExecutionInput): Promise<ExecutionEnded> {
  const ended = await deps.store.finishExecution(input);
  deps.logger.info('Execution finished', {
    runId: input.runId,
    continuationId: input.continuationId,
    toolCallId: input.toolCallId,
    status: ended.status,
  });
  return ended;
}

/** A page of the tenant's pauses. */
export function listPauses(deps: UseCaseDeps, query: ListPausesQuery): Promise<PausePage> {
  return deps.store.listPauses(query);
}

/** How decisions went for a tenant's asks of the pauses made in a window (§21). */
export function getStats(deps: UseCaseDeps, input: StatsInput): Promise<DecisionStats> {
  return deps.store.stats(input);
}

/** Runs a store call, counting and logging its refusals the same way for every trigger. */
async function counted<T>(
  deps: UseCaseDeps,
  input: { runId: string; interruptId: string },
  trigger: Via,
  run: () => Promise<T>,
): Promise<T> {
  const now = deps.now ?? Date.now;
  const started = now();
  try {
    const result = await run();
    deps.metrics.addMetric(Metric.ResumeLatency, MetricUnit.Milliseconds, now() - started);
    return result;
  } catch (error) {
    if (error instanceof AlreadyResumedError || error instanceof AlreadyDecidedError) {
      deps.metrics.addMetric(Metric.ResumeConflicts, MetricUnit.Count, 1);
    }
    if (error instanceof PauseExpiredError || error instanceof PauseCancelledError) {
      deps.metrics.addMetric(Metric.LateDecisions, MetricUnit.Count, 1);
    }
    if (error instanceof HandbackError) {
      deps.logger.info('Refused', {
        runId: String(input?.runId).slice(0, 128),
        interruptId: String(input?.interruptId).slice(0, LIMITS.idChars),
        trigger,
        code: error.code,
        error: error.name,
      });
    }
    throw error;
  }
}

/** Hands a closing's continuation off; a failure is counted, logged and thrown (the trigger retries, and replays). */
async function handOff(deps: UseCaseDeps, result: ResumeResult, trigger: Via): Promise<void> {
  const ids = { runId: result.runId, interruptId: result.interruptId, continuationId: result.continuationId, trigger };
  deps.metrics.addMetric(result.replayed ? Metric.ResumesReplayed : Metric.Resumes, MetricUnit.Count, 1);
  deps.logger.info(result.replayed ? 'Closing replayed' : 'Closed', {
    ...ids,
    outcome: result.outcome,
    format: result.format,
    dispatch: result.dispatch.length,
    messageCount: messageCount(result),
  });
  try {
    await deps.handoff.deliver(result);
  } catch (error) {
    deps.metrics.addMetric(Metric.HandoffFailures, MetricUnit.Count, 1);
    deps.logger.error('Hand-off failed', { ...ids, error });
    throw error;
  }
}

function idsOf(view: PauseView): Record<string, string> {
  return { runId: view.runId, interruptId: view.interruptId };
}
