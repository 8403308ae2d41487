import { randomBytes as nodeRandomBytes } from 'node:crypto';
import {
  AlreadyResumedError,
  BadRequestError,
  ContinuationNotFoundError,
  CorruptCheckpointError,
  IdempotencyKeyReusedError,
  OpenPauseExistsError,
  PauseCancelledError,
  PauseExpiredError,
  PauseNotFoundError,
  PayloadTooLargeError,
  StorageUnavailableError,
  UnsupportedRecordError,
} from '../errors.ts';
import type { PolicyEngine } from '../policies/port.ts';
import { checkDecisions, type Decision, rebuildWithDecisions } from '../rehydrate/decide.ts';
import type { MessageFormat, PausedRound, ToolCall } from '../rehydrate/formats/format.ts';
import { isFormatName, loadFormat } from '../rehydrate/formats/load.ts';
import type { BundleDefines } from '../settings.ts';
import { LIMITS, type Outcome, Status } from '../vocabulary.ts';
import type { Actor, PendingDecisions, Principal } from '../wire.ts';
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
  SweepResult,
} from './checkpoint-store.ts';
import { type CheckpointChecks, missingCheck } from './checks.ts';
import {
  type Codec,
  canonicalJson,
  DEFAULT_CODEC,
  type DecodedRound,
  decodeRound,
  decodeTranscript,
  encodeTranscript,
  roundPosition,
  serializeTranscript,
  sha256,
  UndecodableTranscript,
} from './codec.ts';
import { copyInto, MessagesJson, withLazyMessages } from './continuation-json.ts';
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
  voteCounts,
} from './deciding.ts';
import { formatId, type IdParts, MAX_SEQ, parseId, randomToken } from './ids.ts';
import { capitalize, shown, utf8Bytes } from './json.ts';
import { readCursor, writeCursor } from './list-cursor.ts';
import { fitAsks, newPauseRecord, requestFields } from './new-pause.ts';
import type { CheckpointPersistence, StoredPause } from './persistence.ts';
import {
  type Closing,
  continuationIdOf,
  decidedAndPending,
  effectiveDecisions,
  expiresAtOf,
  expiryReason,
  interruptIdOf,
  isKnownStatus,
  isOpenAt,
  type PauseRecord,
  type RecordKey,
  statusAt,
} from './record.ts';
import { awaitingHandoff, sweepStep } from './sweep-step.ts';
import { checkAnswer, checkDecisionsInput, checkListQuery, checkReason, checkRun } from './validation.ts';
import { toPauseClosed, toPauseCreated, toPauseView } from './views.ts';
import { checkActor, LIBRARY_PRINCIPAL, modelHashes, needsCalls, recorded, SWEEP_PRINCIPAL } from './who-decides.ts';

/**
 * The rules of pausing and deciding, storage-agnostic: one open pause per run, idempotent pause
 * creation, decisions recorded each exactly once, the last one committing the one continuation, cancel, expiry
 * (checked on every read; acted on by the sweep), replays by hash. Every change is one conditional write of one
 * record on the persistence port — no transactions — and every write is conditional on the revision that was read,
 * so concurrent requests are linearised: a loser reads again and decides again.
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
}

/** A committed change: the record before (undefined for a new pause) and after. */
export interface PauseChange {
  before?: PauseRecord;
  after: PauseRecord;
}

/** Times a pause retries after losing its sequence number to a pause that is no longer open. */
const PAUSE_ROUNDS = 3;
/** Read-decide-write rounds one request runs at most before it gives up as overloaded (16 racers need 16). */
const WRITE_ROUNDS = 40;
/** Persistence pages one listing reads at most while filling a page through a status filter. */
const LIST_ROUNDS = 10;

/** The checkpoint service: the `CheckpointStore` every entry point and a user's own code call. */
export class CheckpointService implements CheckpointStore {
  readonly #persistence: CheckpointPersistence;
  readonly #clock: () => Date;
  readonly #randomBytes: (size: number) => Uint8Array;
  readonly #codec: Codec;
  readonly #onChange: ((change: PauseChange) => void) | undefined;
  readonly #checks: CheckpointChecks;
  readonly #recipientDomains: readonly string[];
  readonly #policies: (() => Promise<PolicyEngine>) | undefined;

