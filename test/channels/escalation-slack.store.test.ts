import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTable, EMBEDDED_CLIENT_CONFIG } from '../../functions/local/embedded-dynamodb.ts';
import { type LocalService, startLocalService } from '../../functions/local/service.ts';
import { type SlackStandIn, startSlackStandIn } from './slack-stand-in.ts';
import { until } from './smtp-catcher.ts';

/** §21: the pause's Slack message gets a reply in its thread at each escalation level, naming it, once. */

const CHANNEL = 'C0APPROVE1';
let slack: SlackStandIn;
let service: LocalService;

beforeAll(async () => {
  slack = await startSlackStandIn('T0TEAM0001');
  const tableName = `handback-escalation-slack-${Date.now()}`;
  const endpoint = inject('dynamodbEndpoint');
  const raw = new DynamoDBClient({ endpoint, ...EMBEDDED_CLIENT_CONFIG });
  await createTable(raw, tableName);
  raw.destroy();
  service = await startLocalService({
    PORT: '0',
    DYNAMODB_ENDPOINT: endpoint,
    TABLE_NAME: tableName,
    LOG_LEVEL: 'ERROR',
    HANDBACK_SWEEP_INTERVAL_MS: '200',
    HANDBACK_SLACK_BOT_TOKEN: 'xoxb-test-token',
    HANDBACK_SLACK_SIGNING_SECRET: 'slack-signing-secret-for-tests',
    HANDBACK_SLACK_API_URL: slack.url,
    HANDBACK_ESCALATION: 'PT1S group:leads, email:cfo@example.com; PT2S manager',
  });
});

afterAll(async () => {
  await service?.close();
  await slack?.close();
});

describe('the Slack channel at an escalation level', () => {
  it('replies once per level in the message’s thread, naming the level’s approvers and when, and once with the level’s reminder', async () => {
    const response = await fetch(`${service.url}/runs/esc-slack/pauses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        format: 'openai-chat',
        messages: [
          { role: 'user', content: 'Refund order-9.' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_refund', type: 'function', function: { name: 'refund', arguments: '{}' } }],
          },
        ],
        asks: [{ toolCallId: 'call_refund', kind: 'approval' }],
        notify: [{ channel: 'slack', to: CHANNEL }],
        expiresInSeconds: 60,
      }),
    });
    expect(response.status).toBe(201);
    const posts = () => slack.of('chat.postMessage').filter((call) => JSON.stringify(call.body).includes('esc-slack'));
    await until(() => posts().length === 1 && true, 'the message');
    const replies = () => slack.of('chat.postMessage').filter((call) => call.body.thread_ts !== undefined);
    const got = await until(() => replies().length >= 3 && replies(), 'a reply per level and level 1’s reminder');
    expect(got.map((call) => call.body.channel)).toEqual([CHANNEL, CHANNEL, CHANNEL]);
    expect(new Set(got.map((call) => call.body.thread_ts)).size).toBe(1);
    expect(String(got[0]?.body.text)).toMatch(
      /^Escalated to group leads, cfo@example\.com at \d{4}-\d\d-\d\dT[\d:.]+Z \(level 1, call_refund\)\.$/,
    );
    // Halfway from level 1 (1 s) to level 2 (2 s): level 1's approvers reminded, in the thread.
    expect(String(got[1]?.body.text)).toMatch(
      /^Reminder: call_refund still waits for a decision since level 1, until /,
    );
    // Without a directory the manager level adds no one, and so reminds no one.
    expect(String(got[2]?.body.text)).toMatch(
      /^Escalated to no one \(the level names managers.*\) at .* \(level 2, call_refund\)\.$/,
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(replies()).toHaveLength(3);
  });
});
