import { randomBytes as nodeRandomBytes } from 'node:crypto';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  AlreadyResumedError,
  BadRequestError,
  ContinuationNotFoundError,
  CorruptCheckpointError,
  OpenPauseExistsError,
  PauseExpiredError,
  PauseNotFoundError,
} from '../errors.ts';
import { formatOf } from '../rehydrate/formats/index.ts';
import { rebuildTranscript } from '../rehydrate/rehydrate.ts';
import type {
  CheckpointStore,
  Continuation,
  ContinuationKey,
  JsonSchema,
  ListPausesQuery,
  PauseCreated,
  PauseInput,
  PauseKey,
  PausePage,
  PauseStatus,
  PauseView,
  ResumeInput,
  ResumeResult,
} from './checkpoint-store.ts';
import {
  type Codec,
  canonicalJson,
  continuationHash,
  DEFAULT_CODEC,
  decodeTranscript,
  encodeTranscript,
  serializeTranscript,
  sha256,
  UndecodableTranscript,
} from './codec.ts';
import { decodeCursor, encodeCursor, type ListingKey } from './cursor.ts';
import {
  type ChunkItem,
  type ClaimFields,
  ItemKind,
  interruptIdOf,
  isOpenAt,
  type PauseItem,
  readChunkItem,
  readPauseItem,
  SCHEMA_VERSION,
  toPauseView,
} from './items.ts';
import { formatId, Keys, MAX_SEQ, parseId, parseSortKey, randomToken } from './keys.ts';
import { TABLE } from './table.ts';
import {
  checkAnswer,
  checkAnswerAgainstSchema,
  checkListQuery,
  checkPauseInput,
  checkRun,
  LIMITS,
} from './validation.ts';

/** How a `DynamoDBCheckpointStore` is built. */
export interface DynamoDBCheckpointStoreOptions {
  /** The client to send with; the store adds nothing to its middleware. */
  client: DynamoDBDocumentClient;
  /** A table created from `createTableInput` (or the CDK table built from `TABLE`). */
  tableName: string;
  /** The time now. @default () => new Date() */
  clock?: () => Date;
  /** Random bytes for ids. @default node:crypto randomBytes */
  randomBytes?: (size: number) => Uint8Array;
  /**
   * Seconds a pause's items are kept after its `expiresAt` before DynamoDB's TTL may delete them: how long an
   * expired pause still shows as `expired` and a continuation stays readable. @default 2,592,000 (30 days)
   */
  retentionSeconds?: number;
  /** The codec new checkpoints are compressed with; both are always readable. @default 'br' */
  codec?: Codec;
}

const { partitionKey, sortKey, byTenant } = TABLE;
const DEFAULT_RETENTION_SECONDS = 30 * 24 * 60 * 60;
/** Chunk writes (and best-effort deletes) in flight at once for one pause. */
const CHUNK_CONCURRENCY = 4;
/** Times a pause retries after losing its sequence number to a pause that is no longer open. */
const PAUSE_ROUNDS = 3;
/** Queries one `listPauses` call runs at most while filling a page through a status filter. */
const LIST_QUERIES_MAX = 10;

/** Names of every attribute an expression mentions, so no reserved word (`status`, `ttl`) needs care. */
const NAMES = {
  '#pk': partitionKey.name,
  '#sk': sortKey.name,
  '#status': 'status',
  '#token': 'token',
  '#attempt': 'attempt',
  '#expiresAtMs': 'expiresAtMs',
  '#gsi1pk': byTenant.partitionKey.name,
} as const;

/**
 * The condition parts. Every commit point is one conditional write of one item; each part states the invariant
 * it protects.
 */
const Condition = {
  /**
   * One pause per sequence number, so one open pause per run: a new pause takes the number after the run's latest
   * pause, read as not open (a pause never reopens); a concurrent pauser that took the number first wins.
   */
  sequenceIsFree: 'attribute_not_exists(#sk)',
  /**
   * The claim is of the pause that was read: TTL may delete a pause and a later one reuse its number, and the
   * chunks read were this pause's.
   */
  isThePauseRead: '#token = :token AND #attempt = :attempt',
  /** A pause is resumed at most once: only an unclaimed pause can be claimed, so concurrent resumes have one winner. */
  isUnclaimed: '#status = :paused',
} as const;

