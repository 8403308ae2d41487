import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  BENCH_AWS_ENV,
  BUNDLES,
  type BuiltBundle,
  beforeSpecs,
  buildBundle,
  DEPLOYED_NODE_FLAGS,
  FLOOR,
  FLOOR_ENTRIES,
  LAMBDA_BUNDLE_OPTIONS,
  OUT_DIR,
  REPO,
} from './bundle.ts';
import { type DecisionRunResult, measureDecisionRuns } from './decision-run.ts';
import { type FirstDecisionRow, measureFirstDecisions } from './first-decision.ts';
import { quantile } from './measure.ts';
import type { GroupOptions } from './options.ts';
import { measureSlackAck, type SlackAckResult } from './slack-ack.ts';

/**
 * Group 4, cold start: each of the stack's functions bundled exactly as the stack bundles it (for the default
 * hand-off target, SQS), weighed (what init reads — the entry and the chunks it imports statically — and the whole
 * asset, gzip) and imported in a fresh `node` process, beside the floors and the peers bundled the same way. The
 * floor is a bundle that imports the DynamoDB document client and the configured hand-off target's client; the
 * Slack floor, the DynamoDB document client and `fetch`; the old floor, the DynamoDB document client alone. Import
 * time is measured inside the new process (`performance.now()` around `await import(bundle)`) with the stack's
 * `NODE_OPTIONS`. Every round imports every bundle once, in a rotating order. With `--before=<rev>`, the functions as
 * they were at that commit are built and imported in the same rounds. Then the first schema check: a fresh
 * process imports the SQS trigger and runs the answers' JSON Schema check once, as the first decision on an ask with
 * a schema does. Then, by weight only, the SQS trigger and the API bundled for each hand-off target against that
 * target's floor. Then a Slack interaction acknowledged after a cold start (bench/slack-ack.ts), what decisions run of
 * the SQS trigger's and the API's init (bench/decision-run.ts), and last an approve after a cold start by each of them,
 * import and first decision timed apart and together (bench/first-decision.ts): what init stops doing and a decision
 * needs is paid by that decision, so the sum is what a cold start costs.
 */

/** What the group is given: CI's smoke mode names a few bundles and one round, and leaves the rest out. */
export interface ColdStartOptions extends GroupOptions {
  /** Only these bundles (by name); every one otherwise. */
  only?: string[];
  /** Rounds of imports; 3 quick, 15 otherwise. */
  rounds?: number;
  /** A commit whose functions to build and import beside these (`--before=<rev>`); none by default. */
  before?: string;
  /** Whether to weigh the SQS trigger and the API for each hand-off target (default: unless `only`). */
  targets?: boolean;
}

/** The first schema check after a cold start: import, then the check (the chunk loaded, one schema compiled). */
export interface FirstSchemaCheckRow {
  name: string;
  importMs: number;
  checkMs: number;
  totalMs: number;
  samples: number;
  error?: string;
}

/** One bundle's weight and import times (ms, medians over fresh processes). */
export interface ColdStartRow extends Omit<BuiltBundle, 'file' | 'entry'> {
  /** Import time as deployed (the stack's `NODE_OPTIONS`). */
  importMs: number;
  importP90Ms: number;
  /** From process start to the module loaded (node's own start-up included), as deployed. */
  readyMs: number;
  samples: number;
  /** Why the bundle did not build or import. */
  error?: string;
}

/** A function bundled for one hand-off target, weighed against that target's floor. */
export interface TargetRow {
  target: string;
  bundle: string;
  gzipBytes: number;
  floorGzipBytes: number;
  oldFloorGzipBytes: number;
}

export interface ColdStartResult {
  esbuild: typeof LAMBDA_BUNDLE_OPTIONS;
  /** The Node flags "as deployed" means. */
  deployedNodeFlags: string[];
  /** The commit the "before" rows were bundled from, when there are any. */
  beforeRev?: string;
  rows: ColdStartRow[];
  targets: TargetRow[];
  firstSchemaCheck: FirstSchemaCheckRow[];
  /** A Slack interaction acknowledged after a cold start, on the local stand-ins (bench/slack-ack.ts). */
  slackAck?: SlackAckResult;
  /** What decisions run of the SQS trigger's and the API's init, by V8's coverage (bench/decision-run.ts). */
  decisionRuns?: DecisionRunResult[];
  /** An approve after a cold start, by the SQS trigger and the API: import, decision, both (bench/first-decision.ts). */
  firstDecisions?: FirstDecisionRow[];
  /** The load average before and after the rounds (the machine is shared). */
  load: { before: number[]; after: number[] };
}

