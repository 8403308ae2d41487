import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DirectoryStore } from './port.ts';
import type { TableDirectory } from './table-directory.ts';
import { onFirstCall, tableDirectoryOnFirstUse } from './table-directory-lazy.ts';

/**
 * The directory of persons a Lambda function of the deployment reads (§20), one source at a time: with SCIM the
 * table-kept one (`table`, read on every request), else the file bundled with the function (read and checked once, by
 * its first call; synthesis checked it), else none. Each source's code is loaded by its first call (§23), so a
 * function's init holds none of it, and a deployment with neither loads none. The functions that decide
 * (`runtime-base.ts`) and the channels' (`channel-runtime.ts`) choose it here alike.
 */
export function deploymentDirectory(
  client: DynamoDBDocumentClient,
  tableName: string,
  source: { scim: boolean; file: string | undefined },
): { directory?: DirectoryStore; table?: TableDirectory } {
  if (source.scim) {
    const table = tableDirectoryOnFirstUse(client, tableName);
    return { directory: table, table };
  }
  const { file } = source;
  if (file === undefined) return {};
  return { directory: onFirstCall(async () => (await import('./file.ts')).readDirectoryFile(file)) };
}