const all = (...parts: string[]) => parts.map((part) => `(${part})`).join(' AND ');

/**
 * The DynamoDB checkpoint store (see `keys.ts` for the single-table layout). Every read it answers from is a
 * strongly consistent read of the table on that call, never a cache; listing reads the `byTenant` index, which is
 * eventually consistent.
 */
export class DynamoDBCheckpointStore implements CheckpointStore {
  readonly #client: DynamoDBDocumentClient;
  readonly #tableName: string;
  readonly #clock: () => Date;
  readonly #randomBytes: (size: number) => Uint8Array;
  readonly #retentionSeconds: number;
  readonly #codec: Codec;

  constructor(options: DynamoDBCheckpointStoreOptions) {
    if (!options?.client)
      throw new TypeError('createDynamoDBCheckpointStore needs a DynamoDBDocumentClient as `client`.');
    if (typeof options.tableName !== 'string' || options.tableName.length === 0) {
      throw new TypeError('createDynamoDBCheckpointStore needs the table name as `tableName`.');
    }
    this.#client = options.client;
    this.#tableName = options.tableName;
    this.#clock = options.clock ?? (() => new Date());
    this.#randomBytes = options.randomBytes ?? nodeRandomBytes;
    this.#retentionSeconds = options.retentionSeconds ?? DEFAULT_RETENTION_SECONDS;
    this.#codec = options.codec ?? DEFAULT_CODEC;
  }

