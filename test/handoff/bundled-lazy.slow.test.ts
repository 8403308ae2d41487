import { createHash } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLambdaBundle } from '../../infra/lambda-bundle.ts';
import { ENTRY } from '../../infra/paths.ts';
import { API_EVENT_SOURCE, lambdaContextSource, runBundledDriver } from '../support/bundled-child.ts';
import { useTestTable } from '../support/dynamodb.ts';

/**
 * The API function as the stack bundles it (for the SQS hand-off), run in a child Node against the embedded table and
 * a stand-in of SQS, Step Functions and Lambda: a pause in a format, with an answer schema, a task token and a durable
 * callback id, then its answer. Each of those is in a chunk loaded on first use (the format, the schema checks, the
 * task token's and the callback's clients), so this is the lazy loading working in the deployed bundle, not in the
 * sources the unit tests import.
 */

const table = useTestTable();
const dir = mkdtempSync(join(tmpdir(), 'handback-bundled-lazy-'));
let bundle: string;
let server: Server;
let endpoint: string;
const calls: Array<{ method: string; path: string; target: string; body: Record<string, unknown> }> = [];
const traceHeaders: string[] = [];
// A stand-in of the X-Ray daemon Lambda runs beside the function: what the bundle's tracing sends.
const daemon = createSocket('udp4');
const subsegments: Array<{ name: string; parent_id: string; trace_id: string; aws: { operation: string } }> = [];
daemon.on('message', (message) => subsegments.push(JSON.parse(message.toString('utf8').split('\n')[1] ?? '{}')));
const ROOT = '1-6760a1b2-a006649127e371903a2de979';

beforeAll(async () => {
  bundle = buildLambdaBundle(ENTRY.api, join(dir, 'api'), 'sqs').entry;
  writeFileSync(join(dir, 'drive.mjs'), DRIVER);
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      const target = String(request.headers['x-amz-target'] ?? '');
      traceHeaders.push(String(request.headers['x-amzn-trace-id']));
      calls.push({ method: request.method ?? '', path: request.url ?? '', target, body });
      const md5 = createHash('md5')
        .update(String(body.MessageBody ?? ''))
        .digest('hex');
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify(target.endsWith('SendMessage') ? { MessageId: 'm-1', MD5OfMessageBody: md5 } : {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(() => {
  daemon.close();
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const DRIVER = `
import { randomUUID } from 'node:crypto';
const { handler } = await import(process.argv[2]);
${lambdaContextSource('api')}${API_EVENT_SOURCE}const call = async (e) => {
  const r = await handler(e, context());
  return { status: r.statusCode, body: JSON.parse(r.body) };
};
const runId = process.argv[3];
const messages = [
  { role: 'user', content: 'Whom should I send the report to?' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_ask', name: 'ask_human', input: { question: 'Email?' } }] },
];
const answerSchema = { type: 'object', properties: { email: { type: 'string', pattern: '^[^@]+@[^@]+$' } }, required: ['email'] };
const results = {};
results.pause = await call(event('POST', '/runs/' + runId + '/pauses', {
  format: 'anthropic', messages, asks: [{ toolCallId: 'toolu_ask', answerSchema }], taskToken: 'token-1', callbackId: 'cb-1',
}));
const interruptId = results.pause.body.interruptId;
results.refused = await call(event('POST', '/runs/' + runId + '/resume', { interruptId, answer: { email: 'no at sign' } }));
results.resumed = await call(event('POST', '/runs/' + runId + '/resume', { interruptId, answer: { email: 'ada@example.com' } }));
results.openapi = await call(event('GET', '/openapi.json'));
console.log('RESULT ' + JSON.stringify(results));
`;

describe('the bundled API function with every chunk loaded on first use', () => {
  it('pauses in a format, refuses an answer its schema rejects, and hands off to SQS, the task and the callback', async () => {
    const { result } = await runBundledDriver(join(dir, 'drive.mjs'), [pathToFileURL(bundle).href, 'run-lazy'], {
      TABLE_NAME: table.tableName,
      DYNAMODB_ENDPOINT: table.endpoint,
      HANDOFF_TARGET: 'sqs',
      HANDOFF_QUEUE_URL: `${endpoint}/111122223333/handoff`,
      AWS_ENDPOINT_URL_SQS: endpoint,
      AWS_ENDPOINT_URL_SFN: endpoint,
      AWS_ENDPOINT_URL_LAMBDA: endpoint,
      AWS_LAMBDA_FUNCTION_NAME: 'api',
      _X_AMZN_TRACE_ID: `Root=${ROOT};Parent=53995c3f42cd8ad8;Sampled=1;Lineage=a87bd80c:0`,
      AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${daemon.address().port}`,
    });
    const results = result;
    expect(results.pause).toMatchObject({ status: 201, body: { status: 'paused' } });
    expect(results.refused).toMatchObject({ status: 422, body: { code: 'invalid_answer' } });
    expect(results.resumed).toMatchObject({ status: 200, body: { outcome: 'resumed', format: 'anthropic' } });
    expect(calls.map((c) => c.target || `${c.method} ${c.path}`).sort()).toEqual([
      'AWSStepFunctions.SendTaskSuccess',
      'AmazonSQS.SendMessage',
      'POST /2025-12-01/durable-execution-callbacks/cb-1/succeed',
    ]);
    const task = calls.find((c) => c.target === 'AWSStepFunctions.SendTaskSuccess');
    expect(task?.body).toMatchObject({ taskToken: 'token-1' });
    expect(JSON.parse(String(task?.body.output))).toMatchObject({ outcome: 'resumed', format: 'anthropic' });
    // The API description is a chunk of its own, served as the route table describes it.
    expect(results.openapi).toMatchObject({ status: 200, body: { openapi: expect.stringMatching(/^3\./) } });
  });

  it('sends an X-Ray subsegment of every AWS call, each service continuing the trace under its own', async () => {
    await expect.poll(() => subsegments.filter((s) => s.name !== 'DynamoDB').length).toBe(3);
    expect(new Set(subsegments.map((s) => s.name))).toEqual(new Set(['DynamoDB', 'SQS', 'SFN', 'Lambda']));
    expect(subsegments.every((s) => s.trace_id === ROOT && s.parent_id === '53995c3f42cd8ad8')).toBe(true);
    expect(subsegments.find((s) => s.name === 'SQS')?.aws.operation).toBe('SendMessage');
    // Each call the stand-in answered carried its own subsegment's id as the parent, and Lambda's Lineage.
    const ids = new Set(subsegments.map((s) => (s as unknown as { id: string }).id));
    expect(traceHeaders).toHaveLength(3);
    for (const header of traceHeaders) {
      const [root, parent, sampled, lineage] = header.split(';');
      expect([root, sampled, lineage]).toEqual([`Root=${ROOT}`, 'Sampled=1', 'Lineage=a87bd80c:0']);
      expect(ids.has(String(parent).slice('Parent='.length))).toBe(true);
    }
  });
});
