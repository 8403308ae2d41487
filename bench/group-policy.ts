import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointService } from '../functions/checkpoints/checkpoint-service.ts';
import type { PauseInput } from '../functions/checkpoints/checkpoint-store.ts';
import { ALL_CHECKS } from '../functions/checkpoints/checks.ts';
import { MemoryPersistence } from '../functions/checkpoints/memory.ts';
import { loadCedar } from '../functions/policies/cedar.ts';
import { createPolicyEngine, type PolicyEngine } from '../functions/policies/engine.ts';
import { loadPolicies } from '../functions/policies/load.ts';
import { policyTranscript } from '../functions/testing/fixtures.ts';
import { buildLambdaBundle, outputsAtInit } from '../infra/lambda-bundle.ts';
import { ENTRY } from '../infra/paths.ts';
import { type BundleSpec, beforeSpecs, buildBundle, DEFAULT_TARGET, OUT_DIR, REPO } from './bundle.ts';
import { quantile } from './measure.ts';
import type { GroupOptions } from './options.ts';
import { measureLarge, type PolicyLargeRow } from './policy-large.ts';

/**
 * Group 9, policy before people (§17): what the deployment's Cedar policies add to a pause, and what a deployment
 * without them carries. The pause is `CheckpointService.pause()` on the memory store (so the store's I/O does not
 * hide the evaluation), with 0 policies (no engine configured: the deployment without policies), 10 and 100, over
 * rounds of 1 and 16 approval asks — every configuration interleaved in the same rounds, the engine loaded before
 * (once per container, as on Lambda). Each policy is a `call` permit with its `@approvers`, on one of 16 tools and
 * reading `context.args.amount`, so each ask is matched by about a sixteenth of them and every pause waits (it is
 * written open, as a pause needing people is). The load: `loadPolicies` (parse, annotations, strict validation) and
 * the engine over 100, 1,000 and 5,000 such policies, which must grow linearly with the file. The bundle: the API
 * function's gzip at init bundled without policies (the stack's default), with them, and at the commit before §17.
 */

export interface PolicyRow {
  policies: number;
  asks: number;
  samples: number;
  p50Us: number;
  p99Us: number;
  /** p50 above the same asks' pause without policies. */
  addedP50Us: number;
}

/** Loading a policy file of `policies` policies (the median of `samples` loads, each with a fresh engine). */
export interface PolicyLoadRow {
  policies: number;
  fileBytes: number;
  samples: number;
  /** `loadPolicies`: parsed, annotations read, validated against the schema. */
  loadMs: number;
  /** `createPolicyEngine` over it and the first evaluation of an ask (which preparses its tool's policies). */
  engineMs: number;
  /** `loadMs` per policy. */
  perPolicyUs: number;
}

export interface PolicyBundleRow {
  name: string;
  gzipBytes: number;
  assetGzipBytes: number;
  /** Minified bytes init loads, and of them the policy feature's own modules' (functions/policies/, the seam). */
  initBytes: number;
  policyInitBytes: number;
}

export interface PolicyResult {
  rows: PolicyRow[];
  loads: PolicyLoadRow[];
  bundles: PolicyBundleRow[];
  /** The commit the "before §17" bundle was built from, or undefined when it could not be. */
  beforeRev: string | undefined;
  /** §19: a 5.9 MB pause of large declared sets, judged by `npm start` while `/health` is asked (`policy-large.ts`). */
  large?: PolicyLargeRow[];
}

const POLICY_COUNTS = [0, 10, 100, 1000, 5000] as const;
const LOAD_COUNTS = [100, 1000, 5000] as const;
const ASK_COUNTS = [1, 16] as const;
const TOOLS = 16;

/** `count` policies, each a `call` permit on one of the 16 tools, with its approvers. */
export function benchPolicies(count: number): string {
  return Array.from(
    { length: count },
    (_, i) => `@id("p-${i}")
@approvers("group:team-${i}")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"tool_${i % TOOLS}")
when { context.args has amount && context.args.amount > ${i} };
`,
  ).join('\n');
}

