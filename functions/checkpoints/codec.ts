import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, brotliDecompressSync, constants, gunzip, gunzipSync, gzip } from 'node:zlib';

/**
 * The transcript codec: JSON text → compressed bytes, and back, with every check a reader needs to refuse a partial
 * or altered checkpoint. The bytes go to the persistence whole; how a backend lays them out (the DynamoDB adapter
 * splits them into parts under its 400 KB item limit, `dynamodb/parts.ts`) is the backend's own. Pure apart from zlib (no I/O, no clock);
 * zlib runs on libuv's thread pool so a 16 MB transcript does not block the event loop of the local server.
 *
 * Why brotli (quality 5, text mode) and not gzip: it stores fewer bytes than gzip-6 at about the same compress time
 * and decompresses faster, and every stored KB is a write unit at pause and read units at every resume; brotli has
 * no checksum of its own, which the sha256 over the stored bytes covers. The measurements are in `bench/codec.md`
 * (`npx tsx bench/codec.ts`). gzip stays readable (`codec` is stored on the pause item).
 */

/** The compression algorithms a stored checkpoint may name. */
export const Codec = { Gzip: 'gzip', Brotli: 'br' } as const;
export type Codec = (typeof Codec)[keyof typeof Codec];

/** The codec new checkpoints are written with (see the measurements above). */
export const DEFAULT_CODEC: Codec = Codec.Brotli;

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);
const brotliCompressAsync = promisify(brotliCompress);
const brotliDecompressAsync = promisify(brotliDecompress);
/**
 * Transcripts up to this many bytes of JSON are decompressed on the calling thread (about 2 ms for 1 MB): less than
 * the hop to libuv's thread pool and back costs on a busy machine (`npm run bench -- store`, 100 KB: the hop was most
 * of a 4 ms gap to the floor). Larger ones go to the thread pool, so the local server's event loop stays free.
 */
const INLINE_DECOMPRESS_BYTES = 1024 * 1024;
/** The largest output chunk asked of zlib: a transcript is at most 16 MB; a bad recorded length allocates no more. */
const MAX_CHUNK_SIZE = 32 * 1024 * 1024;

/** What a reader needs to check and reassemble a stored transcript; kept on the pause item. */
export interface TranscriptHeader {
  codec: Codec;
  /** Bytes of the compressed transcript, as stored. */
  byteLength: number;
  /** Bytes of the transcript's JSON text (UTF-8). */
  rawLength: number;
  /** sha256 of the compressed bytes, base64url. */
  sha256: string;
  /**
   * Where the paused round starts in the JSON text: the index of its first message and the byte offset of that
   * message, so a resume parses the round alone (see `decodeRound`). Absent on checkpoints written before it was kept
   * (then the whole text is parsed).
   */
  round?: RoundPosition;
}

/** The paused round's first message: its index among the messages and its byte offset in the JSON text. */
export interface RoundPosition {
  index: number;
  offset: number;
}

/** A stored transcript read for a resume: the text before the paused round, unparsed, and the round, parsed. */
export interface DecodedRound {
  /** `[` and the messages before the round, each followed by `,`, as stored (UTF-8). */
  head: Uint8Array;
  /** How many messages `head` holds. */
  before: number;
  /** The paused round's messages and what follows them. */
  round: unknown[];
}

/** A transcript ready to be written: its header and its compressed bytes. */
export interface EncodedTranscript {
  header: TranscriptHeader;
  bytes: Uint8Array;
}

/** A stored transcript that cannot be turned back into the messages it was made from; `reason` says why. */
export class UndecodableTranscript extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'UndecodableTranscript';
  }
}

/** The transcript's JSON text, UTF-8. */
export function serializeTranscript(messages: readonly unknown[]): Buffer {
  return Buffer.from(JSON.stringify(messages), 'utf8');
}

/**
 * Where message `index` starts in `json`, the transcript's JSON text (`serializeTranscript(messages)`): the text must
 * end with exactly what `JSON.stringify` writes for the messages from `index` on, after a comma. Undefined when it does
 * not (a value whose JSON depends on where it stands), and then a resume parses the whole text.
 */
export function roundPosition(
  json: Uint8Array,
  messages: readonly unknown[],
  index: number,
): RoundPosition | undefined {
  if (!Number.isSafeInteger(index) || index < 0 || index >= messages.length || json[0] !== 0x5b) return undefined;
  if (index === 0) return { index, offset: 1 };
  const tail = Buffer.from(JSON.stringify(messages.slice(index)), 'utf8');
  const offset = json.length - (tail.length - 1);
  if (offset < 2 || json[offset - 1] !== 0x2c) return undefined;
  return Buffer.compare(json.subarray(offset), tail.subarray(1)) === 0 ? { index, offset } : undefined;
}

