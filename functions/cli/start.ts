/**
 * `handback start`: the local service (what `npm start` runs in the repository) from the installed package — the
 * HTTP API, the inbox and the sweep on the embedded DynamoDB-compatible store — so the README's try-it runs without
 * the repository. The same environment variables configure it (docs/local.md).
 */
import { host as HOST, port as PORT } from '../settings.ts';

export const summary =
  'Run Handback locally: the HTTP API and the inbox on an embedded store (PORT, HOST; docs/local.md).';

export const help = `Usage: handback start [--port <port>] [--host <host>]

Runs the local service: the HTTP API, the inbox page and the sweep, on an embedded DynamoDB-compatible
store (dynalite), or on DYNAMODB_ENDPOINT when it is set. It prints its URL once ready and stops on
SIGINT or SIGTERM. Every variable of \`npm start\` applies (PORT, HOST, HANDBACK_JWT_SECRET, ...).

It needs the store's packages beside handback:
  npm install dynalite @aws-sdk/client-dynamodb @aws-sdk/lib-dynamodb
`;

/** Starts the service; resolves only with an exit code for arguments or packages it cannot start with. */
export async function run(argv: string[]): Promise<number> {
  const flags: Record<string, string> = {};
  for (let at = 0; at < argv.length; at += 2) {
    const [flag, value] = [argv[at], argv[at + 1]];
    if ((flag !== '--port' && flag !== '--host') || value === undefined) {
      console.error(`handback start: unknown argument ${JSON.stringify(flag)}.\n\n${help}`);
      return 2;
    }
    flags[flag === '--port' ? PORT.env : HOST.env] = value;
  }
  // The reader of the local service's settings, not yet the service: nothing of an optional peer is loaded before the
  // check that they are there.
  const { localEnvironment, usesStoreEndpoint } = await import('../local/config.ts');
  const missing = await missingPackages(usesStoreEndpoint() ? [] : ['dynalite']);
  if (missing.length > 0) {
    console.error(`handback start needs ${missing.join(', ')}: npm install ${missing.join(' ')}`);
    return 1;
  }
  // The service runs until a signal stops it (and exits the process then); it never resolves.
  const { serveLocal } = await import('../local/serve.ts');
  await serveLocal(localEnvironment(flags));
  return new Promise<number>(() => {});
}

/** The packages the local service loads that are optional peers of handback, and are not installed. */
async function missingPackages(extra: string[]): Promise<string[]> {
  const needed = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', ...extra];
  const missing: string[] = [];
  for (const name of needed) {
    try {
      await import(name);
    } catch {
      missing.push(name);
    }
  }
  return missing;
}
