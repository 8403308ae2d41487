import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDBDeliveryLog } from '../../functions/channels/delivery-log.ts';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { buildLambdaBundle, type LambdaBundle, outputsAtInit } from '../../infra/lambda-bundle.ts';
import { ENTRY } from '../../infra/paths.ts';
import { type SlackStandIn, signedInteraction, startSlackStandIn } from '../channels/slack-stand-in.ts';
import { chunkWatchingDriver, LOAD_HOOKS, runBundledDriver } from '../support/bundled-child.ts';
import { useTestTable } from '../support/dynamodb.ts';

/**
 * The Slack interactions function as the stack bundles it (for the SQS hand-off): the hand-off target's client
 * (`functions/handoff/target.ts` and the SQS client) is in a chunk its init does not read, while the SQS resume
 * function reads it at init. A child Node runs the bundle against the embedded table and stand-ins of Slack, Secrets
 * Manager and SQS, with a module hook that reports every file it loads: a click that leaves an ask pending loads no
 * target chunk, and the click that closes the pause loads it and hands off to the queue.
 */

const table = useTestTable();
const dir = mkdtempSync(join(tmpdir(), 'handback-bundled-lazy-target-'));
const TEAM = 'T0TEAM0LAZY';
const SIGNING = 'signing-secret-of-the-lazy-test-app';
const CHANNEL = 'C0LAZYAPPR';
/** What only a hand-off to the target needs. */
const TARGET_CODE = /node_modules\/@aws-sdk\/client-sqs\/|functions\/handoff\/target\.ts$/;
let slackBundle: LambdaBundle;
let slack: SlackStandIn;
let server: Server;
let endpoint: string;
const awsCalls: Array<{ target: string; body: Record<string, unknown> }> = [];

