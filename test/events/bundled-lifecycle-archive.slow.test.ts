import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keys } from '../../functions/checkpoints/dynamodb/keys.ts';
import { buildLambdaBundle, type LambdaBundle } from '../../infra/lambda-bundle.ts';
import { ENTRY } from '../../infra/paths.ts';
import { chatTranscript, pauseInput, runItems, storeOn } from '../checkpoints/support.ts';
import { type AwsJsonStandIn, everyEventTaken, startAwsJsonStandIn } from '../support/aws-json-stand-in.ts';
import { chunkWatchingDriver, LOAD_HOOKS, runBundledDriver } from '../support/bundled-child.ts';
import { storeEndpoint, useTestTable } from '../support/dynamodb.ts';
import { testBucket, testObjects, testS3Client } from '../support/s3.ts';

/**
 * §23 in the lifecycle stream's function as the stack bundles it: a stream record of a pause closed with its
 * transcript in parts moves the transcript to the bucket — on the embedded table and S3 server, with EventBridge a
 * stand-in of this process — loading the store and its document client with that record, not at init.
 */

const table = useTestTable();
const s3 = testS3Client();
const objects = testObjects(s3);
const { endpoint: s3Endpoint, bucket } = testBucket();
const dir = mkdtempSync(join(tmpdir(), 'handback-bundled-archive-'));
let bundle: LambdaBundle;
let eventBridge: AwsJsonStandIn;

beforeAll(async () => {
  bundle = buildLambdaBundle(ENTRY.lifecycleEvents, join(dir, 'lifecycle'));
  writeFileSync(join(dir, 'hooks.mjs'), LOAD_HOOKS);
  eventBridge = await startAwsJsonStandIn((target, body) =>
    target === 'AWSEvents.PutEvents' ? everyEventTaken(body) : undefined,
  );
});

afterAll(() => {
  eventBridge.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the bundled lifecycle function', () => {
  it('moves a closed transcript from its parts to the bucket, its store loaded with that record', async () => {
    const store = storeOn(table, { objects });
    const input = pauseInput({ messages: chatTranscript(20_000) });
    const { interruptId } = await store.pause(input);
    const [opened] = (await runItems(table, 'acme', input.runId)).filter((item) => item.kind === 'pause');
    await store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'yes' });
    const [closed] = (await runItems(table, 'acme', input.runId)).filter((item) => item.kind === 'pause');
    const record = {
      eventID: '1',
      eventName: 'MODIFY',
      eventSource: 'aws:dynamodb',
      dynamodb: {
        SequenceNumber: '1',
        OldImage: marshall(opened, { removeUndefinedValues: true }),
        NewImage: marshall(closed, { removeUndefinedValues: true }),
      },
    };
    const driver = join(dir, 'drive.mjs');
    writeFileSync(
      driver,
      `${chunkWatchingDriver('lifecycle')}
const result = await handler({ Records: [${JSON.stringify(record)}] }, context());
loaded.closed = loadedSince();
console.log('RESULT ' + JSON.stringify({ result, loaded }));
`,
    );
    const { result } = await runBundledDriver(
      driver,
      [pathToFileURL(bundle.entry).href, pathToFileURL(join(dir, 'hooks.mjs')).href],
      {
        EVENT_BUS_NAME: 'handback-lifecycle',
        AWS_ENDPOINT_URL_EVENTBRIDGE: eventBridge.endpoint,
        TABLE_NAME: table.tableName,
        DYNAMODB_ENDPOINT: storeEndpoint(),
        TRANSCRIPT_BUCKET: bucket,
        HANDBACK_S3_ENDPOINT: s3Endpoint,
        // s3rver checks signatures with its own fixed keys; the embedded table takes any.
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
      },
    );
    expect(result.result).toEqual({ batchItemFailures: [] });
    expect(eventBridge.calls.map((call) => call.target)).toEqual(['AWSEvents.PutEvents']);
    const archive = (files: string[]) => files.filter((file) => /transcript-archive/.test(file));
    expect(archive(result.loaded.init)).toEqual([]);
    expect(archive(result.loaded.closed)).toHaveLength(1);

    const items = await runItems(table, 'acme', input.runId);
    expect(items.map((item) => item.kind)).toEqual(['pause']);
    const [seq, , token] = interruptId.split('.') as [string, string, string];
    const objectKey = Keys.object('acme', input.runId, Number(seq), token);
    expect(items[0]).toMatchObject({ v: 3, objectKey, chunkCount: 1, status: 'resumed' });
    const stored = (await (
      await s3.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey }))
    ).Body?.transformToByteArray()) as Uint8Array;
    expect(createHash('sha256').update(stored).digest('base64url')).toBe(items[0]?.sha256);
    expect((await store.getPause({ tenant: 'acme', runId: input.runId, interruptId })).status).toBe('resumed');
  });
});
