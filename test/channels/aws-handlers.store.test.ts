import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SlackAnswer } from '../../functions/channels/slack.ts';
import type { CheckpointStore } from '../../functions/checkpoints/checkpoint-store.ts';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { lifecycleEventOfBus } from '../../functions/handlers/channel-events.ts';
import { createSlackInteractionsHandler } from '../../functions/handlers/slack-http.ts';
import { LIMITS } from '../../functions/vocabulary.ts';
import { lambdaContext } from '../handlers/events.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { type SlackStandIn, signedInteraction, startSlackStandIn } from './slack-stand-in.ts';

/**
 * The channels' Lambda entry points as the stack wires them (§14): the Slack delivery and interactions functions and
 * the email function, each imported from its entry module with a Lambda's environment, on the real store (the embedded
 * DynamoDB-compatible server), Slack's Web API on the local stand-in, Secrets Manager and SES by aws-sdk-client-mock.
 */

const table = useTestTable();
const secrets = mockClient(SecretsManagerClient);
const ses = mockClient(SESv2Client);
const TEAM = 'T0TEAM0AWS';
const SIGNING = 'signing-secret-of-the-aws-test-app';
const BOT = 'xoxb-aws-test-bot-token';
const SLACK_SECRET = 'handback/slack';
const LINK_SECRET = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:handback-link-key-AbCdEf';
const LINK_KEY = 'a-link-key-of-sixty-four-characters-in-all-as-the-stack-makes-it';
const CHANNEL = 'C0AWSAPPR1';
let slack: SlackStandIn;
let store: CheckpointStore;

beforeAll(async () => {
  slack = await startSlackStandIn(TEAM);
  store = createDynamoDBCheckpointStore({ client: table.client, tableName: table.tableName });
  const env: Record<string, string> = {
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    HANDOFF_TARGET: 'none',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
    SLACK_SECRET_ID: SLACK_SECRET,
    HANDBACK_SLACK_API_URL: slack.url,
    LINK_SECRET_ARN: LINK_SECRET,
    HANDBACK_INBOX_URL: 'https://inbox.test/inbox',
    HANDBACK_EMAIL_FROM: 'approvals@example.org',
  };
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await slack?.close();
});

beforeEach(() => {
  secrets.reset();
  ses.reset();
  secrets.on(GetSecretValueCommand, { SecretId: SLACK_SECRET }).resolves({
    SecretString: JSON.stringify({ botToken: BOT, signingSecret: SIGNING }),
  });
  secrets.on(GetSecretValueCommand, { SecretId: LINK_SECRET }).resolves({ SecretString: LINK_KEY });
  ses.on(SendEmailCommand).resolves({ MessageId: 'ses-message-1' });
});

const REFUND = { id: 'call_refund', name: 'refund_order', args: { orderId: 'order-42', amount: 30 } };

/** A pause that notifies one Slack channel and one address, as the API records it. */
async function paused(runId: string) {
  const created = await store.pause({
    tenant: 'acme',
    runId,
    format: 'openai-chat',
    messages: [
      { role: 'user', content: 'Please refund order-42.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: REFUND.id,
            type: 'function',
            function: { name: REFUND.name, arguments: JSON.stringify(REFUND.args) },
          },
        ],
      },
    ],
    asks: [{ toolCallId: REFUND.id, kind: 'approval' }],
    notify: [
      { channel: 'slack', to: CHANNEL },
      { channel: 'email', to: 'ann@example.org' },
    ],
  });
  return { tenant: 'acme', runId, interruptId: created.interruptId };
}

/** The bus event a channel's rule delivers. */
function busEvent(type: string, pause: { tenant: string; runId: string; interruptId: string }) {
  return {
    version: '0',
    id: `event-${Math.random()}`,
    source: 'handback',
    'detail-type': type,
    account: '111122223333',
    time: new Date().toISOString(),
    region: 'eu-west-1',
    resources: [],
    detail: { ...pause, status: 'paused', asks: [], decided: [], pending: [], expiresAt: '' },
  };
}

function click(message: { channel: string; ts: string }) {
  return {
    type: 'block_actions',
    team: { id: TEAM },
    user: { id: 'U0ALICE01', team_id: TEAM },
    trigger_id: 'trigger-1',
    container: { type: 'message', channel_id: message.channel, message_ts: message.ts },
    actions: [{ action_id: 'handback.approve', value: JSON.stringify({ a: 0 }), block_id: 'ask:0' }],
  };
}

const postsOf = (runId: string) =>
  slack.of('chat.postMessage').filter((call) => JSON.stringify(call.body).includes(runId) && !call.body.thread_ts);

