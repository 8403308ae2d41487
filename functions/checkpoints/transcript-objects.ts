/**
 * The port for a transcript's bytes kept beside the table, in an object store (S3): a backend that keeps large
 * transcripts out of its records writes them here first and names them on the record. It holds bytes and decides
 * nothing: which pause exists, and which write attempt won, is the record's conditional write (§8, §23).
 *
 * A key names one write attempt of one pause (its tenant, run, sequence number and random token), and an attempt's
 * bytes are fixed before its key exists: writing a key again (a retry after an unclear failure) writes the same
 * bytes, so `put` needs no condition, and a store that ignores `If-None-Match` (s3rver) behaves as S3 for this code.
 *
 * Adapters: `s3/s3-objects.ts` (S3, and any S3-compatible server) and `MemoryTranscriptObjects` below (tests).
 */
export interface TranscriptObjects {
  /**
   * Writes `bytes` under `key`; `sha256` (base64url, as the codec writes it) lets the store refuse bytes that changed
   * on the way. Rejects with `StorageUnavailableError` when the store does not answer.
   */
  put(key: string, bytes: Uint8Array, sha256: string): Promise<void>;
  /** The bytes under `key` as stored, or undefined when there is no such object. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Removes `key`; removing a key that is not there is no error. */
  delete(key: string): Promise<void>;
}

/** Objects in a `Map`, for tests: the bytes copied in and out, so no caller can change a stored object. */
export class MemoryTranscriptObjects implements TranscriptObjects {
  /** The stored objects by key (tests read and tamper with it). */
  readonly objects = new Map<string, Uint8Array>();

  async put(key: string, bytes: Uint8Array): Promise<void> {
    this.objects.set(key, Uint8Array.from(bytes));
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const bytes = this.objects.get(key);
    return bytes === undefined ? undefined : Uint8Array.from(bytes);
  }

  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }
}