  async pause(input: PauseInput): Promise<PauseCreated> {
    const pause = checkPauseInput(input);
    const json = serializeTranscript(pause.messages);
    if (json.length > LIMITS.transcriptBytes) {
      const message = `the transcript is ${json.length} bytes as JSON, over the limit of ${LIMITS.transcriptBytes}`;
      throw new BadRequestError(`${capitalize(message)}.`, [{ path: '/messages', message }]);
    }
    const fields = {
      toolCall: JSON.stringify(pause.toolCall),
      ...(pause.prompt === undefined ? {} : { prompt: pause.prompt }),
      ...(pause.answerSchema === undefined ? {} : { answerSchema: JSON.stringify(pause.answerSchema) }),
      ...(pause.metadata === undefined ? {} : { metadata: JSON.stringify(pause.metadata) }),
      ...(pause.taskToken === undefined ? {} : { taskToken: pause.taskToken }),
    };
    // The call's id is stored twice: inside `toolCall` and as the `toolCallId` attribute.
    const fieldBytes = Object.values(fields).reduce(
      (sum, text) => sum + Buffer.byteLength(text, 'utf8'),
      Buffer.byteLength(pause.toolCall.id, 'utf8'),
    );
    if (fieldBytes > LIMITS.pauseItemBytes) {
      const message = `the answered call, prompt, answerSchema, metadata and taskToken take ${fieldBytes} bytes together, over the limit of ${LIMITS.pauseItemBytes}`;
      throw new BadRequestError(`${capitalize(message)}.`, [{ path: '', message }]);
    }

    const now = this.#clock();
    const expiresAtMs = now.getTime() + pause.expiresInSeconds * 1000;
    const ttl = Math.ceil(expiresAtMs / 1000) + this.#retentionSeconds;
    const createdAt = now.toISOString();
    const expiresAt = new Date(expiresAtMs).toISOString();
    const encoded = await encodeTranscript(json, { codec: this.#codec });
    const pk = Keys.run(pause.tenant, pause.runId);

    for (let round = 1; ; round++) {
      const latest = await this.#latestPause(pk, pause.runId);
      if (latest !== undefined && isOpenAt(latest, now)) {
        throw new OpenPauseExistsError(pause.runId, interruptIdOf(latest));
      }
      const seq = (latest?.seq ?? 0) + 1;
      if (seq > MAX_SEQ) {
        throw new BadRequestError(`Run ${pause.runId} has used all ${MAX_SEQ} pause numbers; use a new runId.`);
      }
      const attempt = randomToken(this.#randomBytes, 8);
      const item: PauseItem = {
        pk,
        sk: Keys.pause(seq),
        v: SCHEMA_VERSION,
        kind: ItemKind.Pause,
        tenant: pause.tenant,
        runId: pause.runId,
        seq,
        token: randomToken(this.#randomBytes),
        attempt,
        format: pause.format,
        toolCallId: pause.toolCall.id,
        ...fields,
        createdAt,
        expiresAt,
        expiresAtMs,
        ttl,
        status: 'paused',
        codec: encoded.codec,
        chunkCount: encoded.chunkCount,
        byteLength: encoded.byteLength,
        rawLength: encoded.rawLength,
        sha256: encoded.sha256,
        gsi1pk: Keys.tenant(pause.tenant),
        gsi1sk: Keys.listing(createdAt, pause.runId, seq),
      };
      // Chunks first: they are invisible until the pause item that names their attempt exists.
      await forEachLimited(encoded.chunks, CHUNK_CONCURRENCY, (data, index) =>
        this.#client.send(
          new PutCommand({
            TableName: this.#tableName,
            Item: {
              pk,
              sk: Keys.chunk(seq, attempt, index),
              v: SCHEMA_VERSION,
              kind: ItemKind.Chunk,
              data,
              ttl,
            } satisfies ChunkItem,
          }),
        ),
      );
      try {
        await this.#client.send(
          new PutCommand({
            TableName: this.#tableName,
            Item: item,
            ConditionExpression: Condition.sequenceIsFree,
            ExpressionAttributeNames: pick(NAMES, '#sk'),
          }),
        );
        return created(item);
      } catch (error) {
        // Any other error may hide a write that succeeded: its chunks stay (their TTL removes them if it did not).
        if (!isConditionFailed(error)) throw error;
      }
      const winner = await this.#latestPause(pk, pause.runId);
      if (winner?.seq === seq && winner.token === item.token) {
        return created(item); // a retry by the SDK of our own write that had succeeded
      }
      await this.#deleteChunks(pk, seq, attempt, encoded.chunkCount);
      if (round >= PAUSE_ROUNDS) {
        throw new OpenPauseExistsError(pause.runId, winner ? interruptIdOf(winner) : undefined);
      }
    }
  }

  async resume(input: ResumeInput): Promise<ResumeResult> {
    checkRun(input?.tenant, input?.runId);
    const { tenant, runId, interruptId } = input;
    const id = parseId(interruptId);
    if (id === undefined) throw new PauseNotFoundError(runId, String(interruptId));
    const answerJson = checkAnswer(input.answer);
    const answerHash = sha256(canonicalJson(input.answer));
    const now = this.#clock();

    // The one read: the pause item and its chunks, in one strongly consistent Query.
    const read = await this.#readPause(tenant, runId, id.seq, (item) => {
      if (item.token !== id.token) return false;
      if (item.status === 'resumed') return item.answerHash === answerHash;
      return isOpenAt(item, now);
    });
    const item = read?.item;
    if (item === undefined || item.token !== id.token) throw new PauseNotFoundError(runId, interruptId);
    if (item.status === 'resumed') {
      if (item.answerHash !== answerHash) {
        throw new AlreadyResumedError(runId, interruptId, item.continuationId as string);
      }
      return this.#resumeResult(item, await this.#transcript(item, read?.chunks), true);
    }
    if (!isOpenAt(item, now)) throw new PauseExpiredError(runId, interruptId, item.expiresAt);
    if (item.answerSchema !== undefined) {
      checkAnswerAgainstSchema(JSON.parse(item.answerSchema) as JsonSchema, input.answer);
    }
    const transcript = await this.#transcript(item, read?.chunks);
    const messages = rebuildTranscript(formatOf(item.format), transcript, item.toolCallId, input.answer);
    const claim: ClaimFields = {
      continuationId: formatId({ seq: id.seq, token: randomToken(this.#randomBytes) }),
      answerHash,
      answer: answerJson,
      resumedAt: now.toISOString(),
      continuationSha256: continuationHash(transcript.length, messages),
    };

    // The one write: claim the pause and record the continuation, O(answer) bytes. The messages are not stored:
    // the continuation is the stored transcript plus this answer, rebuilt and checked against its hash on read.
    try {
      await this.#client.send(
        new UpdateCommand({
          TableName: this.#tableName,
          Key: { [partitionKey.name]: item.pk, [sortKey.name]: item.sk },
          UpdateExpression:
            'SET #status = :resumed, #continuationId = :continuationId, #answerHash = :answerHash, #answer = :answer, #resumedAt = :resumedAt, #continuationSha256 = :continuationSha256',
          ConditionExpression: all(Condition.isThePauseRead, Condition.isUnclaimed),
          ExpressionAttributeNames: {
            ...pick(NAMES, '#status', '#token', '#attempt'),
            '#continuationId': 'continuationId',
            '#answerHash': 'answerHash',
            '#answer': 'answer',
            '#resumedAt': 'resumedAt',
            '#continuationSha256': 'continuationSha256',
          },
          ExpressionAttributeValues: {
            ':resumed': 'resumed',
            ':paused': 'paused',
            ':token': item.token,
            ':attempt': item.attempt,
            ':continuationId': claim.continuationId,
            ':answerHash': claim.answerHash,
            ':answer': claim.answer,
            ':resumedAt': claim.resumedAt,
            ':continuationSha256': claim.continuationSha256,
          },
        }),
      );
      return this.#resumeResult({ ...item, ...claim, status: 'resumed' }, transcript, false, messages);
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }

    // Lost the race (or the SDK retried our own successful write). The embedded store ignores
    // ReturnValuesOnConditionCheckFailure, so read the winner's claim again.
    const winner = await this.#getPauseItem(tenant, runId, id.seq, interruptId);
    if (winner === undefined || winner.token !== item.token || winner.status !== 'resumed') {
      throw new PauseNotFoundError(runId, interruptId);
    }
    if (winner.answerHash !== answerHash) {
      throw new AlreadyResumedError(runId, interruptId, winner.continuationId as string);
    }
    return this.#resumeResult(winner, transcript, winner.continuationId !== claim.continuationId);
  }

  async getPause(key: PauseKey, options: { includeMessages?: boolean } = {}): Promise<PauseView> {
    checkRun(key?.tenant, key?.runId);
    const { tenant, runId, interruptId } = key;
    const id = parseId(interruptId);
    if (id === undefined) throw new PauseNotFoundError(runId, String(interruptId));
    const now = this.#clock();
    if (!options.includeMessages) {
      const item = await this.#getPauseItem(tenant, runId, id.seq, interruptId);
      if (item === undefined || item.token !== id.token) throw new PauseNotFoundError(runId, interruptId);
      return toPauseView(item, now);
    }
    const read = await this.#readPause(tenant, runId, id.seq, (item) => item.token === id.token);
    if (read === undefined || read.item.token !== id.token) throw new PauseNotFoundError(runId, interruptId);
    return { ...toPauseView(read.item, now), messages: await this.#transcript(read.item, read.chunks) };
  }

  async getContinuation(key: ContinuationKey): Promise<Continuation> {
    checkRun(key?.tenant, key?.runId);
    const { tenant, runId, continuationId } = key;
    const id = parseId(continuationId);
    if (id === undefined) throw new ContinuationNotFoundError(runId, String(continuationId));
    const isIt = (item: PauseItem) => item.status === 'resumed' && item.continuationId === continuationId;
    const read = await this.#readPause(tenant, runId, id.seq, isIt);
    if (read === undefined || !isIt(read.item)) throw new ContinuationNotFoundError(runId, continuationId);
    const {
      replayed: _,
      taskToken: __,
      ...continuation
    } = await this.#resumeResult(read.item, await this.#transcript(read.item, read.chunks), true);
    return continuation;
  }

  async listPauses(query: ListPausesQuery): Promise<PausePage> {
    const { limit, status } = checkListQuery(query);
    const { tenant } = query;
    const now = this.#clock();
    let startKey: ListingKey | undefined =
      query.cursor === undefined ? undefined : decodeCursor(query.cursor, tenant, status);
    const filter = statusFilter(status, now);
    const items: PauseView[] = [];
    let bytes = 0;
    let lastKey: ListingKey | undefined;
    for (let queries = 0; queries < LIST_QUERIES_MAX; queries++) {
      const output = await this.#client.send(
        new QueryCommand({
          TableName: this.#tableName,
          IndexName: byTenant.indexName,
          KeyConditionExpression: '#gsi1pk = :gsi1pk',
          ScanIndexForward: false,
          // One more than the page needs, to know whether a cursor is due; more when a filter drops items.
          Limit: filter ? 100 : limit - items.length + 1,
          ...(startKey === undefined ? {} : { ExclusiveStartKey: listingKeyItem(tenant, startKey) }),
          ...(filter?.expression === undefined ? {} : { FilterExpression: filter.expression }),
          ExpressionAttributeNames: { ...pick(NAMES, '#gsi1pk'), ...filter?.names },
          ExpressionAttributeValues: { ':gsi1pk': Keys.tenant(tenant), ...filter?.values },
        }),
      );
      for (const raw of output.Items ?? []) {
        if (raw.tenant !== tenant) continue; // the partition is the tenant's; this is a second lock on the door
        if (items.length === limit) return { items, cursor: encodeCursor(lastKey as ListingKey, status) };
        const item = readPauseItem(
          raw,
          String(raw.runId),
          interruptIdOf({ seq: Number(raw.seq), token: String(raw.token) }),
        );
        const view = toPauseView(item, now);
        if (status !== undefined && view.status !== status) continue;
        // A page stays well inside a Lambda response (6 MB) whatever its pauses carry: cut it short, with a cursor.
        const size = Buffer.byteLength(JSON.stringify(view));
        if (items.length > 0 && bytes + size > LIMITS.pageBytes) {
          return { items, cursor: encodeCursor(lastKey as ListingKey, status) };
        }
        items.push(view);
        bytes += size;
        lastKey = { gsi1sk: item.gsi1sk, pk: item.pk, sk: item.sk };
      }
      if (output.LastEvaluatedKey === undefined) return { items };
      startKey = listingKeyOf(output.LastEvaluatedKey);
    }
    // The page is short because the filter dropped many items; the cursor resumes where the reading stopped.
    return startKey === undefined ? { items } : { items, cursor: encodeCursor(startKey, status) };
  }

  /**
   * The run's latest pause item (its sequence number, status and expiry), or undefined for a run without one.
   * A reverse Query returns it first; chunks of a pause whose writer crashed before its pause item sort above it and
   * are stepped over.
   */
  async #latestPause(pk: string, runId: string): Promise<PauseItem | undefined> {
    let below: string | undefined;
    for (;;) {
      const output = await this.#client.send(
        new QueryCommand({
          TableName: this.#tableName,
          KeyConditionExpression:
            below === undefined
              ? '#pk = :pk AND begins_with(#sk, :prefix)'
              : '#pk = :pk AND #sk BETWEEN :prefix AND :below',
          ScanIndexForward: false,
          Limit: 1,
          ConsistentRead: true,
          ProjectionExpression: '#pk, #sk, #v, #kind, #status, #expiresAtMs, #seq, #token, #attempt',
          ExpressionAttributeNames: {
            ...pick(NAMES, '#pk', '#sk', '#status', '#expiresAtMs', '#token', '#attempt'),
            '#v': 'v',
            '#kind': 'kind',
            '#seq': 'seq',
          },
          ExpressionAttributeValues: {
            ':pk': pk,
            ':prefix': Keys.pausesPrefix,
            ...(below === undefined ? {} : { ':below': below }),
          },
        }),
      );
      const raw = output.Items?.[0];
      if (raw === undefined) return undefined;
      const sk = parseSortKey(raw.sk);
      if (sk.kind === 'pause') {
        const id = interruptIdOf({ seq: sk.seq, token: String(raw.token) });
        if (raw.v !== SCHEMA_VERSION) {
          throw new CorruptCheckpointError(
            runId,
            id,
            `its pause item has schema version ${JSON.stringify(raw.v)}, which this version of Handback does not read`,
          );
        }
        if (typeof raw.expiresAtMs !== 'number' || (raw.status !== 'paused' && raw.status !== 'resumed')) {
          throw new CorruptCheckpointError(runId, id, 'its pause item has no status or expiry');
        }
        return raw as PauseItem;
      }
      if (sk.kind !== 'chunk') return undefined;
      // `P#<seq>` sorts below every key of pause `seq` and above every key of the pauses before it.
      below = Keys.pause(sk.seq).slice(0, -2);
    }
  }