describe('the Slack functions on AWS', () => {
  it('posts a pause once, with the bot token of the secret read once, however often the event comes', async () => {
    const { handler } = await import('../../functions/handlers/slack-events.ts');
    const pause = await paused('aws-slack-post');
    await handler(busEvent('Pause Created', pause), lambdaContext());
    await handler(busEvent('Pause Created', pause), lambdaContext());
    const posts = postsOf('aws-slack-post');
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ authorization: `Bearer ${BOT}`, body: { channel: CHANNEL } });
    expect(secrets.commandCalls(GetSecretValueCommand, { SecretId: SLACK_SECRET })).toHaveLength(1);
  });

  it('takes an approve click through the interactions function: decided as the Slack user, the message updated by the decision’s event', async () => {
    const events = await import('../../functions/handlers/slack-events.ts');
    const { handler } = await import('../../functions/handlers/slack-interactions.ts');
    const pause = await paused('aws-slack-click');
    await events.handler(busEvent('Pause Created', pause), lambdaContext());
    const [post] = postsOf('aws-slack-click');
    const n = slack.calls.filter((call) => call.method === 'chat.postMessage').indexOf(post as never) + 1;
    const message = { channel: CHANNEL, ts: `${1_700_000_000 + n}.000100` };
    const updates = slack.of('chat.update').length;

    const answer = await handler(signedInteraction(click(message), SIGNING), lambdaContext());
    expect(answer).toMatchObject({ statusCode: 200 });
    // Answered with no chat.update on the way: the delivery function updates the message on the decision's event.
    expect(slack.of('chat.update')).toHaveLength(updates);
    await events.handler(busEvent('Pause Resumed', pause), lambdaContext());

    const view = await store.getPause(pause);
    expect(view.status).toBe('resumed');
    expect(view.asks[0]?.decision).toMatchObject({
      decision: 'approve',
      by: { kind: 'person', subject: `slack:${TEAM}:U0ALICE01`, email: 'alice@example.com', via: 'slack' },
    });
    const update = slack.of('chat.update').slice(updates).at(-1);
    expect(update?.body).toMatchObject({ channel: CHANNEL, ts: message.ts });
    expect(JSON.stringify(update?.body)).toContain('https://inbox.test/inbox');
  });

  it('answers a request not signed with the secret’s signing secret 401, and records nothing', async () => {
    const { handler } = await import('../../functions/handlers/slack-interactions.ts');
    const calls = slack.calls.length;
    const answer = await handler(
      signedInteraction(click({ channel: CHANNEL, ts: '1.000100' }), 'another-secret'),
      lambdaContext(),
    );
    expect(answer).toMatchObject({ statusCode: 401, headers: { 'Content-Type': 'application/problem+json' } });
    expect(JSON.parse(String(answer.body))).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(slack.calls.slice(calls)).toEqual([]);
  });

  it('answers 503 while the secret cannot be read, and records nothing', async () => {
    vi.resetModules();
    secrets.reset();
    secrets.on(GetSecretValueCommand).rejects(new Error('Secrets Manager is down'));
    const { handler } = await import('../../functions/handlers/slack-interactions.ts');
    const calls = slack.calls.length;
    const answer = await handler(
      signedInteraction(click({ channel: CHANNEL, ts: '1.000100' }), SIGNING),
      lambdaContext(),
    );
    expect(answer).toMatchObject({
      statusCode: 503,
      headers: { 'Content-Type': 'application/problem+json', 'Retry-After': '5' },
    });
    expect(JSON.parse(String(answer.body))).toMatchObject({ status: 503, code: 'channel_unavailable' });
    expect(slack.calls.slice(calls)).toEqual([]);
    vi.resetModules();
  });

  it('answers a body past the route’s limit 413 before reading the secret', async () => {
    const { handler } = await import('../../functions/handlers/slack-interactions.ts');
    const event = signedInteraction(click({ channel: CHANNEL, ts: '1.000100' }), SIGNING);
    const answer = await handler(
      { ...event, body: 'x'.repeat(LIMITS.decisionBodyBytes + 1), isBase64Encoded: false },
      lambdaContext(),
    );
    expect(answer).toMatchObject({ statusCode: 413, headers: { 'Content-Type': 'application/problem+json' } });
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });
});

