import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoDBDeliveryLog } from '../functions/channels/delivery-log.ts';
import { slackSignature } from '../functions/channels/slack-api.ts';
import { createDynamoDBCheckpointStore } from '../functions/checkpoints/dynamodb-store.ts';
import { startEmbeddedDynamoDB } from '../functions/local/embedded-dynamodb.ts';
import { startSlackStandIn } from '../test/channels/slack-stand-in.ts';
import { buildBundle, DEPLOYED_NODE_FLAGS, OUT_DIR, SLACK_FLOOR } from './bundle.ts';
import { quantile } from './measure.ts';

/**
 * An interaction acknowledged after a cold start (the Slack target: within 1 s), on local stand-ins: the Slack
 * interactions function bundled as the stack bundles it, imported by a fresh `node` with a Lambda's environment, then
 * handed one signed Approve click on a posted message, which it verifies, resolves (`auth.test`, `users.info` on the
 * Slack stand-in), reads the app's secret for (a Secrets Manager stand-in), decides on the embedded
 * DynamoDB-compatible store, and answers. Timed inside the child from its process start: what Slack's 3 s cover,
 * less Lambda's own sandbox start and the network. Then a second click, on another pause, in the same process: a
 * warm container's answer (the target: within 300 ms).
 */

/** The medians of the rounds, in ms. */
export interface SlackAckResult {
  bundle: string;
  floor: string;
  rounds: number;
  /** `import()` of the bundle. */
  importMs: number;
  /** The first interaction: from the handler called to its answer. */
  firstRequestMs: number;
  /** From the process's start to the answer: node's own start, the import and the first interaction. */
  ackFromStartMs: number;
  ackFromStartP90Ms: number;
  /** The second click, in the same process: from the handler called to its answer. */
  warmRequestMs: number;
  warmRequestP90Ms: number;
  /** Every round answered 200 and recorded the decision. */
  allDecided: boolean;
}

const TEAM = 'T0BENCH001';
const SIGNING = 'bench-signing-secret';
const CHANNEL = 'C0BENCHAPP';