const PROBE = `
const started = performance.now();
await import(process.argv[1]);
const loaded = performance.now();
process.stdout.write(JSON.stringify({ importMs: loaded - started, readyMs: loaded }));
`;

/** The environment a deployed function sees at init (the values are placeholders; nothing is called). */
const LAMBDA_ENV = {
  ...BENCH_AWS_ENV,
  TABLE_NAME: 'handback-bench',
  HANDOFF_TARGET: 'sqs',
  HANDOFF_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111122223333/handoff',
  EVENT_BUS_NAME: 'handback-lifecycle',
  // The channels' functions: the Slack app's secret is read on first use, never at import.
  SLACK_SECRET_ID: 'handback/slack',
  HANDBACK_INBOX_URL: 'https://abc123.execute-api.us-east-1.amazonaws.com/inbox',
  HANDBACK_EMAIL_FROM: 'approvals@example.org',
  POWERTOOLS_SERVICE_NAME: 'handback',
  POWERTOOLS_METRICS_NAMESPACE: 'Handback',
  POWERTOOLS_LOG_LEVEL: 'INFO',
};

/**
 * The email function's link key, given to it alone: older functions read the key at import, which fails with no
 * Secrets Manager to answer; the functions now read it on first use.
 */
const EMAIL_ENV = {
  ...LAMBDA_ENV,
  LINK_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:111122223333:secret:handback-link-key',
};

