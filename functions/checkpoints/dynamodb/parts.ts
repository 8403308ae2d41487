/**
 * How the DynamoDB adapter lays a transcript out, pure: the compressed bytes the service hands the port, cut into
 * parts under DynamoDB's 400 KB item limit, and the read hint that names how many there are — or, with a transcript
 * bucket and over `INLINE_TRANSCRIPT_BYTES`, one object in the bucket (§23), whose hint is `OBJECT_HINT`. A part
 * count hint is decimal digits — what ids carried before the hint was opaque, so those ids read the same way.
 */

/** The bytes of one part: well under the 400 KB item limit, leaving room for keys and attribute names. */
export const PART_BYTES = 256 * 1024;
/**
 * The most parts a transcript can have: with the pause item, one BatchGetItem of at most 100 keys reads it all
 * (16 MB of incompressible JSON in 256 KiB parts is 64).
 */
export const MAX_PARTS = 99;

const HINT = /^[1-9][0-9]?$/;

/**
 * The most compressed bytes a transcript keeps in the table when the store has a bucket (§23); larger ones go to the
 * bucket. Under it a transcript costs fewer requests in the table (one item, one BatchGetItem) than beside it; over
 * it, the table's write units and a year of table storage and point-in-time recovery cost more than an S3 request
 * and S3's storage (`npm run bench -- cost`).
 */
export const INLINE_TRANSCRIPT_BYTES = 64 * 1024;

/**
 * The fewest compressed bytes of a closed pause's transcript that the lifecycle stream moves from its parts to the
 * bucket (§23, `archiveTranscript`). A closed pause's transcript is read rarely (its continuation read
 * back, an audit) but kept the whole retention, where a year of Standard-IA storage and point-in-time recovery costs
 * about $3.6 per GB against S3 Standard's $0.28. Moving one costs an S3 PUT ($5 per million), the pause item's update
 * and the parts' deletes (a write unit per KB each): below a few KB it does not pay back in a year (2.6 KB, the
 * bench's 10 KB transcript, stays), above 8 KB it does with room (`npm run bench -- cost`).
 */
export const ARCHIVE_TRANSCRIPT_BYTES = 8 * 1024;

/** The read hint of a transcript kept in the bucket: letters, so no part count is ever read as it. */
export const OBJECT_HINT = 's3';

/** Where a transcript of `byteLength` compressed bytes is written: in parts, or in the bucket when there is one. */
export function layoutOf(byteLength: number, hasBucket: boolean): { parts: number } | 'object' {
  return hasBucket && byteLength > INLINE_TRANSCRIPT_BYTES ? 'object' : { parts: partCount(byteLength) };
}

/** How many parts `byteLength` compressed bytes are written in (at least one). */
export function partCount(byteLength: number, partBytes = PART_BYTES): number {
  return Math.max(1, Math.ceil(byteLength / partBytes));
}

/** `bytes` cut into `partCount(bytes.length)` parts, in order (views of `bytes`, not copies). */
export function splitParts(bytes: Uint8Array, partBytes = PART_BYTES): Uint8Array[] {
  return Array.from({ length: partCount(bytes.length, partBytes) }, (_, index) =>
    bytes.subarray(index * partBytes, Math.min((index + 1) * partBytes, bytes.length)),
  );
}

/** The read hint of a transcript written in `count` parts. */
export function hintOf(count: number): string {
  return String(count);
}

/** The part count a read hint names, or undefined for a hint this adapter did not make. */
export function partsOfHint(hint: string | undefined): number | undefined {
  return hint !== undefined && HINT.test(hint) ? Number(hint) : undefined;
}

/**
 * The transcript's bytes from `parts[i]`, the part stored at index i (undefined when none was found), `count` of
 * them; `missing` is the first index without a part.
 */
export function joinParts(
  parts: ReadonlyArray<Uint8Array | undefined>,
  count: number,
): { bytes: Uint8Array } | { missing: number } {
  const found: Uint8Array[] = [];
  for (let index = 0; index < count; index++) {
    const part = parts[index];
    if (part === undefined) return { missing: index };
    found.push(part);
  }
  return { bytes: found.length === 1 ? (found[0] as Uint8Array) : Buffer.concat(found) };
}
