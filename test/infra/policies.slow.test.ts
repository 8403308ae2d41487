import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLambdaBundle } from '../../infra/lambda-bundle.ts';
import { ENTRY, repoPath } from '../../infra/paths.ts';
import { API_EVENT_SOURCE, chunkWatchingDriver, LOAD_HOOKS, runBundledDriver } from '../support/bundled-child.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { type Synthesized, synthesize } from './synth.ts';

/**
 * The deployment's Cedar policies as `cdk synth` bundles them (§17, §19): the stack synthesized with
 * `handback:policies` and `handback:policySchema`, the API function's asset holding the files, Cedar's WebAssembly
 * and Handback's schema beside its code, and that asset run in a child Node against the embedded table — Cedar
 * loaded by the first approval pause, never at init, the policies deciding as they do under `npm start`. And the same
 * function bundled without policies never loads Cedar at all.
 */

const table = useTestTable();
const dir = mkdtempSync(join(tmpdir(), 'handback-policies-'));
let synthesized: Synthesized;

beforeAll(() => {
  synthesized = synthesize(
    {},
    {
      context: {
        'handback:policies': 'test/fixtures/policies/policies.cedar',
        'handback:policySchema': 'test/fixtures/policies/args.cedarschema',
        'handback:handoff': 'none',
      },
    },
  );
  writeFileSync(join(dir, 'hooks.mjs'), LOAD_HOOKS);
  writeFileSync(join(dir, 'drive.mjs'), DRIVER);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A function of the synthesized stack: its asset's directory and its environment's plain values. */
function fn(name: string): { asset: string; environment: Record<string, string> } {
  const functions = synthesized.template.findResources('AWS::Lambda::Function');
  const [, resource] = Object.entries(functions).find(([id]) => id.startsWith(`${name}Function`)) ?? [];
  const key = String(resource?.Properties.Code.S3Key).replace(/\.zip$/, '');
  const variables = (resource?.Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
  return {
    asset: join(synthesized.assembly.directory, `asset.${key}`),
    environment: Object.fromEntries(
      Object.entries(variables).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    ),
  };
}

/** Whether a chunk of `asset` (by its `chunks/<file>` name) is Cedar's JavaScript. */
const isCedar = (asset: string, chunk: string) => readFileSync(join(asset, chunk), 'utf8').includes('__wbindgen');

/** The child: the bundle's init, then an agent's pauses, printing the chunks each step loaded. */
const DRIVER = `
${chunkWatchingDriver('api')}
${API_EVENT_SOURCE}const call = async (e, claims) => {
  if (claims) e.requestContext.authorizer.jwt.claims = claims;
  const r = await handler(e, context());
  return { status: r.statusCode, body: JSON.parse(r.body) };
};
const agent = { tenant: 'acme', sub: 'agent-1', scope: 'handback/agent' };
const round = (calls) => ({
  format: 'openai-chat',
  messages: [
    { role: 'user', content: 'Sort out my orders.' },
    { role: 'assistant', content: null, tool_calls: calls.map(([id, name, args]) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } })) },
  ],
  asks: calls.map(([toolCallId]) => ({ toolCallId, kind: 'approval' })),
});
const results = {};
const run = (name) => '/runs/' + process.env.RUN_PREFIX + name;
results.health = await call(event('GET', '/health'));
loaded.health = loadedSince();
results.small = await call(event('POST', run('run-small') + '/pauses', round([['call_1', 'refund_order', { orderId: 'A-1', amount: 20 }]])), agent);
loaded.small = loadedSince();
results.large = await call(event('POST', run('run-large') + '/pauses', round([['call_2', 'refund_order', { orderId: 'A-2', amount: 500 }], ['call_3', 'delete_customer', {}]])), agent);
results.view = await call(event('GET', run('run-large') + '/pauses/' + results.large.body.interruptId));
console.log('RESULT ' + JSON.stringify({ results, loaded }));
`;

let drives = 0;
async function drive(bundle: string, environment: Record<string, string>, taskRoot: string) {
  return runBundledDriver(
    join(dir, 'drive.mjs'),
    [pathToFileURL(bundle).href, pathToFileURL(join(dir, 'hooks.mjs')).href],
    {
      ...environment,
      TABLE_NAME: table.tableName,
      DYNAMODB_ENDPOINT: table.endpoint,
      HANDOFF_TARGET: 'none',
      LAMBDA_TASK_ROOT: taskRoot,
      AWS_LAMBDA_FUNCTION_NAME: 'api',
      // Each drive its own runs: the table is the file's.
      RUN_PREFIX: `drive-${++drives}-`,
    },
  );
}

describe('synthesis with a policy file', () => {
  it('bundles the files, Cedar’s WebAssembly and Handback’s schema with the functions that pause or judge edits, and no other', () => {
    for (const name of ['ApiHandler', 'McpHandler', 'StepFunctionsHandler', 'SqsHandler']) {
      const { asset } = fn(name);
      expect(readdirSync(join(asset, 'policies')).sort()).toEqual([
        'args.cedarschema',
        'cedar_wasm_bg.wasm',
        'handback.cedarschema',
        'policies.cedar',
      ]);
      expect(readFileSync(join(asset, 'policies', 'policies.cedar'), 'utf8')).toBe(
        readFileSync('test/fixtures/policies/policies.cedar', 'utf8'),
      );
      expect(readFileSync(join(asset, 'policies', 'handback.cedarschema'), 'utf8')).toBe(
        readFileSync('handback.cedarschema', 'utf8'),
      );
    }
    for (const name of ['Sweeper', 'InboxHandler']) {
      expect(readdirSync(fn(name).asset)).not.toContain('policies');
    }
  });

  it('runs in the API function’s asset: Cedar loaded by the first pause, not at init; the policies decide', async () => {
    const { asset, environment } = fn('ApiHandler');
    const { result } = await drive(join(asset, 'index.mjs'), environment, asset);
    const { results, loaded } = result;
    expect(loaded.init.filter((chunk: string) => isCedar(asset, chunk))).toEqual([]);
    expect(loaded.health.filter((chunk: string) => isCedar(asset, chunk))).toEqual([]);
    expect(loaded.small.filter((chunk: string) => isCedar(asset, chunk))).toHaveLength(1);
    expect(results.small).toMatchObject({
      status: 200,
      body: { status: 'resumed', outcome: 'resumed', dispatch: [{ toolCallId: 'call_1', name: 'refund_order' }] },
    });
    expect(results.large).toMatchObject({ status: 201, body: { status: 'paused' } });
    expect(results.view.body.asks).toMatchObject([
      {
        toolCallId: 'call_2',
        approvers: { groups: ['finance'] },
        approvals: 2,
        policy: { outcome: 'ask', policyIds: ['finance-over-100'] },
      },
      {
        toolCallId: 'call_3',
        decision: {
          decision: 'reject',
          reason: 'Agents never delete customers',
          by: { kind: 'service', subject: 'policy:no-agent-deletes', via: 'policy' },
        },
      },
    ]);
  });
});

describe('the API function bundled without policies, as the stack bundles it by default', () => {
  const plain = join(dir, 'plain');
  let entry: string;
  beforeAll(() => {
    entry = buildLambdaBundle(ENTRY.api, plain, 'none', false).entry;
  });

  it('holds no Cedar and no policy file, and pauses as before', async () => {
    const chunks = readdirSync(join(plain, 'chunks')).filter((file) => file.endsWith('.mjs'));
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.filter((file) => isCedar(plain, `chunks/${file}`))).toEqual([]);
    expect(readdirSync(plain)).not.toContain('policies');
    const { result } = await drive(entry, {}, plain);
    expect(result.results.small).toMatchObject({ status: 201, body: { status: 'paused' } });
    expect(result.results.large).toMatchObject({ status: 201, body: { status: 'paused' } });
    const asks = result.results.view.body.asks;
    expect(asks.map((ask: { toolCallId: string }) => ask.toolCallId)).toEqual(['call_2', 'call_3']);
    for (const ask of asks) {
      expect(ask.policy).toBeUndefined();
      expect(ask.decision).toBeUndefined();
    }
  });

  it('refuses at cold start to be told of policies it was not bundled with', async () => {
    await expect(drive(entry, { HANDBACK_POLICIES: 'policies/policies.cedar' }, plain)).rejects.toThrow(
      /HANDBACK_POLICIES is set, but this function was bundled without policies/,
    );
  });
});

describe('cdk synth with a policy file that does not parse', () => {
  it("exits 1 with one line: the context key, the file, its line and column, and Cedar's words", () => {
    const cdkJson = JSON.parse(readFileSync(repoPath('cdk.json'), 'utf8')) as { context: object };
    const context = {
      ...cdkJson.context,
      'aws:cdk:bundling-stacks': [],
      'handback:policies': 'test/fixtures/policies/bad.cedar',
    };
    const run = spawnSync(process.execPath, ['--import', 'tsx', repoPath('infra/app.ts')], {
      cwd: repoPath(''),
      env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify(context), CDK_OUTDIR: join(dir, 'out') },
      encoding: 'utf8',
    });
    expect([run.status, run.stderr]).toEqual([
      1,
      'Context handback:policies: test/fixtures/policies/bad.cedar:3:58: failed to parse policies from string: unexpected token `}`\n',
    ]);
  });
});
