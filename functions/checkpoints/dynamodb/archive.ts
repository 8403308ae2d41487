import { CorruptCheckpointError } from '../../errors.ts';
import { sha256 } from '../codec.ts';
import type { RecordKey } from '../record.ts';
import { storageError } from '../sdk-errors.ts';
import type { TranscriptObjects } from '../transcript-objects.ts';
import { collectParts, idOfItem, OBJECT_SCHEMA_VERSION, objectKeyOf, recordOf, transcriptPlaceOf } from './items.ts';
import * as params from './params.ts';
import { ARCHIVE_TRANSCRIPT_BYTES, joinParts } from './parts.ts';
import { batchGetItems, commands, deleteParts, getPauseItem, isConditionFailed, type TableClient } from './requests.ts';

/**
 * What `archiveTranscript` did: moved the transcript to the bucket (or found it moved), found it written there, left
 * it (the pause is open, or its transcript under `ARCHIVE_TRANSCRIPT_BYTES`), found no pause (TTL removed it, or
 * another attempt holds its number), or had no bucket to move it to.
 */
export type ArchiveOutcome = 'archived' | 'in-bucket' | 'open' | 'small' | 'gone' | 'no-bucket';

/**
 * Moves a closed pause's transcript from its parts to the bucket (§23), when it is at least `ARCHIVE_TRANSCRIPT_BYTES`
 * compressed: a closed pause is read rarely but kept the whole retention, where a year of the table's storage and
 * point-in-time recovery costs more than the move and S3's storage (parts.ts). The lifecycle stream calls it on each
 * change that leaves a pause closed with its transcript in parts (`handlers/transcript-archive.ts`, loaded with the
 * first such change); nothing else imports it, so no other function's bundle holds it.
 *
 * The object is written first, with the parts' bytes checked against the item's length and SHA-256; the item then
 * names it (`params.archivePause`: only while it still names its parts, at whatever revision: the move changes where
 * the bytes are, not what the pause is), and last the parts are deleted. The pause's id does not change: the item
 * keeps its part count, the id's read hint, and every read follows the item to the object (a reader that read the
 * item before the move and finds its parts gone reads the item again). Safe to repeat, as a stream delivers at least
 * once: a move that finds the item naming its object deletes what parts are left and answers `archived`.
 */
export async function archiveTranscript(
  table: TableClient & { objects: TranscriptObjects | undefined },
  key: RecordKey,
): Promise<ArchiveOutcome> {
  const { objects } = table;
  if (objects === undefined) return 'no-bucket';
  const [raw] = await getPauseItem(table, key);
  if (raw === undefined) return 'gone';
  const names = { runId: key.runId, interruptId: idOfItem(raw, key.seq) };
  const record = recordOf(raw, names);
  const place = transcriptPlaceOf(raw);
  if ('objectKey' in place) {
    if (place.parts !== undefined) await deleteParts(table, record, place.parts);
    return place.parts === undefined ? 'in-bucket' : 'archived';
  }
  if (record.closing === undefined) return 'open';
  if (record.transcript.byteLength < ARCHIVE_TRANSCRIPT_BYTES) return 'small';
  const count = place.parts;
  const parts: Array<Uint8Array | undefined> = [];
  const indexes = Array.from({ length: count }, (_, index) => index);
  for (const input of params.getKeys(table.tableName, params.partKeys(key, record.token, indexes))) {
    collectParts(await batchGetItems(table, input), record.token, count, names, parts);
  }
  const joined = joinParts(parts, count);
  if ('missing' in joined) {
    // Another move went first and deleted them; else the pause is broken, and its bytes are not moved anywhere.
    const [now] = await getPauseItem(table, key);
    if (now?.token === record.token && 'objectKey' in transcriptPlaceOf(now)) return 'archived';
    throw new CorruptCheckpointError(key.runId, names.interruptId, `part ${joined.missing} of ${count} is missing`);
  }
  const bytes = joined.bytes;
  if (bytes.length !== record.transcript.byteLength || sha256(bytes) !== record.transcript.sha256) {
    throw new CorruptCheckpointError(key.runId, names.interruptId, 'its parts are not the transcript its item names');
  }
  const objectKey = objectKeyOf(record);
  await objects.put(objectKey, bytes, record.transcript.sha256);
  const { UpdateCommand } = await commands();
  const target = { ...key, token: record.token, chunkCount: count };
  try {
    await table.client.send(
      new UpdateCommand(params.archivePause(table.tableName, target, objectKey, OBJECT_SCHEMA_VERSION)),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw storageError(error);
    const [now] = await getPauseItem(table, key);
    // Another move named the object first; or the item is gone (TTL) or another attempt's, and the object with it.
    if (now?.token !== record.token || !('objectKey' in transcriptPlaceOf(now))) {
      await objects.delete(objectKey).catch(() => undefined);
      return 'gone';
    }
  }
  await deleteParts(table, record, count);
  return 'archived';
}
