import { randomBytes as nodeRandomBytes } from 'node:crypto';
import type { Directory } from '../directory/port.ts';
import { AlreadyResumedError, OpenPauseExistsError, PayloadTooLargeError } from '../errors.ts';
import { actor } from '../fields.ts';
import { cancelInput, continuationKey, decideInput, listQuery, parseInput, pauseKey, resumeInput } from '../inputs.ts';
import { canonicalJson, capitalize } from '../json.ts';
import { once } from '../once.ts';
import type { LadderLevel, PolicyEngine } from '../policies/port.ts';
import { type Decision, plan } from '../rehydrate/decide.ts';
import { isFormatName, loadFormat } from '../rehydrate/formats/load.ts';
import type { BundleDefines } from '../settings.ts';
import { LIMITS, type Outcome, Status } from '../vocabulary.ts';
import type { Actor, Principal } from '../wire.ts';
import type {
  CancelInput,
  CheckpointStore,
  Continuation,
  ContinuationKey,
  DecideInput,
  DecideResult,
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
  SweepOptions,
  SweepResult,
} from './checkpoint-store.ts';
import { type CheckpointChecks, missingCheck } from './checks.ts';
import { closedResult, closeRecord, closingPrincipal, pendingOf, roundOfAsks } from './closing.ts';
import { type Codec, DEFAULT_CODEC, encodeTranscript, roundPosition, serializeTranscript, sha256 } from './codec.ts';
import { commit, type Step } from './commit.ts';
import { copyInto } from './continuation-json.ts';
import {
  answerDecision,
  checkAgainstAskSchema,
  checkAuthority,
  checkVotesAndArgs,
  conflictError,
  conflictOf,
  matchDecisions,
  needsSchemaCheck,
  recordDecisions,
} from './deciding.ts';
import type { ExecutionClaims } from './execution-claims.ts';
import { LIBRARY_PRINCIPAL, recorded } from './identity.ts';
import { pauseIdOf, randomToken } from './ids.ts';
import { judgeEdits } from './judging.ts';
import { type FormatRound, PauseReader } from './pause-reader.ts';
import { resolveActor, withPauser } from './people.ts';
import type { CheckpointPersistence, StoredPause } from './persistence.ts';
import { interruptIdOf, type PauseRecord, statusAt } from './record.ts';
import type { SweepDeps } from './sweep-batch.ts';
import { modelHashes, needsCalls } from './tally.ts';
import { toPauseClosed, toPauseCreated } from './views.ts';
import { closedRefusal } from './who-decides.ts';

/**
 * The rules of pausing and deciding, storage-agnostic: one open pause per run, idempotent pause
 * creation, decisions recorded each exactly once, the last one committing the one continuation, cancel, expiry
 * (checked on every read; acted on by the sweep), replays by hash. Every change is one conditional write of one
 * record on the persistence port — no transactions — and every write is conditional on the revision that was read,
 * so concurrent requests are linearised: a loser reads again and decides again (`commit.ts`, the one loop). Every
 * input is parsed with its one schema (`functions/inputs.ts`) before anything is read: a library user's call is held
 * to what the HTTP edge holds a request to.
 */

/** How a `CheckpointService` is built. */
export interface CheckpointServiceOptions {
  persistence: CheckpointPersistence;
  /** The time now. @default () => new Date() */
  clock?: () => Date;
  /** Random bytes for ids. @default node:crypto randomBytes */
  randomBytes?: (size: number) => Uint8Array;
  /** The codec new transcripts are compressed with; both are always readable. @default 'br' */
  codec?: Codec;
  /**
   * Called after every committed change of a pause (never awaited; what it throws is swallowed): the local service
   * turns changes into lifecycle events here. On AWS the table's stream does it instead.
   */
  onChange?: (change: PauseChange) => void;
  /**
   * The checks this store can run (see `CheckpointChecks`; the factories give `ALL_CHECKS`): a Lambda entry point that
   * never records pauses, or never checks answers, leaves them out of its bundle. No default here, so that this module
   * names neither check module.
   */
  checks: CheckpointChecks;
  /**
   * The deployment's recipient domains (§16, `HANDBACK_RECIPIENT_DOMAINS`): an agent names approvers by email, and
   * email `notify` recipients, only inside them. @default none: an agent names approvers by subject and group only
   */
  recipientDomains?: readonly string[];
  /**
   * The deployment's policies (§17), loaded on the first pause with an `approval` ask (Cedar is never loaded
   * otherwise); absent: no policy applies, and no default either.
   */
  policies?: () => Promise<PolicyEngine>;
  /** The deployment's directory of persons (§20), read on each request. @default none */
  directory?: Directory;
  /** §21: the deployment's escalation ladder for asks no policy escalates (`HANDBACK_ESCALATION`). @default none */
  escalation?: readonly LadderLevel[];
}

