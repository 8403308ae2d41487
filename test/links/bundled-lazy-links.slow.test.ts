import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLambdaBundle, type LambdaBundle, outputsAtInit } from '../../infra/lambda-bundle.ts';
import { ENTRY } from '../../infra/paths.ts';
import { type AwsJsonStandIn, secretValue, startAwsJsonStandIn } from '../support/aws-json-stand-in.ts';
import { API_EVENT_SOURCE, chunkWatchingDriver, LOAD_HOOKS, runBundledDriver } from '../support/bundled-child.ts';
import { useTestTable } from '../support/dynamodb.ts';

/**
 * The API function as the stack bundles it, with a link key in Secrets Manager: the code that signs and verifies
 * links (jose, `functions/links/answer-links.ts`) and reads their key (the Secrets Manager client) is in chunks the
 * entry does not import, and a child Node running the bundle, with a module hook that reports every file it loads,
 * shows them loaded by the first request that needs a link — not at init, not by the routes that need none — and the
 * links made once for every request after (one key read). The sources' tests cannot see this: it is the bundle's.
 */

const table = useTestTable();
const dir = mkdtempSync(join(tmpdir(), 'handback-bundled-lazy-links-'));
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:handback-link-key';
const KEY = 'a-link-key-of-sixty-four-characters-in-all-as-the-stack-makes-it';
/** What only signing, verifying and reading the key need. */
const LINK_CODE =
  /node_modules\/jose\/|node_modules\/@aws-sdk\/client-secrets-manager\/|functions\/links\/answer-links\.ts$/;
let bundle: LambdaBundle;
let secrets: AwsJsonStandIn;

beforeAll(async () => {
  bundle = buildLambdaBundle(ENTRY.api, join(dir, 'api'), 'none');
  writeFileSync(join(dir, 'hooks.mjs'), LOAD_HOOKS);
  writeFileSync(join(dir, 'drive.mjs'), DRIVER);
  secrets = await startAwsJsonStandIn((target) =>
    target === 'secretsmanager.GetSecretValue' ? secretValue(SECRET_ARN, KEY) : undefined,
  );
});

afterAll(() => {
  secrets.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `chunks/<file>` of an output's path or a loaded file's URL. */
const chunkName = (path: string) => path.slice(path.lastIndexOf('chunks/'));

/**
 * The child: registers the hook, imports the bundle, then sends payload v2 events in steps — routes that need no link,
 * two pauses at once (the first requests that sign one), the link routes — and prints the chunks each step loaded.
 */
const DRIVER = `
${chunkWatchingDriver('api')}
${API_EVENT_SOURCE}const call = async (e) => {
  const r = await handler(e, context());
  return { status: r.statusCode, body: JSON.parse(r.body) };
};
const messages = [
  { role: 'user', content: 'Refund order A-1042?' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_ask', type: 'function', function: { name: 'ask_human', arguments: '{}' } }] },
];
const pause = (runId) => event('POST', '/runs/' + runId + '/pauses', { format: 'openai-chat', messages, toolCallId: 'call_ask' });
const results = {};
results.health = await call(event('GET', '/health'));
results.list = await call(event('GET', '/pauses'));
loaded.noLink = loadedSince();
[results.first, results.second] = await Promise.all([call(pause('run-lazy-1')), call(pause('run-lazy-2'))]);
loaded.firstLinks = loadedSince();
const token = results.first.body.answerUrl?.split('#')[1];
results.linkPause = await call(event('GET', '/links/pause', undefined, { 'x-handback-link': token }));
results.linkResume = await call(event('POST', '/links/resume', { answer: 'yes' }, { 'x-handback-link': token }));
results.get = await call(event('GET', '/runs/run-lazy-2/pauses/' + results.second.body.interruptId));
loaded.after = loadedSince();
console.log('RESULT ' + JSON.stringify({ results, loaded }));
`;

describe('the bundled API function with answer links loaded on first use', () => {
  it('leaves jose and the Secrets Manager client out of what init reads', () => {
    const outputs = bundle.metafile.outputs;
    const init = outputsAtInit(bundle.metafile);
    const inputsAtInit = [...init].flatMap((name) => Object.keys(outputs[name]?.inputs ?? {}));
    expect(inputsAtInit.filter((input) => LINK_CODE.test(input))).toEqual([]);
    // They are in the asset, in chunks of their own.
    const linkChunks = Object.keys(outputs).filter((name) =>
      Object.keys(outputs[name]?.inputs ?? {}).some((input) => LINK_CODE.test(input)),
    );
    expect(linkChunks.length).toBeGreaterThan(0);
    expect(linkChunks.every((name) => name.includes('/chunks/'))).toBe(true);
  });

  it('loads them with the first requests that sign a link, once, and serves the link routes with them', async () => {
    const { result } = await runBundledDriver(
      join(dir, 'drive.mjs'),
      [pathToFileURL(bundle.entry).href, pathToFileURL(join(dir, 'hooks.mjs')).href],
      {
        TABLE_NAME: table.tableName,
        DYNAMODB_ENDPOINT: table.endpoint,
        HANDOFF_TARGET: 'none',
        LINK_SECRET_ARN: SECRET_ARN,
        AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
        HANDBACK_INBOX_URL: 'https://inbox.example/inbox',
      },
    );
    const { results, loaded } = result;
    const outputs = bundle.metafile.outputs;
    const linkChunks = Object.keys(outputs)
      .filter((name) => Object.keys(outputs[name]?.inputs ?? {}).some((input) => LINK_CODE.test(input)))
      .map(chunkName)
      .sort();

    // Neither init nor the routes that need no link read them.
    expect(results.health.status).toBe(200);
    expect(results.list).toMatchObject({ status: 200, body: { items: [] } });
    expect(linkChunks.filter((chunk) => [...loaded.init, ...loaded.noLink].includes(chunk))).toEqual([]);
    // The first two pauses, at once, load them and sign their links.
    expect(results.first.body.answerUrl).toMatch(/^https:\/\/inbox\.example\/inbox#/);
    expect(results.second.body.answerUrl).toMatch(/^https:\/\/inbox\.example\/inbox#/);
    expect(linkChunks.filter((chunk) => !loaded.firstLinks.includes(chunk))).toEqual([]);
    // The link routes verify with them.
    expect(results.linkPause).toMatchObject({ status: 200, body: { interruptId: results.first.body.interruptId } });
    expect(results.linkResume).toMatchObject({ status: 200, body: { outcome: 'resumed' } });
    expect(results.get).toMatchObject({ status: 200, body: { status: 'paused' } });
    // Made once for the container: one key cache, so one key read for both first pauses and every link after.
    expect(secrets.calls.map((call) => call.target)).toEqual(['secretsmanager.GetSecretValue']);
  });
});
