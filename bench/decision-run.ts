import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { decode } from '@jridgewell/sourcemap-codec';
import { createDynamoDBCheckpointStore } from '../functions/checkpoints/dynamodb-store.ts';
import { startEmbeddedDynamoDB } from '../functions/local/embedded-dynamodb.ts';
import { buildLambdaBundle, outputsAtInit } from '../infra/lambda-bundle.ts';
import { ENTRY, repoPath } from '../infra/paths.ts';
import { sqsMessageTaken, startAwsJsonStandIn } from '../test/support/aws-json-stand-in.ts';
import { BENCH_AWS_ENV, DEPLOYED_NODE_FLAGS, OUT_DIR } from './bundle.ts';

/**
 * What a decision runs of what a function loads at init: the function bundled as the stack bundles it, imported by a
 * fresh `node` with V8's coverage on (`NODE_V8_COVERAGE`, block coverage), handed its requests — the SQS trigger one
 * batch of four decisions (an approve, a reject, an edit and an answer, each on a pause of its own on the embedded
 * store), the API the four requests of one decision in the inbox — and its coverage taken twice: once after the import
 * (what init ran), once after the requests (what they ran, the counters having been reset). Each byte of the init files is given to the module its source map names: Handback's own (`functions/`), zod,
 * or the SDK (every other package). What a part's decisions run is the least of it any init could hold, were every
 * other byte loaded on use; with what its init ran too (the schemas built, the classes defined), the most.
 *
 * The gzip of what ran is of the bytes that ran, each part's concatenated in file order: an estimate of what a bundle
 * holding just them would weigh, not a bundle.
 */

/** One part of the init files: its bytes, what init or the decisions ran of them, what the decisions alone ran. */
export interface RunPart {
  part: 'handback' | 'zod' | 'sdk';
  bytes: number;
  gzipBytes: number;
  ranBytes: number;
  ranGzipBytes: number;
  decisionsRanBytes: number;
  decisionsRanGzipBytes: number;
}

export interface DecisionRunResult {
  bundle: string;
  /** The requests run: the SQS trigger's decisions (one batch), or the API's requests in order. */
  decided: string[];
  /** Every decision resumed its pause (the SQS trigger), or every request got its status (the API). */
  allResumed: boolean;
  parts: RunPart[];
  /** Handback's modules at init whose bytes no decision or init ran, most first: what could leave init. */
  idle: Array<{ module: string; bytes: number; ranBytes: number }>;
  /** zod schemas built (calls of zod's `$ZodType` initializer, by the coverage's counts): by init, by the requests. */
  schemasBuilt?: { init: number; requests: number };
}

/** A fresh `node` importing the bundle `process.argv[2]`, coverage taken, then `REQUESTS` run: its answers printed. */
const childOf = (requests: string) => `
import v8 from 'node:v8';
const { handler } = await import(process.argv[2]);
v8.takeCoverage();
const context = { awsRequestId: 'r', functionName: 'f', functionVersion: '$LATEST', memoryLimitInMB: '1024',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:111122223333:function:f', logGroupName: 'g', logStreamName: 's',
  callbackWaitsForEmptyEventLoop: true, getRemainingTimeInMillis: () => 30000, done() {}, fail() {}, succeed() {} };
const given = JSON.parse(process.argv[3]);
${requests}
process.stdout.write('RESULT ' + JSON.stringify(answers));
`;

/** The SQS trigger's child: one batch of `given`'s bodies. */
const SQS_CHILD = childOf(`
const Records = given.map((body, i) => ({
  messageId: 'm-' + i, receiptHandle: 'h-' + i, body, attributes: { ApproximateReceiveCount: '1' }, messageAttributes: {},
  md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:us-east-1:111122223333:resume', awsRegion: 'us-east-1',
}));
const answers = [await handler({ Records }, context)];
`);

/** The API's child: `given`'s requests in order, each \`[method, path, body, subject]\`, as API Gateway sends them. */
const API_CHILD = childOf(`
const answers = [];
let interruptId = '';
for (const [method, raw, body, subject] of given) {
  const path = raw.replace('{interruptId}', interruptId);
  const [rawPath, rawQueryString = ''] = path.split('?');
  const text = body === null ? undefined : JSON.stringify(body).replace('{interruptId}', interruptId);
  const answer = await handler({
    version: '2.0', routeKey: '$default', rawPath, rawQueryString, isBase64Encoded: false,
    headers: { host: 'api.example.com', ...(text === undefined ? {} : { 'content-type': 'application/json' }) },
    queryStringParameters: rawQueryString === '' ? undefined : Object.fromEntries(new URLSearchParams(rawQueryString)),
    requestContext: { accountId: '111122223333', apiId: 'api', domainName: 'api.example.com', domainPrefix: 'api',
      requestId: 'r', routeKey: '$default', stage: '$default', time: '', timeEpoch: Date.now(),
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'bench' },
      authorizer: { principalId: '', integrationLatency: 0, jwt: { claims: { tenant: 'acme', sub: subject }, scopes: [] } } },
    ...(text === undefined ? {} : { body: text }),
  }, context);
  if (answer.statusCode === 201) interruptId = JSON.parse(answer.body).interruptId;
  answers.push(answer.statusCode);
}
`);