  /** The pause item alone, strongly consistent, or undefined when there is none for this tenant. */
  async #getPauseItem(tenant: string, runId: string, seq: number, interruptId: string): Promise<PauseItem | undefined> {
    const output = await this.#client.send(
      new GetCommand({
        TableName: this.#tableName,
        Key: { [partitionKey.name]: Keys.run(tenant, runId), [sortKey.name]: Keys.pause(seq) },
        ConsistentRead: true,
      }),
    );
    if (output.Item === undefined || output.Item.tenant !== tenant) return undefined;
    return readPauseItem(output.Item, runId, interruptId);
  }

  /**
   * Reads pause `seq` and, when `wantChunks(item)` says so, its chunks: one strongly consistent Query, descending so
   * the pause item comes first (a transcript over 1 MB compressed takes more than one page of that Query). Chunks of
   * other attempts at this sequence number (a lost race, a crashed writer) are ignored.
   */
  async #readPause(
    tenant: string,
    runId: string,
    seq: number,
    wantChunks: (item: PauseItem) => boolean,
  ): Promise<{ item: PauseItem; chunks: Array<Uint8Array | undefined> } | undefined> {
    const range = Keys.pauseRange(seq);
    let item: PauseItem | undefined;
    const chunks: Array<Uint8Array | undefined> = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const output = await this.#client.send(
        new QueryCommand({
          TableName: this.#tableName,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
          ScanIndexForward: false,
          ConsistentRead: true,
          ExpressionAttributeNames: pick(NAMES, '#pk', '#sk'),
          ExpressionAttributeValues: { ':pk': Keys.run(tenant, runId), ':from': range.from, ':to': range.to },
          ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
        }),
      );
      for (const raw of output.Items ?? []) {
        if (item === undefined) {
          // Descending: the pause item, when there is one, is the first item of the first page.
          if (raw.sk !== range.to || raw.tenant !== tenant) return undefined;
          item = readPauseItem(raw, runId, interruptIdOf({ seq, token: String(raw.token) }));
          if (!wantChunks(item)) return { item, chunks };
          continue;
        }
        const sk = parseSortKey(raw.sk);
        if (sk.kind !== 'chunk' || sk.attempt !== item.attempt) continue;
        const chunk = readChunkItem(raw, runId, interruptIdOf(item));
        if (chunks[sk.index] !== undefined || sk.index >= item.chunkCount) {
          throw new CorruptCheckpointError(
            runId,
            interruptIdOf(item),
            `chunk ${sk.index} is stored twice or past the ${item.chunkCount} written`,
          );
        }
        chunks[sk.index] = chunk.data;
      }
      if (item === undefined) return undefined;
      startKey = output.LastEvaluatedKey;
    } while (startKey !== undefined);
    return item === undefined ? undefined : { item, chunks };
  }

  /** The stored transcript of `item`, checked; any failure is a `CorruptCheckpointError` naming the pause. */
  async #transcript(item: PauseItem, chunks: ReadonlyArray<Uint8Array | undefined> | undefined): Promise<unknown[]> {
    try {
      return await decodeTranscript(item, chunks ?? []);
    } catch (error) {
      if (error instanceof UndecodableTranscript) {
        throw new CorruptCheckpointError(item.runId, interruptIdOf(item), error.message, { cause: error });
      }
      throw error;
    }
  }

  /**
   * A resumed pause's continuation: the stored transcript with the stored answer folded in. `rebuilt` is passed by
   * the resume that just made it; otherwise it is rebuilt here and must match the hash recorded by the claim.
   */
  async #resumeResult(
    item: PauseItem,
    transcript: unknown[],
    replayed: boolean,
    rebuilt?: unknown[],
  ): Promise<ResumeResult> {
    const interruptId = interruptIdOf(item);
    let messages = rebuilt;
    if (messages === undefined) {
      try {
        messages = rebuildTranscript(
          formatOf(item.format),
          transcript,
          item.toolCallId,
          JSON.parse(item.answer as string),
        );
      } catch (cause) {
        throw new CorruptCheckpointError(
          item.runId,
          interruptId,
          'its stored answer no longer folds into its transcript',
          { cause },
        );
      }
      if (continuationHash(transcript.length, messages) !== item.continuationSha256) {
        throw new CorruptCheckpointError(
          item.runId,
          interruptId,
          'its continuation no longer rebuilds to the messages the resume returned',
        );
      }
    }
    const result: ResumeResult = {
      runId: item.runId,
      interruptId,
      continuationId: item.continuationId as string,
      format: item.format,
      messages,
      resumedAt: item.resumedAt as string,
      replayed,
    };
    if (item.taskToken !== undefined) result.taskToken = item.taskToken;
    return result;
  }

  /** Deletes the chunks of an attempt that lost its sequence number; best effort, their TTL removes what is left. */
  async #deleteChunks(pk: string, seq: number, attempt: string, count: number): Promise<void> {
    const indexes = Array.from({ length: count }, (_, index) => index);
    await forEachLimited(indexes, CHUNK_CONCURRENCY, (index) =>
      this.#client
        .send(
          new DeleteCommand({
            TableName: this.#tableName,
            Key: { [partitionKey.name]: pk, [sortKey.name]: Keys.chunk(seq, attempt, index) },
          }),
        )
        .catch(() => undefined),
    );
  }
}