  constructor(options: CheckpointServiceOptions) {
    this.#persistence = options.persistence;
    this.#clock = options.clock ?? (() => new Date());
    this.#randomBytes = options.randomBytes ?? nodeRandomBytes;
    this.#codec = options.codec ?? DEFAULT_CODEC;
    this.#onChange = options.onChange;
    this.#checks = options.checks;
    this.#recipientDomains = options.recipientDomains ?? [];
    this.#policies = options.policies;
  }

  async pause(input: PauseInput): Promise<PauseCreated | PauseClosed> {
    if (this.#checks.pause === undefined) throw missingCheck('pause');
    // The pause's format is loaded beside the checks (on first use, once per container): they need its module.
    const [checks, format] = await Promise.all([
      this.#checks.pause(),
      isFormatName(input?.format) ? loadFormat(input.format) : undefined,
    ]);
    const pause = checks.checkPauseInput(input, format, { recipientDomains: this.#recipientDomains });
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
    if (
      (globalThis as BundleDefines).HANDBACK_BUNDLED_POLICIES !== 'false' &&
      this.#policies !== undefined &&
      pause.asks.some((ask) => ask.kind === 'approval')
    ) {
      const [engine, seam] = await Promise.all([this.#policies(), import('./policy-decisions.ts')]);
      const settled = seam.judgeAsks(engine, pause, input.by === undefined ? undefined : checkActor(input.by));
      judged = { apply: (record, nowMs) => seam.withPolicyOutcomes(record, settled, nowMs) };
    }
    const asks = fitAsks(pause);
    const requestHash =
      pause.idempotencyKey === undefined ? undefined : sha256(`${sha256(json)}:${canonicalJson(requestFields(input))}`);
    const now = this.#clock();
    const round = roundPosition(json, pause.messages, pause.roundStart);
    const encoded = await encodeTranscript(json, { codec: this.#codec, ...(round === undefined ? {} : { round }) });
    const { header: transcript, bytes } = encoded;
    const readHint = this.#persistence.readHint(bytes.length);

    for (let round = 1; ; round++) {
      const latest = await this.#persistence.latest(pause.tenant, pause.runId);
      if (latest !== undefined) {
        // A retried request meets its own pause: the same key and body get the first 201 again.
        if (pause.idempotencyKey !== undefined && latest.idempotency?.key === pause.idempotencyKey) {
          if (latest.idempotency.hash === requestHash) return this.#replayedPause(latest);
          throw new IdempotencyKeyReusedError(pause.runId, interruptIdOf(latest));
        }
        if (!isKnownStatus(latest.status)) {
          throw new UnsupportedRecordError(
            pause.runId,
            interruptIdOf(latest),
            `status ${JSON.stringify(latest.status)}`,
          );
        }
        if (isOpenAt(latest, now.getTime())) throw new OpenPauseExistsError(pause.runId, interruptIdOf(latest));
      }
      const seq = (latest?.seq ?? 0) + 1;
      if (seq > MAX_SEQ) {
        throw new BadRequestError(`Run ${pause.runId} has used all ${MAX_SEQ} pause numbers; use a new runId.`);
      }
      const record = newPauseRecord(pause, {
        seq,
        token: randomToken(this.#randomBytes),
        readHint,
        transcript,
        asks,
        now,
        ...(requestHash === undefined ? {} : { requestHash }),
      });
      let written = record;
      let closed: ResumeResult | undefined;
      if (judged !== undefined) {
        const outcomes = judged.apply(record, now.getTime());
        written = outcomes.record;
        if (outcomes.complete) {
          // Every ask decided by the policies: the pause is written closed, its continuation committed with it.
          const round = await this.#round({ record: written, transcript: bytes });
          const closing = this.#close(written, round, 'resumed', now.getTime(), closingPrincipal(written));
          written = closing.record;
          closed = closing.result;
        }
      }
      const created = () => (closed === undefined ? toPauseCreated(written) : toPauseClosed(written, closed));
      if ((await this.#persistence.create(written, bytes)) === 'created') {
        this.#changed(undefined, written);
        return created();
      }
      const winner = await this.#persistence.latest(pause.tenant, pause.runId);
      // A retry (by the SDK) of our own write that had succeeded meets our own record.
      if (winner?.seq === seq && winner.token === written.token) return created();
      if (round >= PAUSE_ROUNDS) {
        throw new OpenPauseExistsError(pause.runId, winner === undefined ? undefined : interruptIdOf(winner));
      }
    }
  }

  async resume(input: ResumeInput): Promise<ResumeResult> {
    checkRun(input?.tenant, input?.runId);
    checkAnswer(input.answer);
    const id = this.#idOf(input.runId, input.interruptId);
    const result = await this.#decide(input, id, { answer: input.answer }, actorOf(input.by));
    // A pause with exactly one ask closes with its one decision.
    if (result.kind !== 'closed') throw new Error('A one-ask pause was left pending by its answer.');
    return copyInto({}, result, ['kind']);
  }

  async decide(input: DecideInput): Promise<DecideResult> {
    checkRun(input?.tenant, input?.runId);
    const decisions = checkDecisionsInput(input.decisions);
    const id = this.#idOf(input.runId, input.interruptId);
    return this.#decide(input, id, { decisions }, actorOf(input.by));
  }

  async cancel(input: CancelInput): Promise<ResumeResult> {
    checkRun(input?.tenant, input?.runId);
    const id = this.#idOf(input.runId, input.interruptId);
    if (input.reason !== undefined) checkReason(input.reason);
    const by = recorded(actorOf(input.by));
    const key = { tenant: input.tenant, runId: input.runId, seq: id.seq };
    return this.#commit(
      () => this.#read(key, id, true),
      async (stored, nowMs) => {
        const record = stored.record;
        const status = statusAt(record, nowMs);
        switch (status) {
          case Status.Cancelled:
            return { result: await this.#closedResult(stored, true) };
          case Status.Resumed:
            throw new AlreadyResumedError(record.runId, interruptIdOf(record), record.closing?.continuationId ?? '');
          case Status.Expired:
            throw new PauseExpiredError(record.runId, interruptIdOf(record), expiresAtOf(record));
          case Status.Paused:
            break;
          default:
            throw new UnsupportedRecordError(record.runId, interruptIdOf(record), `status ${JSON.stringify(status)}`);
        }
        const next = { ...record, rev: record.rev + 1 };
        const closed = this.#close(next, await this.#round(stored), 'cancelled', nowMs, by, input.reason);
        return { after: closed.record, result: closed.result };
      },
    );
  }

  async getPause(key: PauseKey, options: { includeMessages?: boolean; by?: Actor } = {}): Promise<PauseView> {
    checkRun(key?.tenant, key?.runId);
    const id = this.#idOf(key.runId, key.interruptId);
    const viewer = options.by === undefined ? undefined : checkActor(options.by);
    const recordKey = { tenant: key.tenant, runId: key.runId, seq: id.seq };
    let stored = await this.#read(recordKey, id, options.includeMessages === true);
    const omitted = stored.record.asks.some((ask) => ask.argsOmitted);
    if (omitted && stored.transcript === undefined) stored = await this.#read(recordKey, id, true);
    const nowMs = this.#clock().getTime();
    if (stored.transcript === undefined) return toPauseView(stored.record, nowMs, undefined, viewer);
    const messages = await this.#transcript(stored);
    const view = toPauseView(stored.record, nowMs, await this.#calls(stored, messages), viewer);
    return options.includeMessages ? { ...view, messages } : view;
  }

  async getContinuation(key: ContinuationKey): Promise<Continuation> {
    checkRun(key?.tenant, key?.runId);
    const id = parseId(key.continuationId);
    const notFound = () => new ContinuationNotFoundError(key.runId, shown(key.continuationId));
    if (id === undefined) throw notFound();
    const recordKey = { tenant: key.tenant, runId: key.runId, seq: id.seq };
    // Two reads: the continuation's id names the record, and the record names its write attempt.
    const head = await this.#persistence.read(recordKey);
    const isIt = (record: PauseRecord | undefined): record is PauseRecord & { closing: Closing } =>
      record?.tenant === key.tenant && record.closing?.continuationId === key.continuationId;
    if (!isIt(head?.record)) throw notFound();
    const stored = await this.#persistence.read(recordKey, { token: head.record.token, hint: id.hint });
    if (stored === undefined || !isIt(stored.record)) throw notFound();
    return copyInto({}, await this.#closedResult(stored, true), ['replayed', 'taskToken', 'callbackId']);
  }

  async listPauses(query: ListPausesQuery): Promise<PausePage> {
    const checked = checkListQuery(query);
    const viewer = query.waitingFor === undefined ? undefined : checkActor(query.waitingFor, '/waitingFor');
    const { limit } = checked;
    // Only an open pause waits for anyone: `waitingFor` reads the open pauses.
    if (viewer !== undefined && checked.status !== undefined && checked.status !== Status.Paused) {
      const message = 'waitingFor (mine=true) lists open pauses only: give status "paused" or no status';
      throw new BadRequestError(`${capitalize(message)}.`, [{ path: '/status', message }]);
    }
    const status = viewer === undefined ? checked.status : Status.Paused;
    const { tenant } = query;
    let cursor = query.cursor === undefined ? undefined : readCursor(query.cursor, status, viewer !== undefined);
    const nowMs = this.#clock().getTime();
    const items: PauseView[] = [];
    let bytes = 0;
    let after: string | undefined;
    const cursorOf = (at: string) => writeCursor(at, status, viewer !== undefined);
    // `mine`: the open pauses (the sparse index, never the tenant's history), filtered to those waiting for the viewer.
    const wanted = (view: PauseView) =>
      (status === undefined || view.status === status) &&
      (viewer === undefined || view.asks.some((ask) => ask.mayDecide === true));
    for (let round = 0; round < LIST_ROUNDS; round++) {
      const filtered = status !== undefined || viewer !== undefined;
      const page = await this.#persistence.list({
        tenant,
        openOnly: status === Status.Paused,
        limit: filtered ? LIMITS.pageSize.max : limit - items.length + 1,
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const entry of page.entries) {
        const view = toPauseView(entry.record, nowMs, undefined, viewer);
        if (!wanted(view)) {
          after = entry.after;
          continue;
        }
        // A page stays well inside a Lambda response (6 MB) whatever its pauses carry: cut it short, with a cursor.
        const size = utf8Bytes(JSON.stringify(view));
        if (items.length === limit || (items.length > 0 && bytes + size > LIMITS.pageBytes)) {
          return { items, cursor: cursorOf(after as string) };
        }
        items.push(view);
        bytes += size;
        after = entry.after;
      }
      if (page.next === undefined) return { items };
      cursor = page.next;
      after = page.next;
    }
    // The page is short because the filter dropped many pauses; the cursor resumes where the reading stopped.
    return { items, cursor: cursorOf(cursor as string) };
  }

  async closeDue(options: { limit?: number } = {}): Promise<SweepResult> {
    const nowMs = this.#clock().getTime();
    const result: SweepResult = { reminded: [], expired: [], closed: [] };
    const keys = await this.#persistence.due(nowMs, options.limit ?? LIMITS.sweepBatch);
    for (const key of keys) await this.#sweepOne(key, result);
    return result;
  }

  async acknowledgeHandoff(key: PauseKey): Promise<void> {
    checkRun(key?.tenant, key?.runId);
    const id = this.#idOf(key.runId, key.interruptId);
    const recordKey = { tenant: key.tenant, runId: key.runId, seq: id.seq };
    await this.#commit(
      () => this.#read(recordKey, id, false),
      async (stored) => {
        const record = stored.record;
        if (record.handoffDue !== true) return { result: undefined };
        const after: PauseRecord = { ...record, rev: record.rev + 1 };
        delete after.handoffDue;
        delete after.dueAtMs;
        return { after, result: undefined };
      },
    );
  }

  /**
   * Acts on one due pause: its reminder, its expiry, or the hand-off of a closing the sweep made that was not yet
   * delivered. Another sweeper or a person may act first; then nothing.
   */
  async #sweepOne(key: RecordKey, result: SweepResult): Promise<void> {
    await this.#commit(
      () => this.#persistence.read(key),
      async (read, nowMs) => {
        const record = read?.record;
        const step = sweepStep(record, nowMs);
        switch (step.do) {
          case 'nothing':
            return { result: undefined };
          case 'redeliver': {
            const closed = record as PauseRecord;
            const stored = await this.#persistence.read(key, { token: closed.token, hint: closed.readHint });
            if (stored?.record.rev === closed.rev) {
              result.closed.push(copyInto({ tenant: closed.tenant }, await this.#closedResult(stored, true)));
            }
            return { after: step.after, result: undefined, quiet: true };
          }
          case 'expire':
            return {
              after: step.after,
              result: undefined,
              onWritten: () => result.expired.push(toPauseView(step.after, nowMs)),
            };
          case 'remind':
            return {
              after: step.after,
              result: undefined,
              onWritten: () => result.reminded.push(toPauseView(step.after, nowMs)),
            };
          case 'close': {
            const open = record as PauseRecord;
            const stored = await this.#persistence.read(key, { token: open.token, hint: open.readHint });
            if (stored === undefined || stored.record.rev !== open.rev) return { retry: true };
            const next: PauseRecord = { ...open, rev: open.rev + 1 };
            const closed = this.#close(next, await this.#round(stored), 'expired', nowMs, SWEEP_PRINCIPAL);
            return {
              after: awaitingHandoff(closed.record, nowMs),
              result: undefined,
              onWritten: () => result.closed.push(copyInto({ tenant: open.tenant }, closed.result)),
            };
          }
        }
      },
      { onOverload: 'give-up' },
    );
  }

  /**
   * The commit loop every change runs (pause aside, which creates): read, decide against what was read (a pure change
   * or a refusal), write conditionally on the revision that was read; a lost race reads again and decides again, at
   * most `WRITE_ROUNDS` times. `then` runs once the write is in; `quiet` writes tell no observer (bookkeeping only).
   */
  async #commit<S, T>(
    read: () => Promise<S>,
    change: (stored: S, nowMs: number) => Promise<Step<T>>,
    options: { onOverload?: 'throw' | 'give-up' } = {},
  ): Promise<T> {
    for (let round = 0; round < WRITE_ROUNDS; round++) {
      const stored = await read();
      const step = await change(stored, this.#clock().getTime());
      if ('retry' in step) continue;
      if (step.after === undefined) return step.result;
      const before = recordOf(stored);
      if ((await this.#persistence.update(before, step.after)) === 'updated') {
        if (step.quiet !== true) this.#changed(before, step.after);
        step.onWritten?.();
        return step.result;
      }
    }
    if (options.onOverload === 'give-up') return undefined as T;
    throw overloaded();
  }

  /**
   * Records decisions (`decisions`), or part one's answer to the pause's one `answer` ask (`answer`), by `actor`:
   * the request is checked against what was read (asks, kinds, schemas, who may decide), then recorded in one
   * conditional write; the write that records the last decision commits the continuation.
   */
  async #decide(
    input: { tenant: string; runId: string; interruptId: string },
    id: IdParts,
    request: { decisions: Decision[] } | { answer: unknown },
    actor: Actor,
  ): Promise<DecideResult> {
    const key = { tenant: input.tenant, runId: input.runId, seq: id.seq };
    const answerForm = 'answer' in request;
    return this.#commit(
      // The one read: the record and its transcript, in one request where the backend can.
      () => this.#read(key, id, true),
      async (stored, nowMs): Promise<Step<DecideResult>> => {
        const record = stored.record;
        const interruptId = interruptIdOf(record);
        const decisions = answerForm ? answerDecision(record, request.answer) : request.decisions;
        // The model's arguments' hashes (§16); a record from before them that left args out reads its round for them.
        const hashes = modelHashes(record, needsCalls(record) ? await this.#calls(stored) : undefined);
        const matched = matchDecisions(record, decisions, hashes);
        // Kinds, editability and what the format can carry: a request that can never be right is a 4xx before anything.
        checkDecisions(await loadFormat(record.format), roundOfAsks(record), record.asks, decisions);
        // Who may decide (§13), for every decision of the request, before anything is written.
        checkAuthority(record, matched, actor);
        const status = statusAt(record, nowMs);
        const conflict = conflictOf(matched);
        switch (status) {
          case Status.Paused:
            break;
          case Status.Resumed:
            if (conflict !== undefined) throw conflictError(record, conflict, answerForm);
            // Every ask is decided once resumed: each decision here is a replay of its recorded one.
            return { result: copyInto({ kind: 'closed' as const }, await this.#closedResult(stored, true)) };
          case Status.Cancelled:
            throw new PauseCancelledError(record.runId, interruptId, record.closing?.continuationId);
          case Status.Expired:
            throw new PauseExpiredError(record.runId, interruptId, expiresAtOf(record));
          default:
            throw new UnsupportedRecordError(record.runId, interruptId, `status ${JSON.stringify(status)}`);
        }
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
        const { after, complete } = recordDecisions(record, fresh, actor, nowMs);
        if (after === undefined) return { result: { kind: 'pending', ...pending(record, true, hashes) } };
        if (complete) {
          const closed = this.#close(after, await this.#round(stored), 'resumed', nowMs, recorded(actor));
          return { after: closed.record, result: copyInto({ kind: 'closed' as const }, closed.result) };
        }
        return { after, result: { kind: 'pending', ...pending(after, false, hashes) } };
      },
    );
  }

  /** What a pause retried under its `Idempotency-Key` answers: the first answer again, open or closed at once. */
  async #replayedPause(record: PauseRecord): Promise<PauseCreated | PauseClosed> {
    if (record.closing === undefined) return toPauseCreated(record, true);
    const key = { tenant: record.tenant, runId: record.runId, seq: record.seq };
    const stored = await this.#read(key, { seq: record.seq, hint: record.readHint, token: record.token }, true);
    return toPauseClosed(stored.record, await this.#closedResult(stored, true));
  }

  /**
   * `record` closed with `outcome` at `nowMs` and the continuation that closing commits: the paused round rebuilt with
   * every ask's effective decision (§10), hashed from the paused round on, so that a later rebuild is checked; the
   * messages before the round stay the stored text. The revision is the caller's.
   */
  #close(
    record: PauseRecord,
    transcript: FormatRound,
    outcome: Outcome,
    nowMs: number,
    by: Principal,
    reason?: string,
  ): { record: PauseRecord; result: ResumeResult } {
    const closedAt = new Date(nowMs).toISOString();
    if (outcome === 'expired') record = withExpiryDecisions(record, closedAt);
    const rebuilt = rebuild(transcript.format, record, transcript.round, outcome, reason);
    const text = continuationText(rebuilt);
    const closing: Closing = {
      continuationId: continuationIdOf(record, randomToken(this.#randomBytes)),
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
  async #closedResult(stored: StoredPause, replayed: boolean): Promise<ResumeResult> {
    const { record } = stored;
    const closing = record.closing as Closing;
    const transcript = await this.#round(stored);
    let rebuilt: ReturnType<typeof rebuild>;
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

  /**
   * Reads the record an id names, with its transcript when asked; `PauseNotFoundError` unless it is this tenant's,
   * with this token and read hint.
   */
  async #read(key: RecordKey, id: IdParts, withTranscript: boolean): Promise<StoredPause> {
    const stored = await this.#persistence.read(key, withTranscript ? { token: id.token, hint: id.hint } : undefined);
    const record = stored?.record;
    if (
      stored === undefined ||
      record === undefined ||
      record.tenant !== key.tenant ||
      record.token !== id.token ||
      record.readHint !== id.hint ||
      (withTranscript && stored.transcript === undefined)
    ) {
      throw new PauseNotFoundError(key.runId, formatId(id));
    }
    return stored;
  }

  /** The paused round's calls by id, from the stored transcript (`messages` when already decoded). */
  async #calls(stored: StoredPause, messages?: unknown[]): Promise<Map<string, ToolCall>> {
    const round = (await loadFormat(stored.record.format)).findRound(messages ?? (await this.#transcript(stored)));
    return new Map(round.calls.map((call) => [call.id, call]));
  }

  #idOf(runId: string, interruptId: unknown): IdParts {
    const id = parseId(interruptId);
    if (id === undefined) throw new PauseNotFoundError(runId, shown(interruptId));
    return id;
  }

  /** The stored transcript, decoded and checked; any failure is a `CorruptCheckpointError` naming the pause. */
  async #transcript(stored: StoredPause): Promise<unknown[]> {
    return this.#decoded(stored, () =>
      decodeTranscript(stored.record.transcript, stored.transcript ?? new Uint8Array()),
    );
  }

  /**
   * The stored transcript as a closing needs it: checked as `#transcript` checks it (length, the sha256 of
   * the stored bytes, decompression), with only the paused round parsed — the messages before it stay text, handed
   * on as stored. The round must be where the pause item says: its format's shape, its first message the round's.
   * Comes with the pause's format module, loaded on first use.
   */
  async #round(stored: StoredPause): Promise<FormatRound> {
    const { record } = stored;
    const [raw, format] = await Promise.all([
      this.#decoded(stored, () => decodeRound(record.transcript, stored.transcript ?? new Uint8Array())),
      loadFormat(record.format),
    ]);
    const decoded = { ...raw, format };
    if (record.transcript.round === undefined) return decoded;
    const misplaced = () =>
      new CorruptCheckpointError(
        record.runId,
        interruptIdOf(record),
        `its paused round is not at message ${record.transcript.round?.index}, where its pause item says`,
      );
    if (!decoded.round.every((message) => format.message.safeParse(message).success)) throw misplaced();
    try {
      if (format.findRound(decoded.round).start !== 0) throw misplaced();
    } catch (cause) {
      if (cause instanceof CorruptCheckpointError) throw cause;
      throw misplaced();
    }
    return decoded;
  }

  async #decoded<T>(stored: StoredPause, decode: () => Promise<T>): Promise<T> {
    try {
      return await decode();
    } catch (error) {
      if (error instanceof UndecodableTranscript) {
        throw new CorruptCheckpointError(stored.record.runId, interruptIdOf(stored.record), error.message, {
          cause: error,
        });
      }
      throw error;
    }
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

/** Who closed a pause the policies decided whole: the policy whose decision came last, as a last person would. */
function closingPrincipal(record: PauseRecord): Principal {
  const by = record.decisions.map((decision) => decision?.by).filter((principal) => principal !== undefined);
  return by.at(-1) ?? LIBRARY_PRINCIPAL;
}

/** The paused round as far as the asks tell it: enough for the decision rules, without parsing the transcript. */
function roundOfAsks(record: PauseRecord): PausedRound {
  const calls: ToolCall[] = record.asks.map((ask) => ({ id: ask.toolCallId, name: ask.name, args: ask.args }));
  return { start: 0, calls, answered: new Set() };
}

/** A decoded round and its format's module. */
type FormatRound = DecodedRound & { format: MessageFormat };

function rebuild(
  format: MessageFormat,
  record: PauseRecord,
  messages: readonly unknown[],
  outcome: Outcome,
  reason?: string,
) {
  return rebuildWithDecisions(format, messages, effectiveDecisions(record, outcome, reason) as Decision[]);
}

/** The text `continuationSha256` hashes: the rebuilt messages from the paused round on, as JSON. */
function continuationText(rebuilt: ReturnType<typeof rebuild>): string {
  return JSON.stringify(rebuilt.messages.slice(rebuilt.roundStart));
}

/**
 * The closing's result: its `messages` are the stored text before the paused round and the rebuilt round, parsed
 * only when read (see `continuation-json.ts`).
 */
function resultOf(
  record: PauseRecord,
  rebuilt: ReturnType<typeof rebuild>,
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
    dispatch: rebuilt.dispatch,
    messages: [],
    resumedAt: closing.closedAt,
    replayed,
  };
  if (record.taskToken !== undefined) result.taskToken = record.taskToken;
  if (record.callbackId !== undefined) result.callbackId = record.callbackId;
  // The hashed text is the messages' own when the rebuilt messages start at the round (the pause recorded where).
  const roundText = rebuilt.roundStart === 0 ? text : undefined;
  return withLazyMessages(result, new MessagesJson(transcript.head, transcript.before, rebuilt.messages, roundText));
}

function pending(record: PauseRecord, replayed: boolean, hashes: readonly string[]): PendingDecisions {
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

/** A step of the commit loop: a result without a write, a write and its result, or a read again. */
type Step<T> =
  | { result: T; after?: undefined; onWritten?: undefined; quiet?: undefined }
  | { after: PauseRecord; result: T; onWritten?: () => void; quiet?: boolean }
  | { retry: true };

/** The record a commit-loop read holds: a stored pause, or undefined (then nothing is written). */
function recordOf(stored: unknown): PauseRecord {
  return (stored as StoredPause).record;
}

/** The principal of a request: the caller's, checked, or the library's (§13). */
function actorOf(by: unknown): Actor {
  return by === undefined ? LIBRARY_PRINCIPAL : checkActor(by);
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

function overloaded(): StorageUnavailableError {
  return new StorageUnavailableError(
    'The pause changed under this request more times than it retries; retry the same request, which is safe.',
  );
}