/** Compresses a transcript's JSON text: its header and the bytes to store. */
export async function encodeTranscript(
  json: Uint8Array,
  options: { codec?: Codec; round?: RoundPosition } = {},
): Promise<EncodedTranscript> {
  const codec = options.codec ?? DEFAULT_CODEC;
  const compressed = await compress(codec, json);
  const header: TranscriptHeader = {
    codec,
    byteLength: compressed.length,
    rawLength: json.length,
    sha256: sha256(compressed),
  };
  if (options.round !== undefined) header.round = options.round;
  return { header, bytes: compressed };
}

/**
 * Decodes a stored transcript. Every check runs before the bytes are trusted: length, hash, then decompression
 * bounded by the recorded length, then JSON. Throws `UndecodableTranscript` naming the first failure.
 */
export async function decodeTranscript(header: TranscriptHeader, bytes: Uint8Array): Promise<unknown[]> {
  return messagesOf(await decodeTranscriptBytes(header, bytes), 'it');
}

/**
 * A stored transcript read for a resume (`decodeTranscriptBytes`' checks first): the messages before the paused
 * round stay text, and only the round is parsed, a non-empty array of messages. Without a recorded round position,
 * the whole text is parsed (and `before` is 0).
 */
export async function decodeRound(header: TranscriptHeader, bytes: Uint8Array): Promise<DecodedRound> {
  const json = await decodeTranscriptBytes(header, bytes);
  const position = header.round;
  if (position === undefined) return { head: json.subarray(0, 1), before: 0, round: messagesOf(json, 'it') };
  const { index, offset } = position;
  const opens = offset === 1 ? index === 0 : index > 0 && json[offset - 1] === 0x2c;
  if (!Number.isSafeInteger(offset) || offset < 1 || offset >= json.length || json[0] !== 0x5b || !opens) {
    throw new UndecodableTranscript(`its paused round is not at byte ${offset}, where its pause item says`);
  }
  // `[` then the round's text: the round and what follows it, as one array.
  const tail = Buffer.concat([json.subarray(0, 1), json.subarray(offset)]);
  return { head: json.subarray(0, offset), before: index, round: messagesOf(tail, 'its paused round') };
}

/**
 * A stored transcript's JSON bytes, with every check that comes before trusting them: length, hash, decompression
 * bounded by the recorded length. Throws `UndecodableTranscript` naming the first failure.
 */
export async function decodeTranscriptBytes(header: TranscriptHeader, compressed: Uint8Array): Promise<Buffer> {
  if (compressed.length !== header.byteLength) {
    throw new UndecodableTranscript(
      `its stored bytes are ${compressed.length} where ${header.byteLength} were written`,
    );
  }
  if (sha256(compressed) !== header.sha256) {
    throw new UndecodableTranscript('the sha256 of its stored bytes does not match the one recorded');
  }
  let json: Buffer;
  try {
    json = await decompress(header.codec, compressed, header.rawLength);
  } catch (cause) {
    throw new UndecodableTranscript(`its ${header.codec} bytes cannot be decompressed`, { cause });
  }
  if (json.length !== header.rawLength) {
    throw new UndecodableTranscript(`it decompresses to ${json.length} bytes where ${header.rawLength} were written`);
  }
  return json;
}

/** JSON text that must be a non-empty array; `what` names it in the error. */
function messagesOf(json: Buffer, what: string): unknown[] {
  let messages: unknown;
  try {
    messages = JSON.parse(json.toString('utf8'));
  } catch (cause) {
    throw new UndecodableTranscript(`${what} is not JSON`, { cause });
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new UndecodableTranscript(`${what} is not a non-empty array of messages`);
  }
  return messages;
}

/** sha256 of `bytes`, base64url. */
export function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('base64url');
}

async function compress(codec: Codec, bytes: Uint8Array): Promise<Buffer> {
  if (codec === Codec.Brotli) {
    return brotliCompressAsync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 5,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    });
  }
  return gzipAsync(bytes, { level: 6 });
}

async function decompress(codec: string, bytes: Uint8Array, rawLength: number): Promise<Buffer> {
  // One byte over the recorded length is enough to tell a wrong length, and bounds what a bad stream can inflate to.
  const maxOutputLength = rawLength + 1;
  // A small checkpoint inflates in less time than the hop to libuv's thread pool and back takes on a busy machine.
  const inline = rawLength <= INLINE_DECOMPRESS_BYTES;
  // One output chunk of the recorded length: with zlib's default 16 KB chunks, a 10 MB transcript makes some 640 hops
  // to the thread pool and back (measured: 86 ms against 27 ms in one chunk, 20 ms inline).
  const chunkSize = Math.min(maxOutputLength, MAX_CHUNK_SIZE);
  if (codec === Codec.Brotli) {
    return inline
      ? brotliDecompressSync(bytes, { maxOutputLength })
      : brotliDecompressAsync(bytes, { maxOutputLength, chunkSize });
  }
  if (codec === Codec.Gzip) {
    return inline ? gunzipSync(bytes, { maxOutputLength }) : gunzipAsync(bytes, { maxOutputLength, chunkSize });
  }
  throw new UndecodableTranscript(`its codec ${JSON.stringify(codec)} is unknown`);
}
