import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TableDirectory } from './table-directory.ts';

/**
 * The table-kept directory (§20 SCIM) loaded by its first call: a Lambda bundle that may keep its directory in the
 * table carries it in a chunk of its own, so a deployment without SCIM loads none of it at cold start.
 */
export function tableDirectoryOnFirstUse(client: DynamoDBDocumentClient, tableName: string): TableDirectory {
  let loading: Promise<TableDirectory> | undefined;
  const load = () => {
    loading ??= import('./table-directory.ts').then(({ TableDirectory }) => new TableDirectory({ client, tableName }));
    return loading;
  };
  const call =
    (name: string) =>
    async (...args: unknown[]): Promise<unknown> => {
      const directory = await load();
      return (directory[name as keyof TableDirectory] as (...given: unknown[]) => unknown).apply(directory, args);
    };
  // Not a thenable (`await` reads `then`), and no symbol is a method of the port.
  return new Proxy({} as TableDirectory, {
    get: (_, name) => (name === 'then' || typeof name === 'symbol' ? undefined : call(name)),
  });
}
