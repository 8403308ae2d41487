/**
 * The document client's commands (`@aws-sdk/lib-dynamodb`), loaded on first use: the DynamoDB SDK is an optional
 * peer of the package, so `import 'handback'` (for `rehydrate`, the memory store, the errors) and every adapter load
 * without it, and only what sends to DynamoDB — the store, the execution log — needs it installed, with an error
 * saying so. Where the SDK is there the module is loaded once per process (in a Lambda bundle it is already inlined).
 */

type DocumentCommands = typeof import('./document-commands.ts');

let loading: Promise<DocumentCommands> | undefined;

/** The commands; `user` names what needs them in the error when the SDK is not installed. */
export async function documentCommands(user: string): Promise<DocumentCommands> {
  loading ??= import('./document-commands.ts');
  try {
    return await loading;
  } catch (error) {
    throw new Error(
      `${user} needs the AWS SDK for DynamoDB: npm install @aws-sdk/client-dynamodb @aws-sdk/lib-dynamodb`,
      {
        cause: error,
      },
    );
  }
}
