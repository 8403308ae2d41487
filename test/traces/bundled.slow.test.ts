import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLambdaBundle, type LambdaBundle, outputsAtInit } from '../../infra/lambda-bundle.ts';
import { ENTRY } from '../../infra/paths.ts';
import { API_EVENT_SOURCE, chunkWatchingDriver, LOAD_HOOKS, runBundledDriver } from '../support/bundled-child.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';

/**
 * §21 in the functions as the stack bundles them: without an OTLP endpoint no OpenTelemetry code and none of the
 * spans' code is read at init (one small module of `functions/traces/` is); with one, the API function, run in a child
 * Node against the embedded table, loads the spans' chunk with its first span and has sent the span to a receiver of
 * the test's own by the time the invocation returns.
 */

const table = useTestTable();
const dir = mkdtempSync(join(tmpdir(), 'handback-bundled-traces-'));
let receiver: OtlpReceiver;
let api: LambdaBundle;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  api = buildLambdaBundle(ENTRY.api, join(dir, 'api'), 'sqs');
  writeFileSync(join(dir, 'hooks.mjs'), LOAD_HOOKS);
  writeFileSync(join(dir, 'drive.mjs'), DRIVER);
});
afterAll(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The inputs of the output files init loads. */
function inputsAtInit(metafile: Metafile): string[] {
  return [...outputsAtInit(metafile)].flatMap((name) => Object.keys(metafile.outputs[name]?.inputs ?? {}));
}

/** The spans' code (all of `functions/traces/` but its front), and any OpenTelemetry package. */
const SPAN_CODE = /functions\/traces\/(?!traces\.ts$)|@opentelemetry\//;

/** The `chunks/<file>` names of the outputs holding the spans' code. */
function spanChunks(metafile: Metafile): string[] {
  return Object.keys(metafile.outputs)
    .filter((name) => Object.keys(metafile.outputs[name]?.inputs ?? {}).some((input) => SPAN_CODE.test(input)))
    .map((name) => name.slice(name.lastIndexOf('chunks/')));
}

/** The child: imports the bundle, makes one pause in a trace, and prints its answer and the chunks each step read. */
const DRIVER = `
${chunkWatchingDriver('api')}${API_EVENT_SOURCE}
const messages = [
  { role: 'user', content: 'Clean up.' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_del', name: 'delete_branch', input: {} }] },
];
const response = await handler(
  event('POST', '/runs/' + process.argv[4] + '/pauses', { format: 'anthropic', messages, asks: [{ toolCallId: 'toolu_del', kind: 'approval' }] }, { traceparent: process.argv[5] }),
  context(),
);
console.log('RESULT ' + JSON.stringify({ status: response.statusCode, loaded: { init: loaded.init, pause: loadedSince() } }));
`;

const TRACEPARENT = '00-5bf92f3577b34da6a3ce929d0e0e4736-10f067aa0ba902b7-01';

/** Runs the bundled API once, with `env` on top of its table. */
function pauseInChild(runId: string, env: Record<string, string>) {
  return runBundledDriver(
    join(dir, 'drive.mjs'),
    [pathToFileURL(api.entry).href, pathToFileURL(join(dir, 'hooks.mjs')).href, runId, TRACEPARENT],
    {
      TABLE_NAME: table.tableName,
      DYNAMODB_ENDPOINT: table.endpoint,
      HANDOFF_TARGET: 'sqs',
      HANDOFF_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111122223333/handoff',
      ...env,
    },
  );
}

describe('the bundled functions (§21)', () => {
  it('read none of the spans’ code and no OpenTelemetry package at init, and keep the spans’ code in a chunk', () => {
    const lifecycle = buildLambdaBundle(ENTRY.lifecycleEvents, join(dir, 'lifecycle'), 'sqs');
    const mcp = buildLambdaBundle(ENTRY.mcp, join(dir, 'mcp'), 'sqs');
    for (const bundle of [api, lifecycle, mcp]) {
      expect(inputsAtInit(bundle.metafile).filter((input) => SPAN_CODE.test(input))).toEqual([]);
      expect(inputsAtInit(bundle.metafile)).toContain('functions/traces/traces.ts');
      expect(spanChunks(bundle.metafile)).toHaveLength(1);
    }
  });

  it('without an endpoint, load no span chunk with a pause in a trace', async () => {
    const { result } = await pauseInChild('run-untraced', {});
    expect(result.status).toBe(201);
    expect(
      spanChunks(api.metafile).filter((chunk) => [...result.loaded.init, ...result.loaded.pause].includes(chunk)),
    ).toEqual([]);
  });

  it('with an endpoint, load the span chunk with the first span and send it before the invocation returns', async () => {
    const { result } = await pauseInChild('run-traced', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(result.status).toBe(201);
    const chunks = spanChunks(api.metafile);
    expect(chunks.filter((chunk) => result.loaded.init.includes(chunk))).toEqual([]);
    expect(chunks.filter((chunk) => !result.loaded.pause.includes(chunk))).toEqual([]);
    expect(receiver.spans).toEqual([
      expect.objectContaining({
        name: 'handback.pause',
        traceId: '5bf92f3577b34da6a3ce929d0e0e4736',
        parentSpanId: '10f067aa0ba902b7',
        attributes: expect.objectContaining({ 'handback.run.id': 'run-traced' }),
      }),
    ]);
  });
});
