import { ContinuationNotFoundError, CorruptCheckpointError, PauseNotFoundError } from '../errors.ts';
import type { MessageFormat, ToolCall } from '../rehydrate/formats/format.ts';
import { loadFormat } from '../rehydrate/formats/load.ts';
import type { Actor, PauseView } from '../wire.ts';
import { type DecodedRound, decodeRound, decodeTranscript, UndecodableTranscript } from './codec.ts';
import { formatId, type IdParts, parseId } from './ids.ts';
import type { CheckpointPersistence, StoredPause } from './persistence.ts';
import { type Closing, interruptIdOf, type PauseRecord, type RecordKey } from './record.ts';
import { toPauseView } from './views.ts';

/** A decoded round and its format's module. */
export type FormatRound = DecodedRound & { format: MessageFormat };

/**
 * Reads a pause as the rules need it: the record an id names (this tenant's, this write attempt's, or not found),
 * as GET shows it, and its stored transcript decoded and checked — whole, or only the paused round. Any failure to decode is a
 * `CorruptCheckpointError` naming the pause: a stored checkpoint is never rebuilt into a wrong transcript.
 */
export class PauseReader {
  readonly #persistence: CheckpointPersistence;

  constructor(persistence: CheckpointPersistence) {
    this.#persistence = persistence;
  }

  /**
   * The record an id names, with its transcript when asked; `PauseNotFoundError` unless it is this tenant's, with
   * this token and read hint.
   */
  async read(key: RecordKey, id: IdParts, withTranscript: boolean): Promise<StoredPause> {
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

  /**
   * The pause an id names as GET shows it (§5, §9, §13) to `viewer` at the time `nowMs` tells once it is read, with
   * its messages when asked. Arguments the record left out are read from the transcript.
   */
  async view(
    key: RecordKey,
    id: IdParts,
    options: { includeMessages: boolean; viewer: Actor | undefined; nowMs: () => number },
  ): Promise<PauseView> {
    let stored = await this.read(key, id, options.includeMessages);
    const omitted = stored.record.asks.some((ask) => ask.argsOmitted);
    if (omitted && stored.transcript === undefined) stored = await this.read(key, id, true);
    const nowMs = options.nowMs();
    if (stored.transcript === undefined) return toPauseView(stored.record, nowMs, undefined, options.viewer);
    const messages = await this.transcript(stored);
    const view = toPauseView(stored.record, nowMs, await this.calls(stored, messages), options.viewer);
    return options.includeMessages ? { ...view, messages } : view;
  }

  /**
   * The closed pause a continuation's id names, with its transcript; `ContinuationNotFoundError` unless it is this
   * tenant's. Two reads: the id names the record, and the record names its write attempt.
   */
  async continuation(key: { tenant: string; runId: string; continuationId: string }): Promise<StoredPause> {
    const { tenant, runId, continuationId } = key;
    const id = parseId(continuationId);
    const notFound = () => new ContinuationNotFoundError(runId, continuationId);
    if (id === undefined) throw notFound();
    const recordKey = { tenant, runId, seq: id.seq };
    const isIt = (record: PauseRecord | undefined): record is PauseRecord & { closing: Closing } =>
      record?.tenant === tenant && record.closing?.continuationId === continuationId;
    const head = await this.#persistence.read(recordKey);
    if (!isIt(head?.record)) throw notFound();
    const stored = await this.#persistence.read(recordKey, { token: head.record.token, hint: id.hint });
    if (stored === undefined || !isIt(stored.record)) throw notFound();
    return stored;
  }

  /** The paused round's calls by id, from the stored transcript (`messages` when already decoded). */
  async calls(stored: StoredPause, messages?: unknown[]): Promise<Map<string, ToolCall>> {
    const round = (await loadFormat(stored.record.format)).findRound(messages ?? (await this.transcript(stored)));
    return new Map(round.calls.map((call) => [call.id, call]));
  }

  /** The stored transcript, decoded and checked. */
  async transcript(stored: StoredPause): Promise<unknown[]> {
    return decoded(stored, () => decodeTranscript(stored.record.transcript, stored.transcript ?? new Uint8Array()));
  }

  /**
   * The stored transcript as a closing needs it: checked as `transcript` checks it (length, the sha256 of the stored
   * bytes, decompression), with only the paused round parsed — the messages before it stay text, handed on as
   * stored. The round must be where the pause item says: its format's shape, its first message the round's. Comes
   * with the pause's format module, loaded on first use.
   */
  async round(stored: StoredPause): Promise<FormatRound> {
    const { record } = stored;
    const [raw, format] = await Promise.all([
      decoded(stored, () => decodeRound(record.transcript, stored.transcript ?? new Uint8Array())),
      loadFormat(record.format),
    ]);
    const round = { ...raw, format };
    if (record.transcript.round === undefined) return round;
    const misplaced = () =>
      new CorruptCheckpointError(
        record.runId,
        interruptIdOf(record),
        `its paused round is not at message ${record.transcript.round?.index}, where its pause item says`,
      );
    if (!round.round.every((message) => format.message.safeParse(message).success)) throw misplaced();
    try {
      if (format.findRound(round.round).start !== 0) throw misplaced();
    } catch (cause) {
      if (cause instanceof CorruptCheckpointError) throw cause;
      throw misplaced();
    }
    return round;
  }
}

async function decoded<T>(stored: StoredPause, decode: () => Promise<T>): Promise<T> {
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
