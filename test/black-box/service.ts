import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A local service started as `handback start` (the service `npm start` runs), in a child process. */
export interface RunningService {
  url: string;
  child: ChildProcess;
  output(): string;
  /** Sends `signal` and resolves with the exit code (or signal name) once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The package's command, as built in dist/. */
const BIN = join(root, 'dist', 'cli', 'main.js');
const started = new Set<ChildProcess>();

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Variables for the service; `undefined` removes one the test process has. */
export type ServiceEnv = Record<string, string | undefined>;

/** `handback start` with `env` on top of the test process's, on a free port unless set. */
async function spawnService(env: ServiceEnv): Promise<ChildProcess> {
  const merged: NodeJS.ProcessEnv = { ...process.env, DYNAMODB_ENDPOINT: '', LOG_LEVEL: 'WARN', PORT: '', ...env };
  merged.PORT ||= String(await freePort());
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete merged[name];
  // The package's `handback start` (dist/, which the slow project's global setup builds from the sources when stale):
  // the same service `npm start` runs from the sources through tsx, which took 1.5 s of CPU a start against 0.6 s
  // for the bundle, over the forty-odd starts of the suite. `npm start` itself is started by
  // test/black-box/npm-start.slow.test.ts.
  const child = spawn(process.execPath, [BIN, 'start'], {
    cwd: root,
    env: merged,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  return child;
}

/** Starts a service that is expected not to start: resolves with its exit code and everything it printed. */
export async function startFailing(env: ServiceEnv): Promise<{ code: number | string; output: string }> {
  const child = await spawnService(env);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service neither started nor exited in 30 s:\n${output}`));
    }, 30_000);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      started.delete(child);
      resolve({ code: code ?? signal ?? 'unknown', output });
    });
  });
}

/** Starts the service with `env` (on a free port unless `env.PORT` is set) and waits for its "listening" line. */
export async function startService(env: ServiceEnv = {}): Promise<RunningService> {
  const child = await spawnService(env);
  let output = '';
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      started.delete(child);
      resolve(code ?? signal ?? 'unknown');
    });
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start in 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Handback listening on (http:\/\/\S+:\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code}) before listening:\n${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Kills every child this file started that is still running (for `afterAll`). */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...started].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** A JSON request; returns the status, headers and parsed body. */
export async function request(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
  // biome-ignore lint/suspicious/noExplicitAny: responses are read as loose JSON in the tests
): Promise<{ status: number; headers: Headers; body: any }> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}
