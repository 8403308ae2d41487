import { archiveTranscript } from '../checkpoints/dynamodb/archive.ts';
import type { RecordKey } from '../checkpoints/record.ts';
import type { TranscriptObjects } from '../checkpoints/transcript-objects.ts';
import { tracedDocumentClient } from './document-client.ts';

/**
 * The lifecycle stream's move of closed transcripts from the table to the bucket (§23, `archiveTranscript`): its own
 * chunk, with the document client, loaded by the first change that leaves a pause closed with a transcript to move,
 * so the stream function's init reads neither.
 */
export function transcriptArchive(
  tableName: string,
  endpoint: string | undefined,
  objects: TranscriptObjects,
): (key: RecordKey) => Promise<unknown> {
  const table = { client: tracedDocumentClient(endpoint), tableName, objects };
  return (key) => archiveTranscript(table, key);
}
