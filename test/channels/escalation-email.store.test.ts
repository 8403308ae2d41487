import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTable, EMBEDDED_CLIENT_CONFIG } from '../../functions/local/embedded-dynamodb.ts';
import { type LocalService, startLocalService } from '../../functions/local/service.ts';
import { LINK_HEADER } from '../../functions/vocabulary.ts';
import { type SmtpCatcher, startSmtpCatcher, recipientsOf as to, until } from './smtp-catcher.ts';

/** §21: the email approvers an escalation level adds are mailed like a new pause, through the real smtp-server. */

const LINK_SECRET = 'an-answer-link-secret-of-at-least-32-bytes';
let smtp: SmtpCatcher;
let service: LocalService;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  const tableName = `handback-escalation-${Date.now()}`;
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
    HANDBACK_LINK_SECRET: LINK_SECRET,
    HANDBACK_SMTP_URL: smtp.url,
    HANDBACK_EMAIL_FROM: 'Handback <handback@example.com>',
    HANDBACK_ESCALATION: 'PT1S email:cfo@example.com; PT2S email:ceo@example.com',
  });
});

afterAll(async () => {
  await service?.close();
  await smtp?.close();
});

async function pause(runId: string, expiresInSeconds: number): Promise<string> {
  const response = await fetch(`${service.url}/runs/${runId}/pauses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      format: 'openai-chat',
      messages: [
        { role: 'user', content: 'Please refund order-7.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_refund', type: 'function', function: { name: 'refund_order', arguments: '{"orderId":"7"}' } },
          ],
        },
      ],
      asks: [{ toolCallId: 'call_refund', kind: 'approval', prompt: 'Refund this order?' }],
      notify: [{ channel: 'email', to: 'alice@example.com' }],
      expiresInSeconds,
    }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { interruptId: string }).interruptId;
}

describe('the email channel at an escalation level', () => {
  it('mails each level’s email approver once, with a link of their own to the pause; the level after expiry never', async () => {
    const interruptId = await pause('order-7', 60);
    const all = () => smtp.mails.filter((mail) => mail.subject?.endsWith('order-7'));
    // Level 1's reminder (halfway to level 2, at 1.5 s) is its own mail, checked below.
    const forRun = () => all().filter((mail) => !mail.subject?.startsWith('Reminder: '));
    const got = await until(() => {
      const found = forRun();
      return found.length >= 3 && found;
    }, 'the first mail and one per level');
    expect(got.map((mail) => to(mail))).toEqual([['alice@example.com'], ['cfo@example.com'], ['ceo@example.com']]);
    const [alice, cfo, ceo] = got.map((mail) => /Review and decide: \S+#(\S+)/.exec(mail.text ?? '')?.[1]);
    expect(new Set([alice, cfo, ceo]).size).toBe(3);
    const seen = await fetch(`${service.url}/links/pause`, { headers: { [LINK_HEADER]: cfo as string } });
    expect(seen.status).toBe(200);
    expect(await seen.json()).toMatchObject({ runId: 'order-7', interruptId });
    // Once per level: the sweep keeps running, and no second mail comes.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(forRun()).toHaveLength(3);
    expect(
      all()
        .filter((mail) => mail.subject?.startsWith('Reminder: '))
        .map((mail) => to(mail)),
    ).toEqual([['cfo@example.com']]);
  });

  it('cuts the ladder at expiresAt: a pause expiring before the second level mails only the first', async () => {
    await pause('order-8', 2);
    const forRun = () => smtp.mails.filter((mail) => mail.subject?.endsWith('order-8'));
    await until(() => forRun().length >= 2 && true, 'the first mail and the first level');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    // The last level's reminder, halfway to expiresAt (at 1.5 s), and nothing after.
    expect(forRun().map((mail) => [to(mail)[0], mail.subject?.startsWith('Reminder: ')])).toEqual([
      ['alice@example.com', false],
      ['cfo@example.com', false],
      ['cfo@example.com', true],
    ]);
  });
});