/** A committed change: the record before (undefined for a new pause) and after. */
export interface PauseChange {
  before?: PauseRecord;
  after: PauseRecord;
}

/** Times a pause retries after losing its sequence number to a pause that is no longer open. */
const PAUSE_ROUNDS = 3;

/**
 * The checkpoint service: the `CheckpointStore` every entry point and a user's own code call. What only some entry
 * points do is loaded by its first call (§23), so a function that never does it never loads it: a new pause's record
 * (`new-pause.ts`), the listing, the counts (`stats.ts`, `census.ts`), the sweep (`sweep-batch.ts`) and the execution
 * claims (`execution-claims.ts`) are chunks of their own in a Lambda bundle, none in a resume trigger's init.
 */
export class CheckpointService implements CheckpointStore {
  readonly #persistence: CheckpointPersistence;
  readonly #reader: PauseReader;
  readonly #clock: () => Date;
  readonly #randomBytes: (size: number) => Uint8Array;
  readonly #codec: Codec;
  readonly #onChange: ((change: PauseChange) => void) | undefined;
  readonly #checks: CheckpointChecks;
  readonly #recipientDomains: readonly string[];
  readonly #policies: (() => Promise<PolicyEngine>) | undefined;
  readonly #who: (tenant: string, actor: Actor) => Promise<Actor>;
  readonly #executions: () => Promise<ExecutionClaims>;
  readonly claimExecution: CheckpointStore['claimExecution'] = async (input) => (await this.#executions()).claim(input);
  readonly finishExecution: CheckpointStore['finishExecution'] = async (input) =>
    (await this.#executions()).finish(input);
  readonly #escalation: readonly LadderLevel[] | undefined;
  readonly #sweep: SweepDeps;

  constructor(options: CheckpointServiceOptions) {
    this.#persistence = options.persistence;
    this.#reader = new PauseReader(options.persistence);
    this.#clock = options.clock ?? (() => new Date());
    this.#randomBytes = options.randomBytes ?? nodeRandomBytes;
    this.#codec = options.codec ?? DEFAULT_CODEC;
    this.#onChange = options.onChange;
    this.#checks = options.checks;
    this.#recipientDomains = options.recipientDomains ?? [];
    this.#policies = options.policies;
    this.#who = (tenant, actor) => resolveActor(options.directory, tenant, actor, this.#clock().getTime());
    const { persistence, policies } = options;
    const changed = this.#changed.bind(this);
    this.#executions = once(async () => {
      const { ExecutionClaims } = await import('./execution-claims.ts');
      return new ExecutionClaims({ persistence, reader: this.#reader, clock: this.#clock, changed, policies });
    });
    this.#escalation = options.escalation;
    this.#sweep = {
      persistence,
      commit: (read, change, options) => this.#commit(read, change, options),
      round: (stored) => this.#reader.round(stored),
      close: (record, round, outcome, nowMs, by) => this.#close(record, round, outcome, nowMs, by),
      closedResult: (stored, replayed) => this.#closedResult(stored, replayed),
      acknowledge: (read) => this.#acknowledge(read),
      directory: options.directory,
    };
  }

  async pause(input: PauseInput): Promise<PauseCreated | PauseClosed> {
    if (this.#checks.pause === undefined) throw missingCheck('pause');
    // The pause's format is loaded beside the checks (on first use, once per container): they need its module.
    const [checks, format, { fitAsks, laddered, newPauseRecord, nextNumber }] = await Promise.all([
      this.#checks.pause(),
      isFormatName(input?.format) ? loadFormat(input.format) : undefined,
      import('./new-pause.ts'),
    ]);
    const checked = checks.checkPauseInput(input, format, { recipientDomains: this.#recipientDomains });
    const pause = await withPauser(checked, this.#who);
    const json = serializeTranscript(pause.messages);
    if (json.length > LIMITS.transcriptBytes) {
      const message = `the transcript is ${json.length} bytes as JSON, over the limit of ${LIMITS.transcriptBytes}`;
      throw new PayloadTooLargeError(`${capitalize(message)}.`, [{ path: '/messages', message }]);
    }
    // §17: the policies judge each approval ask once, before the pause is written (policy-decisions.ts, loaded with
    // the engine on the first pause that needs them: a deployment without policies never loads either). A Lambda
    // bundle built without policies defines `HANDBACK_BUNDLED_POLICIES` as "false" (an esbuild `define`, `BundleDefines`, spelled out
    // here, with the `import()` in the branch itself, so it folds): the branch is dead code there, and its chunks are not
    // in the bundle at all.
    let judged: Judged | undefined;
    // The policies judge at the service's clock (§19): the pause is created at the same instant.
    const now = this.#clock();
    if (
      (globalThis as BundleDefines).HANDBACK_BUNDLED_POLICIES !== 'false' &&
      this.#policies !== undefined &&
      pause.asks.some((ask) => ask.kind === 'approval')
    ) {
      const [engine, seam] = await Promise.all([this.#policies(), import('./policy-decisions.ts')]);
      const settled = await seam.judgeAsks(engine, pause, pause.by, now);
      judged = { apply: (record, nowMs) => seam.withPolicyOutcomes(record, settled, nowMs) };
    }
    const asks = fitAsks(pause);
    const requestHash =
      pause.idempotencyKey === undefined ? undefined : sha256(`${sha256(json)}:${canonicalJson(pause.requestFields)}`);
    const position = roundPosition(json, pause.messages, pause.roundStart);
    const encoded = await encodeTranscript(json, {
      codec: this.#codec,
      ...(position === undefined ? {} : { round: position }),
    });
    const { header: transcript, bytes } = encoded;
    const readHint = this.#persistence.readHint(bytes.length);
    // What this request last tried to create: a retry (by the SDK) of a write that had succeeded meets it.
    let attempt: { record: PauseRecord; result: PauseCreated | PauseClosed } | undefined;
    return this.#commit(
      () => this.#persistence.latest(pause.tenant, pause.runId),
      async (latest, _, round): Promise<Step<PauseCreated | PauseClosed>> => {
        if (attempt !== undefined && latest?.seq === attempt.record.seq && latest.token === attempt.record.token) {
          return { result: attempt.result };
        }
        const next = nextNumber(latest, { ...pause, requestHash }, now.getTime());
        if (next === 'replay') return { result: await this.#replayedPause(latest as PauseRecord) };
        // A pause that keeps losing its number to pauses that close at once is refused as the run's open pause would be.
        if (round > PAUSE_ROUNDS) throw new OpenPauseExistsError(pause.runId, latest && interruptIdOf(latest));
        const token = randomToken(this.#randomBytes);
        const hash = requestHash === undefined ? {} : { requestHash };
        let record = newPauseRecord(pause, { seq: next, token, readHint, transcript, asks, now, ...hash });
        let result: PauseCreated | PauseClosed | undefined;
        const outcomes = judged?.apply(record, now.getTime());
        if (outcomes !== undefined) record = outcomes.record;
        record = laddered(record, this.#escalation);
        if (outcomes?.complete) {
          // Every ask decided by the policies: the pause is written closed, its continuation committed with it.
          const round = await this.#reader.round({ record, transcript: bytes });
          const closed = this.#close(record, round, 'resumed', now.getTime(), closingPrincipal(record));
          record = closed.record;
          result = toPauseClosed(record, closed.result);
        }
        attempt = { record, result: result ?? toPauseCreated(record) };
        return { write: { create: bytes, after: record }, result: attempt.result };
      },
      { rounds: PAUSE_ROUNDS + 1 },
    );
  }

  async resume(input: ResumeInput): Promise<ResumeResult> {
    const { answer, by, ...key } = parseInput(resumeInput, input, 'resume');
    const result = await this.#decide(key, { answer }, actorOf(by));
    // A pause with exactly one ask closes with its one decision.
    if (result.kind !== 'closed') throw new Error('A one-ask pause was left pending by its answer.');
    return copyInto({}, result, ['kind']);
  }

  async decide(input: DecideInput): Promise<DecideResult> {
    const { decisions, by, ...key } = parseInput(decideInput, input, 'decisions');
    return this.#decide(key, { decisions }, actorOf(by));
  }

  async cancel(input: CancelInput): Promise<ResumeResult> {
    const { reason, by, ...key } = parseInput(cancelInput, input, 'cancel');
    const id = pauseIdOf(key.runId, key.interruptId);
    const cancelledBy = recorded(actorOf(by));
    const recordKey = { tenant: key.tenant, runId: key.runId, seq: id.seq };
    return this.#commit(
      () => this.#reader.read(recordKey, id, true),
      async (stored, nowMs) => {
        const record = stored.record;
        const status = statusAt(record, nowMs);
        // Cancel again: the same 200; after a resume, the continuation it must not undo (§10).
        if (status === Status.Cancelled) return { result: await this.#closedResult(stored, true) };
        if (status === Status.Resumed) {
          throw new AlreadyResumedError(record.runId, interruptIdOf(record), record.closing?.continuationId ?? '');
        }
        const refusal = closedRefusal(record, status);
        if (refusal !== undefined) throw refusal;
        const next = { ...record, rev: record.rev + 1 };
        const round = await this.#reader.round(stored);
        const closed = this.#close(next, round, 'cancelled', nowMs, cancelledBy, reason);
        return { write: { before: record, after: closed.record }, result: closed.result };
      },
    );
  }

  async getPause(key: PauseKey, options: { includeMessages?: boolean; by?: Actor } = {}): Promise<PauseView> {
    const { tenant, runId, interruptId } = parseInput(pauseKey, key, 'pause key');
    const viewer = options.by && (await this.#who(tenant, parseInput(actor, options.by, 'principal', '/by')));
    const id = pauseIdOf(runId, interruptId);
    const shown = { includeMessages: options.includeMessages === true, viewer, nowMs: () => this.#clock().getTime() };
    return this.#reader.view({ tenant, runId, seq: id.seq }, id, shown);
  }

  async getContinuation(key: ContinuationKey): Promise<Continuation> {
    const stored = await this.#reader.continuation(parseInput(continuationKey, key, 'continuation key'));
    return copyInto({}, await this.#closedResult(stored, true), ['replayed', 'taskToken', 'callbackId']);
  }

  async listPauses(query: ListPausesQuery): Promise<PausePage> {
    const parsed = parseInput(listQuery, query, 'listing');
    const { listPage } = await import('./listing.ts');
    return listPage(this.#persistence, parsed, this.#clock().getTime(), this.#who);
  }

  /** §21's counts: reads of the persistence alone (`stats.ts`, `census.ts`), beside the rules. */
  readonly stats = async (input: StatsInput) =>
    (await import('./stats.ts')).decisionStats(this.#persistence, input, this.#clock().getTime());
  readonly countPending = async (options: { limit?: number } = {}) =>
    (await import('./census.ts')).pendingCensus(this.#persistence, this.#clock().getTime(), options.limit);

  async closeDue(options: SweepOptions = {}): Promise<SweepResult> {
    const [{ sweepEach, sweepOne }, keys] = await Promise.all([
      import('./sweep-batch.ts'),
      this.#persistence.due(this.#clock().getTime(), options.limit ?? LIMITS.sweepBatch),
    ]);
    // Each due pause on its own (one conditional write each), a bounded number at once; the result in due order.
    return sweepEach(keys, (key, result) => sweepOne(this.#sweep, key, result, options.deliver));
  }

  async acknowledgeHandoff(key: PauseKey): Promise<void> {
    const { tenant, runId, interruptId } = parseInput(pauseKey, key, 'pause key');
    const id = pauseIdOf(runId, interruptId);
    await this.#acknowledge(() => this.#reader.read({ tenant, runId, seq: id.seq }, id, false));
  }

  /** Takes a delivered closing off the sweep's list: the record `read` gives, read again on a lost race. */
  async #acknowledge(read: () => Promise<{ record?: PauseRecord | undefined }>): Promise<void> {
    await this.#commit(read, async ({ record }) => {
      if (record?.handoffDue !== true) return { result: undefined };
      const after: PauseRecord = { ...record, rev: record.rev + 1 };
      delete after.handoffDue;
      delete after.dueAtMs;
      return { write: { before: record, after }, result: undefined };
    });
  }

  /** The one commit loop (`commit.ts`) on this store's persistence, clock and observer. */
  #commit<S, T>(
    read: () => Promise<S>,
    change: (stored: S, nowMs: number, round: number) => Promise<Step<T>>,
    options?: { rounds?: number; onOverload?: 'throw' | 'give-up' },
  ): Promise<T> {
    const deps = { persistence: this.#persistence, clock: this.#clock, changed: this.#changed.bind(this) };
    return commit(deps, read, change, options);
  }

  /**
   * Records decisions (`decisions`), or part one's answer to the pause's one `answer` ask (`answer`), by `actor`:
   * the request is checked against what was read (asks, kinds, schemas, who may decide), then recorded in one
   * conditional write; the write that records the last decision commits the continuation.
   */
  async #decide(
    input: { tenant: string; runId: string; interruptId: string },
    request: { decisions: Decision[] } | { answer: unknown },
    caller: Actor,
  ): Promise<DecideResult> {
    const actor = await this.#who(input.tenant, caller);
    const id = pauseIdOf(input.runId, input.interruptId);
    const key = { tenant: input.tenant, runId: input.runId, seq: id.seq };
    const answerForm = 'answer' in request;
    return this.#commit(
      // The one read: the record and its transcript, in one request where the backend can.
      () => this.#reader.read(key, id, true),
      async (stored, nowMs): Promise<Step<DecideResult>> => {
        const record = stored.record;
        const _interruptId = interruptIdOf(record);
        const decisions = answerForm ? answerDecision(record, request.answer) : request.decisions;
        // The model's arguments' hashes (§16); a record from before them that left args out reads its round for them.
        const hashes = modelHashes(record, needsCalls(record) ? await this.#reader.calls(stored) : undefined);
        // Asks of this pause, each once, their kinds, editability and what the format can carry: a request that can
        // never be right is a 4xx before anything.
        plan(await loadFormat(record.format), roundOfAsks(record), record.asks, decisions);
        const matched = matchDecisions(record, decisions, hashes);
        // Who may decide (§13), for every decision of the request, before anything is written.
        const delegated = checkAuthority(record, matched, actor);
        const status = statusAt(record, nowMs);
        const conflict = conflictOf(matched);
        // Every ask is decided once resumed: each decision here is a replay of its recorded one, or a conflict.
        if (status === Status.Resumed && conflict === undefined) {
          return { result: copyInto({ kind: 'closed' as const }, await this.#closedResult(stored, true)) };
        }
        const refusal = closedRefusal(record, status);
        if (refusal !== undefined) throw refusal;
        if (conflict !== undefined) throw conflictError(record, conflict, answerForm);
        // Votes by the same person and arguments changed since they were shown (§16), before anything is written.
        const fresh = checkVotesAndArgs(
          record,
          matched.filter((match) => match.recorded === undefined),
          actor,
        );
        if (fresh.some(needsSchemaCheck)) {
          if (this.#checks.schemas === undefined) throw missingCheck('schemas');
          const { schemaFailures } = await this.#checks.schemas();
          for (const match of fresh) {
            // Failure paths point into what the client sent: part one's `answer`, or the decision's place in the request.
            checkAgainstAskSchema(schemaFailures, match, answerForm ? undefined : `/decisions/${match.position}`);
          }
        }
        // §19: the edits judged by the policies on their arguments, before anything is recorded.
        const judged = await judgeEdits(this.#policies, record, fresh, actor, nowMs);
        const { after, complete } = recordDecisions(judged.record, judged.matched, actor, nowMs, delegated);
        if (after === undefined) return { result: { kind: 'pending', ...pendingOf(record, true, hashes) } };
        const write = { before: record, after };
        if (!complete) return { write, result: { kind: 'pending', ...pendingOf(after, false, hashes) } };
        const closed = this.#close(after, await this.#reader.round(stored), 'resumed', nowMs, recorded(actor));
        return {
          write: { ...write, after: closed.record },
          result: copyInto({ kind: 'closed' as const }, closed.result),
        };
      },
    );
  }

  /** What a pause retried under its `Idempotency-Key` answers: the first answer again, open or closed at once. */
  async #replayedPause(record: PauseRecord): Promise<PauseCreated | PauseClosed> {
    if (record.closing === undefined) return toPauseCreated(record, true);
    const key = { tenant: record.tenant, runId: record.runId, seq: record.seq };
    const stored = await this.#reader.read(key, { seq: record.seq, hint: record.readHint, token: record.token }, true);
    return toPauseClosed(stored.record, await this.#closedResult(stored, true));
  }

  /** `record` closed (`closing.ts`), its continuation named with a fresh random token. */
  #close(record: PauseRecord, round: FormatRound, outcome: Outcome, nowMs: number, by: Principal, reason?: string) {
    return closeRecord(record, round, {
      outcome,
      nowMs,
      by,
      continuationToken: randomToken(this.#randomBytes),
      reason,
    });
  }

  /** The continuation of a closed pause, rebuilt from its stored transcript and checked against its hash. */
  async #closedResult(stored: StoredPause, replayed: boolean): Promise<ResumeResult> {
    return closedResult(stored.record, await this.#reader.round(stored), replayed);
  }

  #changed(before: PauseRecord | undefined, after: PauseRecord): void {
    if (this.#onChange === undefined) return;
    try {
      this.#onChange(before === undefined ? { after } : { before, after });
    } catch {
      // An observer never fails the request that made the change.
    }
  }
}

/** What the policies made of a checked pause's asks: how to write it into its new record. */
interface Judged {
  apply(record: PauseRecord, nowMs: number): { record: PauseRecord; complete: boolean };
}

/** The principal of a request: the caller's (parsed with its input), or the library's (§13). */
const actorOf = (by: Actor | undefined): Actor => by ?? LIBRARY_PRINCIPAL;
