import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../functions/handlers/config.ts';
import { httpEvent, lambdaContext, pauseBody } from './events.ts';
import { useStoreTable } from './store.ts';

const table = useStoreTable();

beforeAll(() => {
  vi.stubEnv('TABLE_NAME', table.tableName);
  vi.stubEnv('DYNAMODB_ENDPOINT', table.endpoint);
  vi.stubEnv('AWS_REGION', 'eu-west-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
  vi.stubEnv('HANDOFF_TARGET', 'none');
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'SILENT');
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
});
afterAll(() => {
  vi.unstubAllEnvs();
});

describe('the Lambda entry points, wired from the environment', () => {
  it('a warm API handler sees a resume another writer made after its first invocation', async () => {
    const { handler } = await import('../../functions/handlers/api.ts');
    const runId = `warm-${Date.now()}`;
    const created = await handler(httpEvent('POST', `/runs/${runId}/pauses`, { body: pauseBody() }), lambdaContext());
    expect(created.statusCode).toBe(201);
    const { interruptId } = JSON.parse(String(created.body));

    const other = await table.store().resume({ tenant: 'acme', runId, interruptId, answer: 'from another worker' });

    const again = await import('../../functions/handlers/api.ts');
    expect(again.handler).toBe(handler);
    const shown = await handler(httpEvent('GET', `/runs/${runId}/pauses/${interruptId}`), lambdaContext());
    expect(JSON.parse(String(shown.body))).toMatchObject({ status: 'resumed', continuationId: other.continuationId });
    const replay = await handler(
      httpEvent('POST', `/runs/${runId}/resume`, { body: { interruptId, answer: 'from another worker' } }),
      lambdaContext(),
    );
    expect(JSON.parse(String(replay.body))).toMatchObject({ continuationId: other.continuationId });
  });

  it('the Step Functions entry resumes a pause another writer recorded', async () => {
    const { handler } = await import('../../functions/handlers/step-functions.ts');
    const runId = `sfn-${Date.now()}`;
    const { interruptId } = await table.store().pause({ tenant: 'acme', ...pauseBody(), runId } as never);
    const output = await handler({ runId, interruptId, answer: 'yes', tenant: 'acme' }, lambdaContext());
    expect(output).toMatchObject({ runId, interruptId, continuationId: expect.any(String) });
  });

  it('the SQS and EventBridge entries load from the same wiring', async () => {
    const sqs = await import('../../functions/handlers/sqs.ts');
    const eventBridge = await import('../../functions/handlers/eventbridge.ts');
    expect(await sqs.handler({ Records: [] }, lambdaContext())).toEqual({ batchItemFailures: [] });
    await expect(
      eventBridge.handler(
        {
          version: '0',
          id: '1',
          'detail-type': 'Resume Requested',
          source: 's',
          account: '1',
          time: '',
          region: 'eu-west-1',
          resources: [],
          detail: {},
        },
        lambdaContext(),
      ),
    ).resolves.toBeUndefined();
  });
});

describe('loadConfig', () => {
  it.each([
    [{}, 'TABLE_NAME'],
    [{ TABLE_NAME: 't', HANDOFF_TARGET: 'sqs' }, 'HANDOFF_QUEUE_URL'],
    [{ TABLE_NAME: 't', HANDOFF_TARGET: 'eventbridge' }, 'HANDOFF_EVENT_BUS_NAME'],
    [{ TABLE_NAME: 't', HANDOFF_TARGET: 'lambda' }, 'HANDOFF_FUNCTION_NAME'],
    [{ TABLE_NAME: 't', HANDOFF_TARGET: 'kinesis' }, 'HANDOFF_TARGET'],
  ])('fails fast naming the variable for %j', (env, name) => {
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('defaults the tenant claim to tenant and the hand-off to none', () => {
    expect(loadConfig({ TABLE_NAME: 't' })).toEqual({
      tableName: 't',
      tenantClaim: 'tenant',
      groupsClaim: 'cognito:groups',
      dynamodbEndpoint: undefined,
      handoff: { target: 'none' },
      inboxUrl: undefined,
      linkSecretArn: undefined,
      recipientDomains: [],
      verifiedEmailIssuer: undefined,
      policyFiles: {},
      transcriptBucket: 'handback-transcripts',
    });
  });
});