/** Secrets Manager's `GetSecretValue` answered with the Slack app's JSON. */
async function secretsStandIn(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(
        JSON.stringify({
          Name: 'handback/slack',
          SecretString: JSON.stringify({ botToken: 'xoxb-bench', signingSecret: SIGNING }),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

/** The child: the import, then two signed clicks through the handler (cold, then warm), timed; prints their answers. */
const DRIVER = `
const started = performance.now();
const { handler } = await import(process.argv[2]);
const imported = performance.now();
const eventOf = (body, timestamp, signature) => ({
  version: '2.0', routeKey: 'POST /channels/slack/interactions', rawPath: '/channels/slack/interactions', rawQueryString: '',
  headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': timestamp, 'x-slack-signature': signature },
  requestContext: { accountId: '1', apiId: 'api', domainName: 'api.example.com', domainPrefix: 'api', requestId: 'r', routeKey: 'POST /channels/slack/interactions',
    stage: '$default', time: '', timeEpoch: Date.now(), http: { method: 'POST', path: '/channels/slack/interactions', protocol: 'HTTP/1.1', sourceIp: '1.2.3.4', userAgent: 'Slackbot' } },
  body, isBase64Encoded: false,
});
const context = { awsRequestId: 'r', functionName: 'slack', functionVersion: '$LATEST', memoryLimitInMB: '512', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:1:function:slack',
  logGroupName: 'g', logStreamName: 's', callbackWaitsForEmptyEventLoop: true, getRemainingTimeInMillis: () => 10000, done() {}, fail() {}, succeed() {} };
const answer = await handler(eventOf(process.argv[3], process.argv[4], process.argv[5]), context);
const answered = performance.now();
const warm = await handler(eventOf(process.argv[6], process.argv[7], process.argv[8]), context);
const warmAnswered = performance.now();
process.stdout.write('RESULT ' + JSON.stringify({ status: answer.statusCode, warmStatus: warm.statusCode, importMs: imported - started, requestMs: answered - imported, fromStartMs: answered, warmMs: warmAnswered - answered }));
process.exit(0);
`;

/** Measures `rounds` cold starts of the Slack interactions function, each answering one click. */
export async function measureSlackAck(options: {
  rounds: number;
  log: (line: string) => void;
}): Promise<SlackAckResult> {
  const built = await buildBundle({
    name: 'slack-ack',
    kind: 'handler',
    entry: join(import.meta.dirname, '../functions/handlers/slack-interactions.ts'),
    handoffTarget: 'none',
  });
  const driver = join(OUT_DIR, 'slack-ack-driver.mjs');
  writeFileSync(driver, DRIVER);
  const tableName = 'handback-slack-ack';
  const db = await startEmbeddedDynamoDB({ tableName });
  const slack = await startSlackStandIn(TEAM);
  const secrets = await secretsStandIn();
  const client = DynamoDBDocumentClient.from(db.client(), { marshallOptions: { removeUndefinedValues: true } });
  const store = createDynamoDBCheckpointStore({ client, tableName });
  const log = createDynamoDBDeliveryLog({ client, tableName });
  const imports: number[] = [];
  const requests: number[] = [];
  const totals: number[] = [];
  const warms: number[] = [];
  let allDecided = true;
  try {
    for (let round = 0; round < options.rounds; round++) {
      /** A pause with its posted message, and a signed Approve click on that message. */
      const clickable = async (which: number) => {
        const runId = `slack-ack-${round}-${which}-${Date.now()}`;
        const { interruptId } = await store.pause({
          tenant: 'acme',
          runId,
          format: 'openai-chat',
          messages: [
            { role: 'user', content: 'Refund order-42?' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'call_refund', type: 'function', function: { name: 'refund_order', arguments: '{}' } },
              ],
            },
          ],
          asks: [{ toolCallId: 'call_refund', kind: 'approval' }],
          notify: [{ channel: 'slack', to: CHANNEL }],
        });
        // The message the delivery function posted, as its log keeps it.
        const message = { channel: CHANNEL, ts: `1800000000.${String(round * 2 + which).padStart(6, '0')}` };
        const pause = { tenant: 'acme', runId, interruptId };
        await log.index(message, pause);
        const payload = {
          type: 'block_actions',
          team: { id: TEAM },
          user: { id: 'U0ALICE01', team_id: TEAM },
          trigger_id: 'trigger',
          container: { type: 'message', channel_id: message.channel, message_ts: message.ts },
          actions: [{ action_id: 'handback.approve', value: JSON.stringify({ a: 0 }) }],
        };
        const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
        const timestamp = String(Math.floor(Date.now() / 1000));
        return { pause, args: [body, timestamp, slackSignature(SIGNING, timestamp, body)] };
      };
      const cold = await clickable(0);
      const warm = await clickable(1);
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [...DEPLOYED_NODE_FLAGS, driver, pathToFileURL(built.file).href, ...cold.args, ...warm.args],
        {
          env: {
            PATH: process.env.PATH ?? '',
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
            AWS_REGION: 'eu-west-1',
            AWS_ACCESS_KEY_ID: 'bench',
            AWS_SECRET_ACCESS_KEY: 'bench',
            TABLE_NAME: tableName,
            DYNAMODB_ENDPOINT: db.endpoint,
            HANDOFF_TARGET: 'none',
            SLACK_SECRET_ID: 'handback/slack',
            AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
            HANDBACK_SLACK_API_URL: slack.url,
            POWERTOOLS_METRICS_DISABLED: 'true',
            POWERTOOLS_LOG_LEVEL: 'ERROR',
          },
          encoding: 'utf8',
        },
      );
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (line === undefined) throw new Error(`the Slack interactions bundle printed no result: ${stdout.slice(-400)}`);
      const result = JSON.parse(line.slice('RESULT '.length)) as {
        status: number;
        importMs: number;
        requestMs: number;
        fromStartMs: number;
        warmStatus: number;
        warmMs: number;
      };
      const views = await Promise.all([store.getPause(cold.pause), store.getPause(warm.pause)]);
      if (result.status !== 200 || result.warmStatus !== 200 || views.some((view) => view.status !== 'resumed'))
        allDecided = false;
      imports.push(result.importMs);
      requests.push(result.requestMs);
      totals.push(result.fromStartMs);
      warms.push(result.warmMs);
    }
  } finally {
    await slack.close();
    await new Promise<void>((resolve) => secrets.server.close(() => resolve()));
    await db.close();
  }
  const row: SlackAckResult = {
    bundle: 'slack-interactions',
    floor: SLACK_FLOOR,
    rounds: options.rounds,
    importMs: quantile(imports, 0.5),
    firstRequestMs: quantile(requests, 0.5),
    ackFromStartMs: quantile(totals, 0.5),
    ackFromStartP90Ms: quantile(totals, 0.9),
    warmRequestMs: quantile(warms, 0.5),
    warmRequestP90Ms: quantile(warms, 0.9),
    allDecided,
  };
  options.log(
    `coldstart slack interaction acknowledged ${row.ackFromStartMs.toFixed(0)} ms from process start (p90 ${row.ackFromStartP90Ms.toFixed(0)}): import ${row.importMs.toFixed(0)} ms + first click ${row.firstRequestMs.toFixed(0)} ms; a warm click ${row.warmRequestMs.toFixed(0)} ms (p90 ${row.warmRequestP90Ms.toFixed(0)}); ${allDecided ? 'every click decided' : 'NOT every click decided'}`,
  );
  return row;
}
