import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CheckpointStore } from '../../functions/checkpoints/checkpoint-store.ts';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { lambdaContext } from '../handlers/events.ts';
import { useTestTable } from '../support/dynamodb.ts';

/**
 * The email function on AWS with the deployment's directory file (§20, §21), as the stack bundles it into every
 * channel function (`HANDBACK_DIRECTORY`): a delegate is mailed a link of their own wherever their delegator is, and
 * an ask whose approvers the delegator is not among tells no delegate. The entry module imported with a Lambda's
 * environment, on the real store (the embedded DynamoDB-compatible server); Secrets Manager and SES by
 * aws-sdk-client-mock.
 */

const table = useTestTable();
const secrets = mockClient(SecretsManagerClient);
const ses = mockClient(SESv2Client);
const LINK_SECRET = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:handback-link-key-AbCdEf';
const LINK_KEY = 'a-link-key-of-sixty-four-characters-in-all-as-the-stack-makes-it';
let store: CheckpointStore;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handback-aws-directory-'));
  const file = join(dir, 'people.json');
  const until = new Date(Date.now() + 7 * 86_400_000).toISOString();
  await writeFile(
    file,
    JSON.stringify({
      people: [
        { id: 'ann', name: 'Ann', emails: ['ann@example.org'], subjects: ['u-ann'], tenant: 'acme' },
        {
          id: 'cyd',
          name: 'Cyd',
          emails: ['cyd@example.org'],
          subjects: ['u-cyd'],
          tenant: 'acme',
          delegation: { to: 'bob', until, reason: 'on leave' },
        },
        { id: 'bob', name: 'Bob', emails: ['bob@example.org'], subjects: ['u-bob'], tenant: 'acme' },
      ],
    }),
  );
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
    LINK_SECRET_ARN: LINK_SECRET,
    HANDBACK_INBOX_URL: 'https://inbox.test/inbox',
    HANDBACK_EMAIL_FROM: 'approvals@example.org',
    HANDBACK_DIRECTORY: file,
  };
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  secrets.reset();
  ses.reset();
  secrets.on(GetSecretValueCommand, { SecretId: LINK_SECRET }).resolves({ SecretString: LINK_KEY });
  ses.on(SendEmailCommand).resolves({ MessageId: 'ses-message-1' });
});

/** Ann pauses a refund whose one ask `approvers` may decide, mailed to `to`. */
async function paused(runId: string, approvers: object, to: string) {
  const created = await store.pause({
    tenant: 'acme',
    runId,
    format: 'openai-chat',
    messages: [
      { role: 'user', content: 'Please refund order-42.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_refund', type: 'function', function: { name: 'refund_order', arguments: '{}' } }],
      },
    ],
    asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers }],
    notify: [{ channel: 'email', to }],
  });
  return { tenant: 'acme', runId, interruptId: created.interruptId };
}

function created(pause: { tenant: string; runId: string; interruptId: string }) {
  return {
    version: '0',
    id: `event-${pause.runId}`,
    source: 'handback',
    'detail-type': 'Pause Created',
    account: '111122223333',
    time: new Date().toISOString(),
    region: 'eu-west-1',
    resources: [],
    detail: { ...pause, status: 'paused', asks: [], decided: [], pending: [], expiresAt: '' },
  };
}

/** Each SES email's recipient and the answer link in its text. */
const mailed = () =>
  ses.commandCalls(SendEmailCommand).map((call) => ({
    to: call.args[0].input.Destination?.ToAddresses,
    link: /https:\/\/inbox\.test\/inbox#([\w.-]+)/.exec(
      call.args[0].input.Content?.Simple?.Body?.Text?.Data ?? '',
    )?.[1],
  }));

describe('the email function on AWS with a directory file', () => {
  it('mails the delegate of an approver a link of their own, beside the delegator’s', async () => {
    const { handler } = await import('../../functions/handlers/email-events.ts');
    await handler(
      created(await paused('aws-delegate', { emails: ['cyd@example.org'] }, 'cyd@example.org')),
      lambdaContext(),
    );
    const sent = mailed();
    expect(sent.map((mail) => mail.to).sort()).toEqual([['bob@example.org'], ['cyd@example.org']]);
    expect(sent.every((mail) => mail.link !== undefined)).toBe(true);
    expect(new Set(sent.map((mail) => mail.link)).size).toBe(2);
  });

  it('tells no delegate of an ask whose approvers the delegator is not among (the control)', async () => {
    const { handler } = await import('../../functions/handlers/email-events.ts');
    await handler(
      created(await paused('aws-no-delegate', { emails: ['ann@example.org'] }, 'cyd@example.org')),
      lambdaContext(),
    );
    expect(mailed().map((mail) => mail.to)).toEqual([['cyd@example.org']]);
  });
});
