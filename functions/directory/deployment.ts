import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readDirectoryFile } from './file.ts';
import type { DirectoryStore } from './port.ts';
import type { TableDirectory } from './table-directory.ts';
import { tableDirectoryOnFirstUse } from './table-directory-lazy.ts';

/**
 * The directory of persons a Lambda function of the deployment reads (§20), one source at a time: with SCIM the
 * table-kept one (`table`, loaded by its first call, read on every request), else the file bundled with the function
 * (read and checked now, at cold start), else none. The functions that decide (`runtime-base.ts`) and the channels'
 * (`channel-runtime.ts`) choose it here alike.
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
  return source.file === undefined ? {} : { directory: readDirectoryFile(source.file) };
}