const DECISIONS = ['approve', 'reject', 'edit', 'answer'] as const;

/** The transcript every pause of the runs holds: one call, to refund an order. */
const MESSAGES = [
  { role: 'user', content: 'Refund order-42.' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'refund_order', input: { order: 'order-42' } }],
  },
];

/**
 * Runs the SQS trigger's four decisions, then the API's requests of one decision in the inbox (an agent's pause, the
 * person's listing and view of it, their approval), each with coverage on, and gives each part of the function's init
 * what ran.
 */
export async function measureDecisionRuns(options: { log: (line: string) => void }): Promise<DecisionRunResult[]> {
  const dir = join(OUT_DIR, 'decision-run');
  rmSync(dir, { recursive: true, force: true });
  const { store, env, close } = await startDecisionStage('handback-decision-run');
  const run = (name: string, entry: string, child: string, given: unknown) =>
    runCovered({ dir: join(dir, name), entry, child, given, env });
  try {
    const pauses = await Promise.all(
      DECISIONS.map(async (decision) => {
        const runId = `decision-run-${decision}-${Date.now()}`;
        const { interruptId } = await store.pause({
          tenant: 'acme',
          runId,
          format: 'anthropic',
          messages: MESSAGES,
          asks: [decision === 'answer' ? { toolCallId: 'toolu_1' } : { toolCallId: 'toolu_1', kind: 'approval' }],
        });
        const by = { subject: 'person-2', name: 'Ada' };
        const call =
          decision === 'answer'
            ? { answer: 'Yes, refund it.' }
            : {
                decisions: [
                  decision === 'edit'
                    ? { toolCallId: 'toolu_1', decision, args: { order: 'order-43' } }
                    : decision === 'reject'
                      ? { toolCallId: 'toolu_1', decision, reason: 'Not this one.' }
                      : { toolCallId: 'toolu_1', decision },
                ],
              };
        return {
          key: { tenant: 'acme', runId, interruptId },
          body: JSON.stringify({ runId, interruptId, tenant: 'acme', by, ...call }),
        };
      }),
    );
    const trigger = await run(
      'sqs',
      ENTRY.sqs,
      SQS_CHILD,
      pauses.map((p) => p.body),
    );
    const batch = (trigger.answers as Array<{ batchItemFailures: unknown[] }>)[0];
    const views = await Promise.all(pauses.map((p) => store.getPause(p.key)));
    const results: DecisionRunResult[] = [
      {
        bundle: 'sqs',
        decided: [...DECISIONS],
        allResumed: batch?.batchItemFailures.length === 0 && views.every((view) => view.status === 'resumed'),
        parts: trigger.parts,
        idle: trigger.idle,
        schemasBuilt: trigger.schemasBuilt,
      },
    ];
    const runId = `decision-run-api-${Date.now()}`;
    const requests = [
      [
        'POST',
        `/runs/${runId}/pauses`,
        { format: 'anthropic', messages: MESSAGES, asks: [{ toolCallId: 'toolu_1', kind: 'approval' }] },
        'agent-1',
      ],
      ['GET', '/pauses?mine=true', null, 'person-2'],
      ['GET', `/runs/${runId}/pauses/{interruptId}`, null, 'person-2'],
      [
        'POST',
        `/runs/${runId}/resume`,
        { interruptId: '{interruptId}', decisions: [{ toolCallId: 'toolu_1', decision: 'approve' }] },
        'person-2',
      ],
    ];
    const api = await run('api', ENTRY.api, API_CHILD, requests);
    results.push({
      bundle: 'api',
      decided: ['pause', 'list', 'view', 'approve'],
      allResumed: JSON.stringify(api.answers) === JSON.stringify([201, 200, 200, 200]),
      parts: api.parts,
      idle: api.idle,
      schemasBuilt: api.schemasBuilt,
    });
    for (const r of results) {
      for (const p of r.parts) {
        options.log(
          `coldstart decision run ${r.bundle} ${p.part}: ${p.bytes} B at init (gzip ${p.gzipBytes}), ran ${p.ranBytes} (gzip ${p.ranGzipBytes}), by the requests alone ${p.decisionsRanBytes} (gzip ${p.decisionsRanGzipBytes})${r.allResumed ? '' : '; not every request did what it should'}`,
        );
      }
    }
    return results;
  } finally {
    await close();
  }
}