const SHIPPED = () => ({
  file: 'handback.cedarschema',
  text: readFileSync(join(REPO, 'handback.cedarschema'), 'utf8'),
});
const ARGS = {
  file: 'args.cedarschema',
  text: 'namespace Handback { type Args = { amount?: Long, orderId?: String }; }',
};

function engineOf(count: number): PolicyEngine {
  const cedar = loadCedar();
  const loaded = loadPolicies(cedar, { file: 'policies.cedar', text: benchPolicies(count) }, SHIPPED(), ARGS);
  return createPolicyEngine(cedar, loaded, {});
}

/** Loads of 100, 1,000 and 5,000 policies, Cedar warmed up by a first load of 100. */
function measureLoads(options: GroupOptions): PolicyLoadRow[] {
  const cedar = loadCedar();
  const shipped = SHIPPED();
  loadPolicies(cedar, { file: 'policies.cedar', text: benchPolicies(100) }, shipped, ARGS);
  return LOAD_COUNTS.map((count) => {
    const text = benchPolicies(count);
    const samples = options.quick ? 1 : count >= 5000 ? 3 : 7;
    const loads: number[] = [];
    const engines: number[] = [];
    for (let i = 0; i < samples; i++) {
      const started = performance.now();
      const loaded = loadPolicies(cedar, { file: 'policies.cedar', text }, shipped, ARGS);
      const built = performance.now();
      const verdict = createPolicyEngine(cedar, loaded, {}).evaluate({
        principal: { kind: 'agent', subject: 'bench' },
        tool: 'tool_0',
        args: { amount: 500 },
        runId: 'load',
        tenant: 'acme',
        format: 'openai-chat',
        now: new Date(),
      });
      if (verdict.outcome !== 'ask') throw new Error(`the bench's evaluation gave ${verdict.outcome}`);
      loads.push(built - started);
      engines.push(performance.now() - built);
    }
    const loadMs = quantile(loads, 0.5);
    const row = {
      policies: count,
      fileBytes: Buffer.byteLength(text),
      samples,
      loadMs,
      engineMs: quantile(engines, 0.5),
      perPolicyUs: (loadMs * 1000) / count,
    };
    options.log(`load ${count} policies: ${loadMs.toFixed(0)} ms (${row.perPolicyUs.toFixed(0)} µs a policy)`);
    return row;
  });
}

let runs = 0;
function input(asks: number): PauseInput {
  const calls = Array.from(
    { length: asks },
    (_, i) => [`call_${i}`, `tool_${i % TOOLS}`, { orderId: `A-${i}`, amount: 500 + i }] as const,
  );
  return {
    tenant: 'acme',
    runId: `run-${++runs}`,
    format: 'openai-chat',
    messages: policyTranscript(calls),
    asks: calls.map(([toolCallId]) => ({ toolCallId, kind: 'approval' as const })),
  };
}

