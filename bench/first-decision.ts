import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Keys } from '../functions/checkpoints/dynamodb/keys.ts';
import { buildLambdaBundle } from '../infra/lambda-bundle.ts';
import { ENTRY } from '../infra/paths.ts';
import { BENCH, DEPLOYED_NODE_FLAGS, FLOOR_ENTRIES, OUT_DIR } from './bundle.ts';
import { startDecisionStage } from './decision-run.ts';
import { quantile } from './measure.ts';

/**
 * A decision after a cold start: what a person waits for when the function that takes their decision has no warm
 * instance. The SQS trigger and the API (and, with a `before` commit, that commit's, bundled by that commit's own
 * `buildLambdaBundle`), bundled as the stack bundles them, each imported in a fresh `node` and given one approve of a
 * pause of its own on the embedded store (the SQS trigger a one-message batch, the API `POST /runs/{runId}/resume`),
 * the hand-off to an SQS stand-in: the import, the first decision, and both, in alternating order round by round.
 * What init no longer does but the decision needs (a schema built by its first use, a function compiled by its first
 * call) is paid by the first decision: the sum is what a cold start costs.
 *
 * Two rows hold the sum to what it can be held to. The floor (`FLOOR_ENTRIES.sqs`, as the coldstart group bundles it)
 * reads the pause's item and sends it to the queue: less than a decision does (no conditional write), so its sum is
 * the least a cold decision on DynamoDB and SQS costs. The SQS trigger loaded by its first call
 * (`entries/sqs-on-first-call.ts`) has almost nothing at init, so its gzip and import are far under every target:
 * the row shows what that does to a person who waits, the first decision loading all the code it runs.
 */

/** The rows beside the two functions (and their `before`). */
export const FIRST_DECISION_FLOOR = 'floor (dynamodb + sqs): read the item, send it';
export const FIRST_DECISION_ON_FIRST_CALL = 'sqs, its handler loaded by its first call';

/** One function's medians, in milliseconds. */
export interface FirstDecisionRow {
  name: string;
  importMs: number;
  decisionMs: number;
  totalMs: number;
  samples: number;
}

const MESSAGES = [
  { role: 'user', content: 'Refund order 42?' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'refund', input: { order: 'order-42' } }] },
];

/** A fresh `node`: imports the bundle `argv[2]`, decides `argv[3]` (the trigger's body), prints the times. */
const CHILD = `
const started = performance.now();
const { handler } = await import(process.argv[2]);
const imported = performance.now();
const given = JSON.parse(process.argv[3]);
const context = { functionName: 'handback', awsRequestId: 'r-1', getRemainingTimeInMillis: () => 60_000 };
let decided;
if (process.env.FIRST_DECISION_VIA === 'floor') {
  await handler(given, context);
  decided = true;
} else if (process.env.FIRST_DECISION_VIA === 'api') {
  const rawPath = '/runs/' + given.runId + '/resume';
  const answer = await handler({
    version: '2.0', routeKey: '$default', rawPath, rawQueryString: '', isBase64Encoded: false,
    headers: { host: 'api.example.com', 'content-type': 'application/json' },
    requestContext: { accountId: '111122223333', apiId: 'api', domainName: 'api.example.com', domainPrefix: 'api',
      requestId: 'r', routeKey: '$default', stage: '$default', time: '', timeEpoch: Date.now(),
      http: { method: 'POST', path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'bench' },
      authorizer: { principalId: '', integrationLatency: 0, jwt: { claims: { tenant: 'acme', sub: 'person-2' }, scopes: [] } } },
    body: JSON.stringify({ interruptId: given.interruptId, decisions: given.decisions }),
  }, context);
  decided = answer.statusCode === 200;
} else {
  const answer = await handler({ Records: [{
    messageId: 'm-1', receiptHandle: 'h-1', body: process.argv[3], attributes: { ApproximateReceiveCount: '1' },
    messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:111122223333:resume', awsRegion: 'us-east-1',
  }] }, context);
  decided = answer.batchItemFailures.length === 0;
}
const done = performance.now();
process.stdout.write('RESULT ' + JSON.stringify({ importMs: imported - started, decisionMs: done - imported, decided }));
`;

/**
 * The rows, `rounds` decisions each; a `before` tree (bench/bundle.ts's `beforeSpecs`, already installed) adds that
 * commit's two functions. A function whose decision does not resume its pause fails the measure.
 */