describe('the email function on AWS', () => {
  it('sends one SES email per recipient with their own link, once however often the event comes', async () => {
    const { handler } = await import('../../functions/handlers/email-events.ts');
    const pause = await paused('aws-email');
    await handler(busEvent('Pause Created', pause), lambdaContext());
    await handler(busEvent('Pause Created', pause), lambdaContext());
    const sent = ses.commandCalls(SendEmailCommand);
    expect(sent).toHaveLength(1);
    const input = sent[0]?.args[0].input;
    expect(input).toMatchObject({
      FromEmailAddress: 'approvals@example.org',
      Destination: { ToAddresses: ['ann@example.org'] },
      Content: { Simple: { Subject: { Data: expect.stringContaining('refund_order'), Charset: 'UTF-8' } } },
    });
    expect(input?.Content?.Simple?.Body?.Text?.Data).toMatch(/https:\/\/inbox\.test\/inbox#[\w-]+\.[\w-]+\.[\w-]+/);
    expect(input?.Content?.Simple?.Body?.Html?.Data).toContain('https://inbox.test/inbox#');
    expect(secrets.commandCalls(GetSecretValueCommand, { SecretId: LINK_SECRET })).toHaveLength(1);
  });

  it('sends nothing for a change email cannot show', async () => {
    const { handler } = await import('../../functions/handlers/email-events.ts');
    const pause = await paused('aws-email-decided');
    await handler(busEvent('Pause Decided', pause), lambdaContext());
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(0);
  });

  it('throws when SES refuses, so Lambda retries the event, and sends it on the retry', async () => {
    const { handler } = await import('../../functions/handlers/email-events.ts');
    const pause = await paused('aws-email-retry');
    ses.on(SendEmailCommand).rejectsOnce(new Error('Throttling')).resolves({ MessageId: 'ses-message-2' });
    await expect(handler(busEvent('Pause Created', pause), lambdaContext())).rejects.toThrow('Throttling');
    await handler(busEvent('Pause Created', pause), lambdaContext());
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(2);
  });
});

describe('the Slack interactions handler', () => {
  const deps = async (slack: () => Promise<{ interactions: () => Promise<SlackAnswer> }>) => {
    const { EmfMetrics, JsonLogger } = await import('../../functions/handlers/telemetry.ts');
    return {
      slack,
      logger: new JsonLogger({ serviceName: 'test', logLevel: 'SILENT' }),
      metrics: new EmfMetrics({ namespace: 'Test', serviceName: 'test' }),
    };
  };

  it('links to the inbox of the host the request came to when the stack names none, as the API does', async () => {
    const useCases: { inboxUrl?: string } = {};
    const handler = createSlackInteractionsHandler({
      ...(await deps(async () => ({ interactions: async () => ({ status: 200 as const }) }))),
      useCases,
    });
    expect(
      await handler(signedInteraction(click({ channel: CHANNEL, ts: '1.000100' }), SIGNING), lambdaContext()),
    ).toMatchObject({
      statusCode: 200,
    });
    expect(useCases.inboxUrl).toBe('https://abc123.execute-api.eu-west-1.amazonaws.com/inbox');
  });

  it('answers an unexpected failure 500 without its message', async () => {
    const handler = createSlackInteractionsHandler({
      ...(await deps(async () => ({
        interactions: async () => {
          throw new Error('socket hang up at 10.0.0.7');
        },
      }))),
      useCases: { inboxUrl: 'https://inbox.test/inbox' },
    });
    const answer = await handler(
      signedInteraction(click({ channel: CHANNEL, ts: '1.000100' }), SIGNING),
      lambdaContext(),
    );
    expect(answer).toMatchObject({ statusCode: 500, headers: { 'Content-Type': 'application/problem+json' } });
    expect(JSON.parse(String(answer.body))).toMatchObject({ status: 500, code: 'internal_error' });
    expect(answer.body).not.toContain('10.0.0.7');
  });
});

describe('lifecycleEventOfBus', () => {
  const pause = { tenant: 'acme', runId: 'r', interruptId: 'i' };
  it.each([
    ['another source', { ...busEvent('Pause Created', pause), source: 'someone.else' }],
    ['another detail-type', busEvent('Resume Requested', pause)],
    ['a detail without its pause', { ...busEvent('Pause Created', pause), detail: { tenant: 'acme' } }],
    ['no detail', { source: 'handback', 'detail-type': 'Pause Created' }],
  ])('finds no lifecycle event in %s', (_what, event) => {
    expect(lifecycleEventOfBus(event)).toBeUndefined();
  });

  it('finds the event of a lifecycle detail-type and detail', () => {
    expect(lifecycleEventOfBus(busEvent('Pause Reminder', pause))).toMatchObject({
      type: 'Pause Reminder',
      detail: pause,
    });
  });
});