export async function runPolicy(options: GroupOptions): Promise<PolicyResult> {
  const loads = measureLoads(options);
  const rounds = options.quick ? 40 : 400;
  const stores = new Map<number, CheckpointService>();
  for (const count of POLICY_COUNTS) {
    const engine = count === 0 ? undefined : engineOf(count);
    stores.set(
      count,
      new CheckpointService({
        checks: ALL_CHECKS,
        persistence: new MemoryPersistence(),
        ...(engine === undefined ? {} : { policies: async () => engine }),
      }),
    );
  }
  const samples = new Map<string, number[]>();
  const key = (count: number, asks: number) => `${count}x${asks}`;
  // Warm up every path (the checks, the format, Cedar's first evaluations) before timing.
  for (let round = -20; round < rounds; round++) {
    for (const asks of ASK_COUNTS) {
      for (const count of round % 2 === 0 ? POLICY_COUNTS : [...POLICY_COUNTS].reverse()) {
        const store = stores.get(count) as CheckpointService;
        const paused = input(asks);
        const started = process.hrtime.bigint();
        const created = await store.pause(paused);
        const us = Number(process.hrtime.bigint() - started) / 1000;
        if (created.status !== 'paused') throw new Error(`the bench's pause closed (${created.status})`);
        if (round >= 0) samples.set(key(count, asks), [...(samples.get(key(count, asks)) ?? []), us]);
      }
    }
  }
  const rows: PolicyRow[] = [];
  for (const asks of ASK_COUNTS) {
    const base = quantile(samples.get(key(0, asks)) ?? [], 0.5);
    for (const count of POLICY_COUNTS) {
      const values = samples.get(key(count, asks)) ?? [];
      const p50Us = quantile(values, 0.5);
      rows.push({
        policies: count,
        asks,
        samples: values.length,
        p50Us,
        p99Us: quantile(values, 0.99),
        addedP50Us: p50Us - base,
      });
      options.log(
        `${count} policies × ${asks} asks: p50 ${(p50Us / 1000).toFixed(2)} ms, added ${((p50Us - base) / 1000).toFixed(2)} ms`,
      );
    }
  }

  const beforeRev = preRev();
  const before =
    beforeRev === undefined ? undefined : beforeSpecs(beforeRev)?.find((spec) => spec.name === 'api (before)');
  const specs: BundleSpec[] = [
    {
      name: 'api, without policies (the default)',
      kind: 'handler' as const,
      entry: ENTRY.api,
      handoffTarget: DEFAULT_TARGET,
      policies: false,
    },
    {
      name: 'api, with policies',
      kind: 'handler' as const,
      entry: ENTRY.api,
      handoffTarget: DEFAULT_TARGET,
      policies: true,
    },
    ...(before === undefined ? [] : [{ ...before, name: `api, before §17 (${beforeRev})` }]),
  ];
  const bundles: PolicyBundleRow[] = [];
  for (const spec of specs) {
    const built = await buildBundle(spec);
    const { initBytes, policyInitBytes } = policyShareAtInit(spec);
    bundles.push({
      name: spec.name,
      gzipBytes: built.gzipBytes,
      assetGzipBytes: built.assetGzipBytes,
      initBytes,
      policyInitBytes,
    });
    options.log(
      `${spec.name}: ${built.gzipBytes} B gzip at init, ${built.assetGzipBytes} B the whole asset; policy modules ${policyInitBytes} of ${initBytes} B minified at init`,
    );
  }
  const large = await measureLarge(options);
  return { rows, loads, bundles, beforeRev, large };
}

/** What init loads of `spec`'s bundle, minified, and how much of it the policy feature's modules are. */
function policyShareAtInit(spec: BundleSpec): { initBytes: number; policyInitBytes: number } {
  const built = buildLambdaBundle(
    spec.entry,
    join(OUT_DIR, 'policy-share'),
    spec.handoffTarget,
    spec.policies ?? false,
  );
  let initBytes = 0;
  let policyInitBytes = 0;
  for (const output of outputsAtInit(built.metafile)) {
    for (const [path, input] of Object.entries(built.metafile.outputs[output]?.inputs ?? {})) {
      initBytes += input.bytesInOutput;
      if (/functions\/(policies\/|checkpoints\/policy-decisions)/.test(path)) policyInitBytes += input.bytesInOutput;
    }
  }
  return { initBytes, policyInitBytes };
}

/** The commit before the policies' engine came in: the parent of the commit that added functions/policies/engine.ts. */
function preRev(): string | undefined {
  try {
    const added = execFileSync(
      'git',
      ['-C', REPO, 'log', '--diff-filter=A', '--format=%h', '--', 'functions/policies/engine.ts'],
      { encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .at(-1);
    if (!added) return undefined;
    return execFileSync('git', ['-C', REPO, 'rev-parse', '--short', `${added}^`], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}
