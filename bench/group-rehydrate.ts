import { checkTranscript } from '../functions/rehydrate/check-transcript.ts';
import { formatOf } from '../functions/rehydrate/formats/index.ts';
import { rebuildTranscript, rehydrate } from '../functions/rehydrate/rehydrate.ts';
import { FORMAT_NAMES, type FormatName } from '../functions/vocabulary.ts';
import { type Comparison, compare } from './measure.ts';
import type { GroupOptions } from './options.ts';
import { ANSWER, type BenchTranscript, floorResume, transcript } from './transcripts.ts';

/**
 * Group 1, rehydration CPU: for each format and transcript length, the floor (JSON.parse of the stored text plus
 * appending three results) against Handback as the resume path runs it — JSON.parse plus `rebuildTranscript`, the
 * trusted path for a checkpoint whose hash matched — and against the public, validating `rehydrate` (parse, schema
 * check of every message, rebuild, strict check of the result).
 */

export const REHYDRATE_SIZES = [10, 100, 1_000, 10_000] as const;

/** One row: a format at one length. */
export interface RehydrateRow extends Partial<Comparison> {
  format: FormatName;
  messages: number;
  jsonBytes: number;
  /** Why this row has no numbers (a format module not finished, a rebuilt transcript failing the check). */
  error?: string;
}

/** Handback's trusted resume path: parse the stored text, rebuild. */
export function handbackTrusted(t: BenchTranscript): unknown[] {
  return rebuildTranscript(formatOf(t.format), JSON.parse(t.text) as unknown[], t.toolCallId, ANSWER);
}

/** The public, validating path: parse, then `rehydrate`. */
export function handbackValidating(t: BenchTranscript): unknown[] {
  return rehydrate({ format: t.format, messages: JSON.parse(t.text) as unknown[], toolCallId: t.toolCallId }, ANSWER);
}

/** Refuses to time a contestant whose output is wrong: the rebuilt transcript must pass the strict check. */
export function sanityCheck(t: BenchTranscript): string | undefined {
  try {
    const rebuilt = handbackValidating(t);
    const violations = checkTranscript(t.format, rebuilt);
    if (violations.length > 0) return `rebuilt transcript fails the check: ${violations[0]?.message}`;
    if (rebuilt.length < t.messages.length + 1) return 'rebuilt transcript has no new results';
    return undefined;
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`.slice(0, 300);
  }
}

export async function runRehydrate(options: GroupOptions): Promise<RehydrateRow[]> {
  const rows: RehydrateRow[] = [];
  const sizes = options.quick ? REHYDRATE_SIZES.slice(0, 3) : REHYDRATE_SIZES;
  for (const size of sizes) {
    for (const format of FORMAT_NAMES) {
      const t = transcript(format, size);
      const row: RehydrateRow = { format, messages: t.messages.length, jsonBytes: Buffer.byteLength(t.text) };
      const error = sanityCheck(t);
      if (error !== undefined) {
        rows.push({ ...row, error });
        options.log(`rehydrate ${format} ${size}: skipped (${error})`);
        continue;
      }
      const rounds = options.quick ? 8 : size >= 10_000 ? 25 : 40;
      const result = await compare(
        [
          { name: 'floor', run: () => floorResume(t) },
          { name: 'trusted', run: () => handbackTrusted(t) },
          { name: 'validating', run: () => handbackValidating(t) },
        ],
        'floor',
        { rounds, warmup: options.quick ? 2 : 4 },
      );
      rows.push({ ...row, ...result });
      options.log(
        `rehydrate ${format.padEnd(16)} ${String(t.messages.length).padStart(6)} msgs: floor ${result.stats.floor?.medianUs.toFixed(1)} µs, trusted ×${result.ratios.trusted?.toFixed(2)}, validating ×${result.ratios.validating?.toFixed(2)}`,
      );
    }
  }
  return rows;
}
