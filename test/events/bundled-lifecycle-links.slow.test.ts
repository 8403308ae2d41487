import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PauseChange } from '../../functions/checkpoints/checkpoint-service.ts';
import { pauseItem } from '../../functions/checkpoints/dynamodb/items.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { approvalTranscript } from '../../functions/testing/service-spec.ts';
import { buildLambdaBundle, type LambdaBundle, outputsAtInit } from '../../infra/lambda-bundle.ts';
import { ENTRY } from '../../infra/paths.ts';
import {
  type AwsJsonStandIn,
  everyEventTaken,
  secretValue,
  startAwsJsonStandIn,
} from '../support/aws-json-stand-in.ts';
import { chunkWatchingDriver, LOAD_HOOKS, runBundledDriver } from '../support/bundled-child.ts';

/**
 * §23: the lifecycle stream's function as the stack bundles it, with a link key in Secrets Manager: signing links
 * (jose, `functions/links/answer-links.ts`) and reading their key (the Secrets Manager client) are in chunks its init
 * does not load; a `Pause Decided` event loads neither, the first `Pause Created` loads them and its event carries the
 * answer link — on stand-ins of Secrets Manager and EventBridge in this process.
 */

const dir = mkdtempSync(join(tmpdir(), 'handback-bundled-lifecycle-'));
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:handback-link-key';
const KEY = 'a-link-key-of-sixty-four-characters-in-all-as-the-stack-makes-it';
const LINK_CODE =
  /node_modules\/jose\/|node_modules\/@aws-sdk\/client-secrets-manager\/|functions\/links\/answer-links\.ts$/;
let bundle: LambdaBundle;
let aws: AwsJsonStandIn;

beforeAll(async () => {
  bundle = buildLambdaBundle(ENTRY.lifecycleEvents, join(dir, 'lifecycle'));
  writeFileSync(join(dir, 'hooks.mjs'), LOAD_HOOKS);
  aws = await startAwsJsonStandIn((target, body) =>
    target === 'AWSEvents.PutEvents'
      ? everyEventTaken(body)
      : target === 'secretsmanager.GetSecretValue'
        ? secretValue(SECRET_ARN, KEY)
        : undefined,
  );
});

afterAll(() => {
  aws.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A pause's `Pause Created` and `Pause Decided` changes, as stream records (new and old images). */
async function records(): Promise<{ created: unknown; decided: unknown }> {
  const changes: PauseChange[] = [];
  const store = createMemoryCheckpointStore({ onChange: (change) => changes.push(change) });
  const { interruptId } = await store.pause({
    tenant: 'acme',
    runId: 'run-bundled-lifecycle',
    format: 'openai-chat',
    messages: approvalTranscript(),
    toolCallId: 'call_ask',
  });
  await store.resume({ tenant: 'acme', runId: 'run-bundled-lifecycle', interruptId, answer: 'yes' });
  const record = (change: PauseChange, sequence: string) => ({
    eventID: sequence,
    eventName: change.before === undefined ? 'INSERT' : 'MODIFY',
    eventSource: 'aws:dynamodb',
    dynamodb: {
      SequenceNumber: sequence,
      NewImage: marshall(pauseItem(change.after, 1), { removeUndefinedValues: true }),
      ...(change.before === undefined
        ? {}
        : { OldImage: marshall(pauseItem(change.before, 1), { removeUndefinedValues: true }) }),
    },
  });
  return { created: record(changes[0] as PauseChange, '1'), decided: record(changes.at(-1) as PauseChange, '2') };
}

describe('the bundled lifecycle function with a link key', () => {
  it('leaves signing links and reading their key out of what its init loads', () => {
    const atInit = outputsAtInit(bundle.metafile);
    const inputsOf = (outputs: string[]) =>
      outputs.flatMap((output) => Object.keys(bundle.metafile.outputs[output]?.inputs ?? {}));
    const all = Object.keys(bundle.metafile.outputs);
    expect(inputsOf([...atInit]).filter((path) => LINK_CODE.test(path))).toEqual([]);
    expect(inputsOf(all.filter((output) => !atInit.has(output))).some((path) => LINK_CODE.test(path))).toBe(true);
  });

  it('loads no schema (zod) at init, and its store and document client only to move a closed transcript (§23)', () => {
    const atInit = outputsAtInit(bundle.metafile);
    const inputsOf = (outputs: string[]) =>
      outputs.flatMap((output) => Object.keys(bundle.metafile.outputs[output]?.inputs ?? {}));
    const all = Object.keys(bundle.metafile.outputs);
    const later = inputsOf(all.filter((output) => !atInit.has(output)));
    const STORE = /functions\/checkpoints\/dynamodb\/dynamodb-persistence\.ts$|node_modules\/@aws-sdk\/lib-dynamodb\//;
    expect(inputsOf([...atInit]).filter((path) => /node_modules\/zod\/|functions\/zod\.ts$/.test(path))).toEqual([]);
    expect(inputsOf([...atInit]).filter((path) => STORE.test(path))).toEqual([]);
    expect(later.some((path) => path.endsWith('functions/handlers/transcript-archive.ts'))).toBe(true);
    expect(later.some((path) => STORE.test(path))).toBe(true);
  });

  it('loads them with the first event that carries a link, and puts that event with its answer link', async () => {
    const { created, decided } = await records();
    const driver = join(dir, 'drive.mjs');
    writeFileSync(
      driver,
      `${chunkWatchingDriver('lifecycle')}
const results = {};
results.decided = await handler({ Records: [${JSON.stringify(decided)}] }, context());
loaded.decided = loadedSince();
results.created = await handler({ Records: [${JSON.stringify(created)}] }, context());
loaded.created = loadedSince();
console.log('RESULT ' + JSON.stringify({ results, loaded }));
`,
    );
    const { result } = await runBundledDriver(
      driver,
      [pathToFileURL(bundle.entry).href, pathToFileURL(join(dir, 'hooks.mjs')).href],
      {
        EVENT_BUS_NAME: 'handback-lifecycle',
        LINK_SECRET_ARN: SECRET_ARN,
        HANDBACK_INBOX_URL: 'https://abc123.execute-api.eu-west-1.amazonaws.com/inbox',
        AWS_ENDPOINT_URL_EVENTBRIDGE: aws.endpoint,
        AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.endpoint,
      },
    );
    expect(result.results).toEqual({ decided: { batchItemFailures: [] }, created: { batchItemFailures: [] } });
    const linkChunks = (files: string[]) => files.filter((file) => /answer-links|jose|secrets/i.test(file));
    expect(linkChunks(result.loaded.init)).toEqual([]);
    expect(linkChunks(result.loaded.decided)).toEqual([]);
    expect(result.loaded.created.length).toBeGreaterThan(0);
    // The decided event went out with no key read; the created one after one read, with its link.
    expect(aws.calls.map((call) => call.target)).toEqual([
      'AWSEvents.PutEvents',
      'secretsmanager.GetSecretValue',
      'AWSEvents.PutEvents',
    ]);
    const detail = JSON.parse(JSON.parse(aws.calls[2]?.body ?? '{}').Entries[0].Detail);
    expect(detail.answerUrl).toMatch(/^https:\/\/abc123\.execute-api\.eu-west-1\.amazonaws\.com\/inbox#/);
  });
});