/**
 * Where a bundled function decides, in this process: the embedded store and an SQS stand-in for the hand-off (its
 * `SendMessage` refusing what SQS refuses, `sqsMessageTaken`), the store to make pauses with, and the
 * environment that points a function at both, as a deployed one is given its table and queue.
 */
export async function startDecisionStage(tableName: string) {
  const db = await startEmbeddedDynamoDB({ tableName });
  const queuePath = '/111122223333/handoff';
  const sendMessage = sqsMessageTaken(queuePath);
  const sqs = await startAwsJsonStandIn((target, body) =>
    target === 'AmazonSQS.SendMessage' ? sendMessage(body) : undefined,
  );
  const client = DynamoDBDocumentClient.from(db.client(), { marshallOptions: { removeUndefinedValues: true } });
  const env = {
    ...BENCH_AWS_ENV,
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: db.endpoint,
    HANDOFF_TARGET: 'sqs',
    HANDOFF_QUEUE_URL: `${sqs.endpoint}${queuePath}`,
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
  };
  return {
    store: createDynamoDBCheckpointStore({ client, tableName }),
    /** The stage's table, for a read the store does not make. */
    client,
    tableName,
    env,
    close: async () => {
      sqs.close();
      await db.close();
    },
  };
}

/** Builds `entry` as the stack does and runs `child` on it with V8's coverage on; what it answered, and what ran. */
async function runCovered(spec: {
  dir: string;
  entry: string;
  child: string;
  given: unknown;
  env: Record<string, string>;
}): Promise<{ answers: unknown[] } & Pick<DecisionRunResult, 'parts' | 'idle' | 'schemasBuilt'>> {
  const bundle = buildLambdaBundle(spec.entry, join(spec.dir, 'bundle'), 'sqs');
  const driver = join(spec.dir, 'driver.mjs');
  writeFileSync(driver, spec.child);
  const coverage = join(spec.dir, 'coverage');
  mkdirSync(coverage);
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    [...DEPLOYED_NODE_FLAGS, driver, pathToFileURL(bundle.entry).href, JSON.stringify(spec.given)],
    {
      env: { ...spec.env, NODE_V8_COVERAGE: coverage },
      encoding: 'utf8',
    },
  );
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (line === undefined) throw new Error(`${spec.entry} printed no result: ${(stdout + stderr).slice(-400)}`);
  return {
    answers: JSON.parse(line.slice('RESULT '.length)) as unknown[],
    ...partsRun(outputsAtInit(bundle.metafile), coverage),
  };
}

/** V8's block coverage of one script: its functions, each with its ranges (the first, the whole function). */
export interface ScriptCoverage {
  url: string;
  functions: Array<{ ranges: Array<{ startOffset: number; endOffset: number; count: number }> }>;
}

/**
 * Which bytes of `source` ran, by one script's coverage: ranges painted outermost first, so a block's count overrides
 * its function's, and a function's its enclosing one's.
 */
export function ranBytes(source: string, script: ScriptCoverage | undefined): Uint8Array {
  const ran = new Uint8Array(source.length);
  if (script === undefined) return ran;
  const ranges = script.functions
    .flatMap((f) => f.ranges)
    .sort((a, b) => a.startOffset - b.startOffset || b.endOffset - a.endOffset);
  for (const r of ranges) ran.fill(r.count > 0 ? 1 : 0, r.startOffset, Math.min(r.endOffset, source.length));
  return ran;
}