/** Builds the DynamoDB checkpoint store on an injected `DynamoDBDocumentClient` and table name. */
export function createDynamoDBCheckpointStore(options: DynamoDBCheckpointStoreOptions): CheckpointStore {
  return new DynamoDBCheckpointStore(options);
}

function created(item: PauseItem): PauseCreated {
  return {
    runId: item.runId,
    interruptId: interruptIdOf(item),
    toolCallId: item.toolCallId,
    status: 'paused',
    createdAt: item.createdAt,
    expiresAt: item.expiresAt,
  };
}

/** The filter of a listing by status: `expired` and `paused` are told apart by `expiresAtMs` against now. */
function statusFilter(
  status: PauseStatus | undefined,
  now: Date,
): { expression: string; names: Record<string, string>; values: Record<string, unknown> } | undefined {
  const names = pick(NAMES, '#status');
  switch (status) {
    case undefined:
      return undefined;
    case 'resumed':
      return { expression: '#status = :resumed', names, values: { ':resumed': 'resumed' } };
    case 'paused':
      return {
        expression: '#status = :paused AND #expiresAtMs > :now',
        names: { ...names, ...pick(NAMES, '#expiresAtMs') },
        values: { ':paused': 'paused', ':now': now.getTime() },
      };
    case 'expired':
      return {
        expression: '#status = :paused AND #expiresAtMs <= :now',
        names: { ...names, ...pick(NAMES, '#expiresAtMs') },
        values: { ':paused': 'paused', ':now': now.getTime() },
      };
  }
}

function listingKeyItem(tenant: string, key: ListingKey): Record<string, string> {
  return {
    [byTenant.partitionKey.name]: Keys.tenant(tenant),
    [byTenant.sortKey.name]: key.gsi1sk,
    [partitionKey.name]: key.pk,
    [sortKey.name]: key.sk,
  };
}

function listingKeyOf(key: Record<string, unknown>): ListingKey {
  return {
    gsi1sk: String(key[byTenant.sortKey.name]),
    pk: String(key[partitionKey.name]),
    sk: String(key[sortKey.name]),
  };
}

function isConditionFailed(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === 'ConditionalCheckFailedException';
}

function pick<T extends Record<string, string>, K extends keyof T>(source: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, source[key]])) as Pick<T, K>;
}

function capitalize(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

/** Runs `task` over `items`, at most `limit` at once; rejects with the first failure. */
async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