beforeAll(async () => {
  slackBundle = buildLambdaBundle(ENTRY.slackInteractions, join(dir, 'slack-interactions'), 'sqs');
  writeFileSync(join(dir, 'hooks.mjs'), LOAD_HOOKS);
  writeFileSync(join(dir, 'drive.mjs'), DRIVER);
  slack = await startSlackStandIn(TEAM);
  // Secrets Manager and SQS on one stand-in, told apart by the target header.
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      const body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      awsCalls.push({ target, body });
      if (target === 'secretsmanager.GetSecretValue') {
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(
          JSON.stringify({ SecretString: JSON.stringify({ botToken: 'xoxb-lazy', signingSecret: SIGNING }) }),
        );
        return;
      }
      const md5 = createHash('md5')
        .update(String(body.MessageBody ?? ''))
        .digest('hex');
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ MessageId: 'm-1', MD5OfMessageBody: md5 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await slack?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The inputs of the output files init loads. */
function inputsAtInit(metafile: Metafile): string[] {
  return [...outputsAtInit(metafile)].flatMap((name) => Object.keys(metafile.outputs[name]?.inputs ?? {}));
}

/** The `chunks/<file>` names of the outputs that hold the target's code. */
function targetChunks(outputs: Metafile['outputs']): string[] {
  return Object.keys(outputs)
    .filter((name) => Object.keys(outputs[name]?.inputs ?? {}).some((input) => TARGET_CODE.test(input)))
    .map((name) => name.slice(name.lastIndexOf('chunks/')));
}

/** The child: registers the hook, imports the bundle, sends each click in turn, and prints the chunks each loaded. */
const DRIVER = `
import { readFileSync } from 'node:fs';
${chunkWatchingDriver('slack-interactions')}
const results = {};
for (const [name, event] of Object.entries(JSON.parse(readFileSync(process.argv[4], 'utf8')))) {
  const r = await handler(event, context());
  results[name] = { status: r.statusCode };
  loaded[name] = loadedSince();
}
console.log('RESULT ' + JSON.stringify({ results, loaded }));
`;

/** API Gateway's payload 2.0 for an approve click on ask `a` of the message, signed as Slack signs it. */
function approveClick(message: { channel: string; ts: string }, a: number) {
  const payload = {
    type: 'block_actions',
    team: { id: TEAM },
    user: { id: 'U0ALICE01', team_id: TEAM },
    trigger_id: 'trigger-1',
    container: { type: 'message', channel_id: message.channel, message_ts: message.ts },
    actions: [{ action_id: 'handback.approve', value: JSON.stringify({ a }), block_id: `ask:${a}` }],
  };
  return signedInteraction(payload, SIGNING);
}

describe('the bundled Slack interactions function with the hand-off target loaded on first use', () => {
  it('reads neither the SQS client nor the target module at init, which the SQS resume function reads', () => {
    const outputs = slackBundle.metafile.outputs;
    expect(inputsAtInit(slackBundle.metafile).filter((input) => TARGET_CODE.test(input))).toEqual([]);
    expect(targetChunks(outputs).length).toBeGreaterThan(0);
    const resume = buildLambdaBundle(ENTRY.sqs, join(dir, 'sqs'), 'sqs').metafile;
    expect(inputsAtInit(resume).filter((input) => TARGET_CODE.test(input)).length).toBeGreaterThan(0);
  });

  it('loads the target with the click that closes the pause, not with one that leaves an ask pending, and hands off', async () => {
    const store = createDynamoDBCheckpointStore({ client: table.client, tableName: table.tableName });
    const calls = ['call_a', 'call_b'];
    const created = await store.pause({
      tenant: 'acme',
      runId: 'run-lazy-slack',
      format: 'openai-chat',
      messages: [
        { role: 'user', content: 'Refund orders 41 and 42.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: calls.map((id) => ({
            id,
            type: 'function',
            function: { name: 'refund_order', arguments: '{}' },
          })),
        },
      ],
      asks: calls.map((toolCallId) => ({ toolCallId, kind: 'approval' as const })),
    });
    const message = { channel: CHANNEL, ts: '1700000001.000100' };
    const log = createDynamoDBDeliveryLog({ client: table.client, tableName: table.tableName });
    await log.index(message, { tenant: 'acme', runId: 'run-lazy-slack', interruptId: created.interruptId });
    const events = join(dir, 'events.json');
    writeFileSync(events, JSON.stringify({ partial: approveClick(message, 0), closing: approveClick(message, 1) }));

    const { result } = await runBundledDriver(
      join(dir, 'drive.mjs'),
      [pathToFileURL(slackBundle.entry).href, pathToFileURL(join(dir, 'hooks.mjs')).href, events],
      {
        TABLE_NAME: table.tableName,
        DYNAMODB_ENDPOINT: table.endpoint,
        HANDOFF_TARGET: 'sqs',
        HANDOFF_QUEUE_URL: `${endpoint}/111122223333/handoff`,
        AWS_ENDPOINT_URL_SQS: endpoint,
        AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint,
        SLACK_SECRET_ID: 'handback/slack',
        HANDBACK_SLACK_API_URL: slack.url,
        HANDBACK_INBOX_URL: 'https://inbox.test/inbox',
      },
    );
    const { results, loaded } = result;
    const chunks = targetChunks(slackBundle.metafile.outputs);

    expect(results).toEqual({ partial: { status: 200 }, closing: { status: 200 } });
    expect(chunks.filter((chunk) => [...loaded.init, ...loaded.partial].includes(chunk))).toEqual([]);
    expect(chunks.filter((chunk) => !loaded.closing.includes(chunk))).toEqual([]);
    expect(
      (await store.getPause({ tenant: 'acme', runId: 'run-lazy-slack', interruptId: created.interruptId })).status,
    ).toBe('resumed');
    const sent = awsCalls.filter((call) => call.target === 'AmazonSQS.SendMessage');
    expect(sent).toHaveLength(1);
    expect(JSON.parse(String(sent[0]?.body.MessageBody))).toMatchObject({
      runId: 'run-lazy-slack',
      interruptId: created.interruptId,
      outcome: 'resumed',
    });
  });
});