export async function measureFirstDecisions(options: {
  rounds: number;
  beforeRoot?: string;
  log: (line: string) => void;
}): Promise<FirstDecisionRow[]> {
  const dir = join(OUT_DIR, 'first-decision');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const child = join(dir, 'child.mjs');
  writeFileSync(child, CHILD);
  const functions: Array<{ name: string; via: 'sqs' | 'api' | 'floor'; file: string }> = [];
  // The earlier commit's functions as that commit bundled them, with its own `buildLambdaBundle`: what a person
  // waited for then, the bundler's passes included.
  const before =
    options.beforeRoot === undefined
      ? undefined
      : {
          root: options.beforeRoot,
          build: (
            (await import(pathToFileURL(join(options.beforeRoot, 'infra/lambda-bundle.ts')).href)) as {
              buildLambdaBundle: typeof buildLambdaBundle;
            }
          ).buildLambdaBundle,
        };
  for (const via of ['sqs', 'api'] as const) {
    functions.push({ name: via, via, file: buildLambdaBundle(ENTRY[via], join(dir, via), 'sqs').entry });
    if (before !== undefined) {
      const entry = join(before.root, 'functions/handlers', `${via}.ts`);
      const file = before.build(entry, join(dir, `${via}-before`), 'sqs', false, true).entry;
      functions.push({ name: `${via} (before)`, via, file });
    }
  }
  const onFirstCall = join(BENCH, 'entries/sqs-on-first-call.ts');
  functions.push(
    {
      name: FIRST_DECISION_ON_FIRST_CALL,
      via: 'sqs',
      file: buildLambdaBundle(onFirstCall, join(dir, 'sqs-on-first-call'), 'sqs').entry,
    },
    {
      name: FIRST_DECISION_FLOOR,
      via: 'floor',
      file: buildLambdaBundle(FLOOR_ENTRIES.sqs, join(dir, 'floor'), 'sqs').entry,
    },
  );
  const { store, client, tableName, env, close } = await startDecisionStage('handback-first-decision');
  const samples = new Map(functions.map((f) => [f.name, { imports: [] as number[], decisions: [] as number[] }]));
  try {
    for (let round = 0; round < options.rounds; round++) {
      for (let k = 0; k < functions.length; k++) {
        const f = functions[(round + k) % functions.length] as (typeof functions)[number];
        const runId = `first-decision-${round}-${k}-${Date.now()}`;
        const { interruptId } = await store.pause({
          tenant: 'acme',
          runId,
          format: 'anthropic',
          messages: MESSAGES,
          asks: [{ toolCallId: 'toolu_1', kind: 'approval' }],
        });
        // The floor reads the pause's item (the run's first pause) and sends it on.
        const key = { pk: Keys.run('acme', runId), sk: Keys.pause(1) };
        const body = JSON.stringify(
          f.via === 'floor'
            ? key
            : {
                runId,
                interruptId,
                tenant: 'acme',
                by: { subject: 'person-2', name: 'Ada' },
                decisions: [{ toolCallId: 'toolu_1', decision: 'approve' }],
              },
        );
        if (
          f.via === 'floor' &&
          (await client.send(new GetCommand({ TableName: tableName, Key: key }))).Item === undefined
        ) {
          throw new Error(`the floor would read no item at ${key.pk} ${key.sk}`);
        }
        // Asynchronous: the embedded store answers from this process.
        const { stdout } = await promisify(execFile)(
          process.execPath,
          [...DEPLOYED_NODE_FLAGS, child, pathToFileURL(f.file).href, body],
          {
            env: { ...env, AWS_ENDPOINT_URL_DYNAMODB: env.DYNAMODB_ENDPOINT, FIRST_DECISION_VIA: f.via },
            encoding: 'utf8',
          },
        );
        const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
        const result = JSON.parse(line?.slice('RESULT '.length) ?? '{}') as {
          importMs: number;
          decisionMs: number;
          decided: boolean;
        };
        const view = await store.getPause({ tenant: 'acme', runId, interruptId });
        const resumed = f.via === 'floor' ? view.status === 'paused' : view.status === 'resumed';
        if (!result.decided || !resumed) throw new Error(`${f.name} did not do its part with pause ${runId}`);
        const s = samples.get(f.name);
        s?.imports.push(result.importMs);
        s?.decisions.push(result.decisionMs);
      }
    }
  } finally {
    await close();
  }
  const rows = functions.map(({ name }) => {
    const { imports, decisions } = samples.get(name) ?? { imports: [], decisions: [] };
    return {
      name,
      importMs: quantile(imports, 0.5),
      decisionMs: quantile(decisions, 0.5),
      totalMs: quantile(
        imports.map((ms, i) => ms + (decisions[i] ?? Number.NaN)),
        0.5,
      ),
      samples: imports.length,
    };
  });
  for (const r of rows) {
    options.log(
      `coldstart first decision ${r.name}: import ${r.importMs.toFixed(1)} ms + decision ${r.decisionMs.toFixed(1)} ms = ${r.totalMs.toFixed(1)} ms (${r.samples})`,
    );
  }
  return rows;
}