/** The part a source map's source belongs to. */
function partOf(source: string): RunPart['part'] {
  if (/node_modules\/zod\//.test(source)) return 'zod';
  return source.includes('node_modules/') ? 'sdk' : 'handback';
}

/** Gives each byte of the init files to its part, with what ran of it (`coverage`: the two files the child wrote). */
function partsRun(atInit: Set<string>, coverage: string): Pick<DecisionRunResult, 'parts' | 'idle' | 'schemasBuilt'> {
  // The files in the order written: after the import, then at exit (counters reset by the first).
  const written = readdirSync(coverage).sort();
  if (written.length !== 2) throw new Error(`expected two coverage files, found ${written.length}`);
  const [initRun, decisionsRun] = written.map((name) => {
    const taken = JSON.parse(readFileSync(join(coverage, name), 'utf8')) as { result: ScriptCoverage[] };
    return new Map(taken.result.map((script) => [script.url, script]));
  }) as [Map<string, ScriptCoverage>, Map<string, ScriptCoverage>];
  const modules = new Map<string, { bytes: number; ranBytes: number }>();
  const schemasBuilt = { init: 0, requests: 0 };
  const sums = new Map<RunPart['part'], { all: string[]; ran: string[]; decisions: string[] }>(
    (['handback', 'zod', 'sdk'] as const).map((part) => [part, { all: [], ran: [], decisions: [] }]),
  );
  for (const output of atInit) {
    const file = resolve(process.cwd(), output);
    const url = pathToFileURL(file).href;
    // A file without a map (none at init, by infra/lambda-bundle.ts) has no module to give its bytes to.
    if (!existsSync(`${file}.map`)) continue;
    const source = readFileSync(file, 'utf8');
    const atInitRan = ranBytes(source, initRun.get(url));
    const byDecisions = ranBytes(source, decisionsRun.get(url));
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[]; mappings: string };
    const lineStarts = [0];
    for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
    const mappings = decode(map.mappings);
    const built = schemaInitializer(mappings, map.sources, lineStarts);
    if (built !== undefined) {
      schemasBuilt.init += callsAt(initRun.get(url), built);
      schemasBuilt.requests += callsAt(decisionsRun.get(url), built);
    }
    mappings.forEach((segments, line) => {
      const start = lineStarts[line] ?? source.length;
      const end = (lineStarts[line + 1] ?? source.length + 1) - 1;
      segments.forEach((segment, k) => {
        if (segment.length < 2) return;
        const from = start + segment[0];
        const to = k + 1 < segments.length ? start + (segments[k + 1]?.[0] ?? 0) : end;
        const name = String(map.sources[segment[1] as number]);
        const sum = sums.get(partOf(name)) as { all: string[]; ran: string[]; decisions: string[] };
        const module = modules.get(name) ?? { bytes: 0, ranBytes: 0 };
        modules.set(name, module);
        for (let i = from; i < to; i++) {
          const c = source[i] as string;
          sum.all.push(c);
          module.bytes++;
          if (atInitRan[i] === 1 || byDecisions[i] === 1) {
            sum.ran.push(c);
            module.ranBytes++;
          }
          if (byDecisions[i] === 1) sum.decisions.push(c);
        }
      });
    });
  }
  const weigh = (chars: string[]) => {
    const text = chars.join('');
    // At the level the benchmark weighs bundles and floors with (bundle.ts).
    return { bytes: Buffer.byteLength(text), gzip: gzipSync(text, { level: 9 }).length };
  };
  const idle = [...modules]
    .filter(([name]) => partOf(name) === 'handback')
    // A source outside functions/ is the bundle's own glue (infra/lambda-bundle.ts's join).
    .map(([name, m]) => ({
      module: name.includes('functions/') ? name.slice(name.indexOf('functions/')) : basename(name),
      ...m,
    }))
    .sort((a, b) => b.bytes - b.ranBytes - (a.bytes - a.ranBytes))
    .slice(0, 20);
  const parts = [...sums].map(([part, sum]) => {
    const all = weigh(sum.all);
    const ran = weigh(sum.ran);
    const decisions = weigh(sum.decisions);
    return {
      part,
      bytes: all.bytes,
      gzipBytes: all.gzip,
      ranBytes: ran.bytes,
      ranGzipBytes: ran.gzip,
      decisionsRanBytes: decisions.bytes,
      decisionsRanGzipBytes: decisions.gzip,
    };
  });
  return { parts, idle, schemasBuilt };
}

/** The line of zod's `$ZodType` initializer in its sources: every schema zod builds runs it once. */
const ZOD_TYPE_LINE = (() => {
  const lines = readFileSync(repoPath('node_modules/zod/v4/core/schemas.js'), 'utf8').split('\n');
  return lines.findIndex((line) => line.startsWith('export const $ZodType = '));
})();

/**
 * Where in the bundle zod's `$ZodType` initializer begins (the arrow function on its line in zod/v4/core/schemas.js),
 * by the source map: the offset of the first mapping of that line after its `$constructor(` call's start.
 */
function schemaInitializer(
  mappings: ReturnType<typeof decode>,
  sources: string[],
  lineStarts: number[],
): { from: number; to: number } | undefined {
  const at: number[] = [];
  mappings.forEach((segments, line) => {
    for (const segment of segments) {
      if (segment.length < 4) continue;
      const source = sources[segment[1] as number] ?? '';
      if (source.endsWith('zod/v4/core/schemas.js') && segment[2] === ZOD_TYPE_LINE) {
        at.push((lineStarts[line] ?? 0) + segment[0]);
      }
    }
  });
  return at.length === 0 ? undefined : { from: Math.min(...at), to: Math.max(...at) };
}

/** How often the function that starts within `span` ran, by one script's coverage (0 without one). */
export function callsAt(script: ScriptCoverage | undefined, span: { from: number; to: number }): number {
  let calls = 0;
  for (const fn of script?.functions ?? []) {
    const range = fn.ranges[0];
    if (range !== undefined && range.startOffset >= span.from && range.startOffset <= span.to) {
      calls = Math.max(calls, range.count);
    }
  }
  return calls;
}