function importOnce(file: string, flags: string[], name = ''): { importMs: number; readyMs: number } {
  const args = [...flags, '--input-type=module', '-e', PROBE, pathToFileURL(file).href];
  const env = name === 'email-events' ? EMAIL_ENV : LAMBDA_ENV;
  const done = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`import failed: ${done.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return JSON.parse(done.stdout) as { importMs: number; readyMs: number };
}

/** A schema with a `pattern` (so re2js runs) and an answer that meets it. */
const SCHEMA = {
  type: 'object',
  properties: { email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' }, note: { type: 'string', maxLength: 200 } },
  required: ['email'],
  additionalProperties: false,
};
const ANSWER = { email: 'ada@example.com', note: 'approved' };

/**
 * An entry that is the SQS trigger's and also runs the answers' schema check once, loaded as the service loads it
 * (a dynamic `import()`, so in the bundle it is the same chunk the trigger would load), from the sources under
 * `root` (this repository, or the tree of a `before` commit).
 */
function schemaCheckEntry(root: string, name: string): string {
  const file = join(OUT_DIR, 'entries', `${name}.ts`);
  mkdirSync(join(OUT_DIR, 'entries'), { recursive: true });
  const at = (path: string) => JSON.stringify(join(root, path));
  writeFileSync(
    file,
    `export { handler } from ${at('functions/handlers/sqs.ts')};
export async function firstSchemaCheck() {
  const { schemaFailures } = await import(${at('functions/checkpoints/json-schema/index.ts')});
  const failures = schemaFailures(${JSON.stringify(SCHEMA)}, ${JSON.stringify(ANSWER)});
  if (failures.length > 0) throw new Error('the answer failed its schema: ' + JSON.stringify(failures));
}
`,
  );
  return file;
}

const SCHEMA_PROBE = `
const started = performance.now();
const m = await import(process.argv[1]);
const imported = performance.now();
await m.firstSchemaCheck();
const checked = performance.now();
process.stdout.write(JSON.stringify({ importMs: imported - started, checkMs: checked - imported }));
`;

function loadAverage(): number[] {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  } catch {
    return [];
  }
}

/** The SQS trigger and the API bundled for every hand-off target, by gzip bytes at init against each target's floor. */
export async function targetRows(): Promise<TargetRow[]> {
  const rows: TargetRow[] = [];
  const oldFloor = await buildBundle({ name: 'target-old-floor', kind: 'old-floor', entry: FLOOR_ENTRIES.none });
  for (const target of ['sqs', 'eventbridge', 'lambda', 'none'] as const) {
    const floor = await buildBundle({ name: `target-floor-${target}`, kind: 'floor', entry: FLOOR_ENTRIES[target] });
    for (const name of ['sqs', 'api']) {
      const spec = BUNDLES.find((b) => b.name === name);
      if (spec === undefined) continue;
      const built = await buildBundle({ ...spec, name: `target-${name}-${target}`, handoffTarget: target });
      rows.push({
        target,
        bundle: name,
        gzipBytes: built.gzipBytes,
        floorGzipBytes: floor.gzipBytes,
        oldFloorGzipBytes: oldFloor.gzipBytes,
      });
    }
  }
  return rows;
}

export async function runColdStart(options: ColdStartOptions): Promise<ColdStartResult> {
  const only = options.only === undefined ? undefined : new Set(options.only);
  const specs = only === undefined ? BUNDLES : BUNDLES.filter((b) => only.has(b.name));
  const built: BuiltBundle[] = [];
  const rows: ColdStartRow[] = [];
  const failed = (spec: (typeof BUNDLES)[number], error: string): ColdStartRow => ({
    name: spec.name,
    kind: spec.kind,
    bytes: 0,
    gzipBytes: 0,
    assetBytes: 0,
    assetGzipBytes: 0,
    lazyChunks: [],
    mapBytes: 0,
    byPackage: [],
    onUseAtInit: [],
    importMs: Number.NaN,
    importP90Ms: Number.NaN,
    readyMs: Number.NaN,
    samples: 0,
    error,
  });
  const rev = options.before;
  const before = rev === undefined ? [] : (beforeSpecs(rev) ?? []);
  if (rev !== undefined && before.length === 0) options.log(`coldstart: commit ${rev} not found; no before-and-after`);
  for (const spec of [...specs, ...before]) {
    try {
      const bundle = await buildBundle(spec);
      // Fails fast on a bundle that cannot load, and warms the disk cache.
      importOnce(bundle.file, DEPLOYED_NODE_FLAGS, spec.name);
      built.push(bundle);
    } catch (error) {
      rows.push(failed(spec, (error as Error).message.slice(0, 400)));
      options.log(`coldstart ${spec.name}: ${(error as Error).message.slice(0, 400)}`);
    }
  }
  const rounds = options.rounds ?? (options.quick ? 3 : 15);
  const loadBefore = loadAverage();
  const mapped = new Map(built.map((b) => [b.name, { imports: [] as number[], ready: [] as number[] }]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < built.length; k++) {
      const bundle = built[(round + k) % built.length] as BuiltBundle;
      const m = mapped.get(bundle.name);
      if (!m) continue;
      const deployed = importOnce(bundle.file, DEPLOYED_NODE_FLAGS, bundle.name);
      m.imports.push(deployed.importMs);
      m.ready.push(deployed.readyMs);
    }
  }
  const loadAfter = loadAverage();
  for (const bundle of built) {
    const m = mapped.get(bundle.name);
    if (!m) continue;
    const { file: _file, entry: _entry, ...weight } = bundle;
    rows.push({
      ...weight,
      importMs: quantile(m.imports, 0.5),
      importP90Ms: quantile(m.imports, 0.9),
      readyMs: quantile(m.ready, 0.5),
      samples: m.imports.length,
    });
    const row = rows.at(-1) as ColdStartRow;
    options.log(
      `coldstart ${bundle.name.padEnd(36)} ${(bundle.bytes / 1024).toFixed(0).padStart(6)} KB, gzip at init ${(bundle.gzipBytes / 1024).toFixed(1).padStart(6)} KB, asset ${(bundle.assetGzipBytes / 1024).toFixed(1).padStart(6)} KB, import ${row.importMs.toFixed(1)} ms`,
    );
  }
  const order = new Map([...specs, ...before].map((b, i) => [b.name, i]));
  rows.sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0));
  const firstSchemaCheck = await firstSchemaCheckRows(
    before.length > 0 ? rev : undefined,
    options.quick ? Math.min(rounds, 3) : 9,
  );
  for (const r of firstSchemaCheck) {
    options.log(
      `coldstart first schema check ${r.name}: import ${r.importMs.toFixed(1)} ms + check ${r.checkMs.toFixed(1)} ms = ${r.totalMs.toFixed(1)} ms${r.error ? ` (failed: ${r.error})` : ''}`,
    );
  }
  const targets = (options.targets ?? only === undefined) ? await targetRows() : [];
  let slackAck: SlackAckResult | undefined;
  if (only === undefined || only.has('slack-interactions')) {
    try {
      slackAck = await measureSlackAck({ rounds: options.quick ? 2 : 9, log: options.log });
    } catch (error) {
      options.log(`coldstart slack interaction: ${(error as Error).message.slice(0, 400)}`);
    }
  }
  let decisionRuns: DecisionRunResult[] | undefined;
  if (only === undefined || only.has('sqs')) {
    try {
      decisionRuns = await measureDecisionRuns({ log: options.log });
    } catch (error) {
      options.log(`coldstart decision run: ${(error as Error).message.slice(0, 400)}`);
    }
  }
  let firstDecisions: FirstDecisionRow[] | undefined;
  if (only === undefined || only.has('sqs') || only.has('api')) {
    try {
      firstDecisions = await measureFirstDecisions({
        rounds: options.quick ? 2 : 30,
        ...(before.length > 0 && rev !== undefined ? { beforeRoot: join(OUT_DIR, `before-${rev}`) } : {}),
        log: options.log,
      });
    } catch (error) {
      options.log(`coldstart first decision: ${(error as Error).message.slice(0, 400)}`);
    }
  }
  for (const t of targets) {
    options.log(
      `coldstart ${t.bundle} for ${t.target}: gzip ${(t.gzipBytes / 1024).toFixed(1)} KB, ×${(t.gzipBytes / t.floorGzipBytes).toFixed(2)} its floor`,
    );
  }
  return {
    esbuild: LAMBDA_BUNDLE_OPTIONS,
    deployedNodeFlags: DEPLOYED_NODE_FLAGS,
    ...(before.length > 0 && rev !== undefined ? { beforeRev: rev } : {}),
    rows,
    targets,
    firstSchemaCheck,
    load: { before: loadBefore, after: loadAfter },
    ...(slackAck === undefined ? {} : { slackAck }),
    ...(decisionRuns === undefined ? {} : { decisionRuns }),
    ...(firstDecisions === undefined ? {} : { firstDecisions }),
  };
}

/** The SQS trigger (and, with a `before` commit, that commit's) imported and its first schema check run. */
async function firstSchemaCheckRows(before: string | undefined, rounds: number): Promise<FirstSchemaCheckRow[]> {
  const contestants = [{ name: 'sqs', root: REPO }];
  if (before !== undefined) contestants.push({ name: 'sqs (before)', root: join(OUT_DIR, `before-${before}`) });
  const built: Array<{ name: string; file: string }> = [];
  const rows: FirstSchemaCheckRow[] = [];
  const failed = (name: string, error: unknown): FirstSchemaCheckRow => ({
    name,
    importMs: Number.NaN,
    checkMs: Number.NaN,
    totalMs: Number.NaN,
    samples: 0,
    error: (error as Error).message.slice(0, 400),
  });
  for (const { name, root } of contestants) {
    try {
      const entry = schemaCheckEntry(root, `first-schema-check-${name.replace(/\W+/g, '-')}`);
      const bundle = await buildBundle({
        name: `first schema check ${name}`,
        kind: 'handler',
        entry,
        handoffTarget: 'sqs',
      });
      built.push({ name, file: bundle.file });
    } catch (error) {
      rows.push(failed(name, error));
    }
  }
  const samples = new Map(
    built.map((b) => [b.name, { imports: [] as number[], checks: [] as number[], totals: [] as number[] }]),
  );
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < built.length; k++) {
      const b = built[(round + k) % built.length] as (typeof built)[number];
      const args = [...DEPLOYED_NODE_FLAGS, '--input-type=module', '-e', SCHEMA_PROBE, pathToFileURL(b.file).href];
      const done = spawnSync(process.execPath, args, { env: LAMBDA_ENV, encoding: 'utf8' });
      const s = samples.get(b.name);
      if (done.status !== 0 || s === undefined) {
        rows.push(failed(b.name, new Error(done.stderr.trim().split('\n').slice(-3).join(' | '))));
        samples.delete(b.name);
        continue;
      }
      const { importMs, checkMs } = JSON.parse(done.stdout) as { importMs: number; checkMs: number };
      s.imports.push(importMs);
      s.checks.push(checkMs);
      s.totals.push(importMs + checkMs);
    }
  }
  for (const [name, s] of samples) {
    rows.push({
      name,
      importMs: quantile(s.imports, 0.5),
      checkMs: quantile(s.checks, 0.5),
      totalMs: quantile(s.totals, 0.5),
      samples: s.totals.length,
    });
  }
  return rows.sort((a, b) => a.name.localeCompare(b.name));
}

export { FLOOR };
