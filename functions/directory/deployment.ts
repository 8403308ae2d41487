import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DirectoryStore } from './port.ts';
import type { TableDirectory } from './table-directory.ts';
import { tableDirectoryOnFirstUse } from './table-directory-lazy.ts';

/**
 * The directory of persons a Lambda function of the deployment reads (§20), one source at a time: with SCIM the
 * table-kept one (`table`, loaded by its first call, read on every request), else the file bundled with the function
 * (read and checked now, at cold start), else none. The functions that decide (`runtime-base.ts`) and the channels'
 * (`channel-runtime.ts`) choose it here alike. Each source's code is loaded only by the deployment that has it (§23):
 * the file's reader and its directory are a chunk read at the cold start of a function bundled with a file, the
 * table's by its first call; a deployment with neither loads no directory code.
 */
export async function deploymentDirectory(
  client: DynamoDBDocumentClient,
  tableName: string,
  source: { scim: boolean; file: string | undefined },
): Promise<{ directory?: DirectoryStore; table?: TableDirectory }> {
  if (source.scim) {
    const table = tableDirectoryOnFirstUse(client, tableName);
    return { directory: table, table };
  }
  if (source.file === undefined) return {};
  const { readDirectoryFile } = await import('./file.ts');
  return { directory: readDirectoryFile(source.file) };
}
