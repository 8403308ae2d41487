import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSesTransport } from '../../functions/channels/email-ses.ts';
import { createAnswerLinks } from '../../functions/links/answer-links.ts';
import { createTable, EMBEDDED_CLIENT_CONFIG } from '../../functions/local/embedded-dynamodb.ts';
import { type LocalService, startLocalService } from '../../functions/local/service.ts';
import { LINK_HEADER } from '../../functions/vocabulary.ts';
import { type SmtpCatcher, startSmtpCatcher, recipientsOf as to, until } from './smtp-catcher.ts';

const LINK_SECRET = 'an-answer-link-secret-of-at-least-32-bytes';
let smtp: SmtpCatcher;
let mails: SmtpCatcher['mails'];
let service: LocalService;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  mails = smtp.mails;
  const tableName = `handback-email-${Date.now()}`;
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
  });
});

afterAll(async () => {
  await service?.close();
  await smtp?.close();
});

async function pause(runId: string, extra: object = {}) {
  const response = await fetch(`${service.url}/runs/${runId}/pauses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      format: 'openai-chat',
      messages: [
        { role: 'user', content: 'Please refund order-42, it arrived broken.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_refund',
              type: 'function',
              function: { name: 'refund_order', arguments: '{"orderId":"order-42","amount":30}' },
            },
          ],
        },
      ],
      asks: [{ toolCallId: 'call_refund', kind: 'approval', prompt: 'Refund this order?' }],
      notify: [
        { channel: 'email', to: 'alice@example.com' },
        { channel: 'email', to: 'bob@example.com' },
      ],
      ...extra,
    }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { interruptId: string };
}

describe('the email channel through the local service', () => {
  it('mails each recipient once, with a plain-text and an HTML part, the subject, the ask and an answer link to the pause', async () => {
    const { interruptId } = await pause('order-42');
    const got = await until(() => {
      const found = mails.filter((mail) => mail.subject === 'Approval needed: refund_order — order-42');
      return found.length >= 2 && found;
    }, 'two emails');
    expect(got.map(to).sort()).toEqual([['alice@example.com'], ['bob@example.com']]);
    const links = createAnswerLinks(new TextEncoder().encode(LINK_SECRET));
    for (const mail of got) {
      expect(mail.from?.value[0]?.address).toBe('handback@example.com');
      expect(mail.text).toContain('Refund this order?');
      expect(mail.text).toContain('Tool: refund_order');
      expect(mail.text).toContain('"orderId": "order-42"');
      expect(mail.text).toContain('Please refund order-42, it arrived broken.');
      expect(mail.html).toContain('>Review and decide</a>');
      expect(mail.html).not.toContain('<img');
      const link = /Review and decide: (\S+)/.exec(mail.text ?? '')?.[1] as string;
      expect(link.startsWith(`${service.url}/inbox#`)).toBe(true);
      expect(mail.html).toContain(`href="${link}"`);
      await expect(links.verify(link.split('#')[1])).resolves.toMatchObject({ runId: 'order-42', interruptId });
    }
  });

  it('mails a reminder to those who have not decided, once', async () => {
    await pause('remind-42', { expiresInSeconds: 5, remindBeforeSeconds: 4 });
    const reminders = await until(() => {
      const found = mails.filter((mail) => mail.subject === 'Reminder: Approval needed: refund_order — remind-42');
      return found.length >= 2 && found;
    }, 'two reminders');
    expect(reminders.map(to).sort()).toEqual([['alice@example.com'], ['bob@example.com']]);
    expect(reminders[0]?.text).toMatch(/^This still waits for your decision/);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(mails.filter((mail) => String(mail.subject).endsWith('remind-42'))).toHaveLength(4);
  });
  it('mails the reminder only to the recipients who have not decided', async () => {
    const calls = [
      { id: 'call_refund', type: 'function', function: { name: 'refund_order', arguments: '{"orderId":"order-43"}' } },
      { id: 'call_note', type: 'function', function: { name: 'refund_order', arguments: '{"orderId":"order-44"}' } },
    ];
    await pause('remind-43', {
      messages: [
        { role: 'user', content: 'Refund both orders.' },
        { role: 'assistant', content: null, tool_calls: calls },
      ],
      asks: [
        { toolCallId: 'call_refund', kind: 'approval' },
        { toolCallId: 'call_note', kind: 'approval' },
      ],
      // The reminder comes 6 s in: time enough for Alice's email and her decision on a loaded machine.
      expiresInSeconds: 16,
      remindBeforeSeconds: 10,
    });
    const alice = await until(
      () => mails.find((mail) => mail.subject?.endsWith('remind-43') && to(mail)[0] === 'alice@example.com'),
      'the email to Alice',
    );
    // Alice decides one of the two asks with her own link: the pause still waits (202), now on Bob for the other.
    const link = /Review and decide: (\S+)/.exec(alice.text ?? '')?.[1] as string;
    const decided = await fetch(`${service.url}/links/resume`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [LINK_HEADER]: link.split('#')[1] as string },
      body: JSON.stringify({ decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] }),
    });
    expect(decided.status).toBe(202);
    const reminder = await until(
      () => mails.find((mail) => mail.subject === 'Reminder: Approval needed: refund_order — remind-43'),
      'the reminder',
    );
    expect(to(reminder)).toEqual(['bob@example.com']);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(
      mails
        .filter((mail) => String(mail.subject).startsWith('Reminder:') && String(mail.subject).endsWith('remind-43'))
        .map(to),
    ).toEqual([['bob@example.com']]);
  });
});

describe('the SES transport', () => {
  it('sends one SendEmail per message from the verified identity, with both parts', async () => {
    const ses = mockClient(SESv2Client);
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    await createSesTransport(new SESv2Client({ region: 'eu-west-1' })).send({
      from: 'handback@example.com',
      to: 'alice@example.com',
      subject: 'Approval needed: refund_order — order-42',
      text: 'plain',
      html: '<p>html</p>',
    });
    expect(ses.commandCalls(SendEmailCommand).map((call) => call.args[0].input)).toEqual([
      {
        FromEmailAddress: 'handback@example.com',
        Destination: { ToAddresses: ['alice@example.com'] },
        Content: {
          Simple: {
            Subject: { Data: 'Approval needed: refund_order — order-42', Charset: 'UTF-8' },
            Body: { Text: { Data: 'plain', Charset: 'UTF-8' }, Html: { Data: '<p>html</p>', Charset: 'UTF-8' } },
          },
        },
      },
    ]);
    ses.restore();
  });
});
