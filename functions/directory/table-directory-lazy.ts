import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { once } from '../once.ts';
import type { TableDirectory } from './table-directory.ts';

/**
 * The table-kept directory (§20 SCIM) loaded by its first call: a Lambda bundle that may keep its directory in the
 * table carries it in a chunk of its own, so a deployment without SCIM loads none of it at cold start.
 */
export function tableDirectoryOnFirstUse(client: DynamoDBDocumentClient, tableName: string): TableDirectory {
  return onFirstCall(() =>
    import('./table-directory.ts').then(({ TableDirectory }) => new TableDirectory({ client, tableName })),
  );
}

/**
 * An object whose every method, on its first call, makes the object `load` gives (`once`: kept for the container, tried
 * again after a failure) and calls that object's method: a directory's code loaded by its first use, never at init
 * (§23). What `load` throws is what the call throws.
 */
export function onFirstCall<T extends object>(load: () => Promise<T>): T {
  const loaded = once(load);
  const call =
    (name: string) =>
    async (...args: unknown[]): Promise<unknown> => {
      const target = await loaded();
      return (target[name as keyof T] as (...given: unknown[]) => unknown).apply(target, args);
    };
  // Not a thenable (`await` reads `then`), and no symbol is a method of the port.
  return new Proxy({} as T, {
    get: (_, name) => (name === 'then' || typeof name === 'symbol' ? undefined : call(name)),
  });
}
