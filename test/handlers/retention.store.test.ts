import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { retentionSecondsOf } from '../../functions/handlers/config.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { httpEvent, lambdaContext, pauseBody } from './events.ts';

/** How long a pause and its audit trail outlive its expiry on AWS: `HANDBACK_RETENTION_DAYS` (handback:retentionDays). */

const table = useTestTable();
const DAY = 24 * 60 * 60;

beforeAll(() => {
  for (const [name, value] of Object.entries({
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    HANDOFF_TARGET: 'none',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
    HANDBACK_RETENTION_DAYS: '400',
  })) {
    vi.stubEnv(name, value);
  }
  vi.resetModules();
});
afterAll(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('the retention of a pause on AWS', () => {
  it('sets each item’s TTL that many days after the pause expires, when the API function records it', async () => {
    const { handler } = await import('../../functions/handlers/api.ts');
    const runId = `retention-${Date.now()}`;
    const created = await handler(
      httpEvent('POST', `/runs/${runId}/pauses`, { body: pauseBody({ expiresInSeconds: 3600 }) }),
      lambdaContext(),
    );
    expect(created.statusCode).toBe(201);
    const { expiresAt } = JSON.parse(String(created.body)) as { expiresAt: string };
    const items = await table.client.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `T#acme#R#${runId}` },
      }),
    );
    expect(items.Items?.length).toBeGreaterThan(0);
    for (const item of items.Items ?? []) expect(item.ttl).toBe(Math.ceil(Date.parse(expiresAt) / 1000) + 400 * DAY);
  });

  it.each(['0', 'a year', '-3', '1.5'])('refuses HANDBACK_RETENTION_DAYS=%s, naming it', (days) => {
    expect(() => retentionSecondsOf({ HANDBACK_RETENTION_DAYS: days })).toThrow(/HANDBACK_RETENTION_DAYS/);
  });

  it('leaves the store’s default when unset', () => {
    expect(retentionSecondsOf({})).toBeUndefined();
  });
});
