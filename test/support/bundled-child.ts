import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DEPLOYED_NODE_FLAGS } from '../../infra/handback-function.ts';

/**
 * Running a function as the stack bundles it, in a child Node with the deployed flags: the tests that check what a
 * built bundle loads and when. The child is a driver script the test writes; it prints one `RESULT <json>` line.
 */

/** The environment every bundled child gets (placeholder credentials, quiet logs, no EMF), beside the test's own. */
const BASE_ENV = {
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  POWERTOOLS_METRICS_DISABLED: 'true',
  POWERTOOLS_LOG_LEVEL: 'WARN',
};

/** Runs `driver` with `args` and `env`, and returns what it printed after `RESULT `, parsed, and all it printed. */
export async function runBundledDriver(
  driver: string,
  args: string[],
  env: Record<string, string>,
  // biome-ignore lint/suspicious/noExplicitAny: the child's answers are read as loose JSON
): Promise<{ result: any; logs: string }> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [...DEPLOYED_NODE_FLAGS, driver, ...args], {
    env: { PATH: process.env.PATH ?? '', ...BASE_ENV, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (line === undefined) throw new Error(`the child printed no result:\n${stdout}\n${stderr}`);
  return { result: JSON.parse(line.slice('RESULT '.length)), logs: stdout + stderr };
}

/** A module hook (`register`ed by the driver): every file Node loads is posted to the driver's port. */
export const LOAD_HOOKS = `
let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) {
  port.postMessage(url);
  return next(url, context);
}
`;

/** Driver source: `context()`, a Lambda context for `functionName` (the driver imports `randomUUID`). */
export function lambdaContextSource(functionName: string): string {
  return `
const context = () => ({
  awsRequestId: randomUUID(), functionName: ${JSON.stringify(functionName)}, functionVersion: '$LATEST', memoryLimitInMB: '1024',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:111122223333:function:${functionName}', logGroupName: 'g', logStreamName: 's',
  callbackWaitsForEmptyEventLoop: true, getRemainingTimeInMillis: () => 30000, done() {}, fail() {}, succeed() {},
});
`;
}

/**
 * Driver source: `event(method, path, body?, headers?)`, API Gateway's payload 2.0 for the API function, with the
 * claims of person-1 of tenant acme (the driver imports `randomUUID`).
 */
export const API_EVENT_SOURCE = `
const event = (method, path, body, headers = {}) => ({
  version: '2.0', routeKey: '$default', rawPath: path, rawQueryString: '', isBase64Encoded: false,
  headers: { host: 'api.example.com', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
  requestContext: {
    accountId: '111122223333', apiId: 'api', domainName: 'api.example.com', domainPrefix: 'api', requestId: randomUUID(),
    routeKey: '$default', stage: '$default', time: new Date().toUTCString(), timeEpoch: Date.now(),
    http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'test' },
    authorizer: { principalId: '', integrationLatency: 0, jwt: { claims: { tenant: 'acme', sub: 'person-1' }, scopes: [] } },
  },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});
`;

/**
 * The start of a driver that watches its chunks: registers `LOAD_HOOKS` (its URL is argv[3]), imports the bundle
 * (argv[2]), and defines `loadedSince()` (the chunks loaded since the last call), `loaded.init` and `context()`, a
 * Lambda context for `functionName`.
 */
export function chunkWatchingDriver(functionName: string): string {
  return `
import { randomUUID } from 'node:crypto';
import { register } from 'node:module';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
register(process.argv[3], { data: { port: port2 }, transferList: [port2] });
const loadedSince = () => {
  const files = [];
  for (let m = receiveMessageOnPort(port1); m !== undefined; m = receiveMessageOnPort(port1)) {
    if (m.message.includes('/chunks/')) files.push(m.message.slice(m.message.lastIndexOf('chunks/')));
  }
  return files;
};
const { handler } = await import(process.argv[2]);
const loaded = { init: loadedSince() };
${lambdaContextSource(functionName)}`;
}
