import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import {
  BEFORE_REV,
  BUNDLES,
  type BuiltBundle,
  bannerDrift,
  beforeSpecs,
  buildBundle,
  DEPLOYED_NODE_FLAGS,
  FLOOR,
  FLOOR_ENTRIES,
  LAMBDA_BUNDLE_OPTIONS,
} from './bundle.ts';
import { quantile } from './measure.ts';
import type { GroupOptions } from './options.ts';
import { measureSlackAck, type SlackAckResult } from './slack-ack.ts';

/**
 * Group 4, cold start: each of the stack's functions bundled exactly as the stack bundles it (for the default
 * hand-off target, SQS), weighed (raw, gzip) and imported in a fresh `node` process, beside the floors and the peers
 * bundled the same way. The floor is a bundle that imports the DynamoDB document client and the configured hand-off
 * target's client; the old floor, the DynamoDB document client alone. Import time is measured inside the new process
 * (`performance.now()` around `await import(bundle)`), as deployed (with the stack's `NODE_OPTIONS`) and with
 * `--enable-source-maps` (which the stack used to set: Node then reads and parses the bundle's map at load). Every
 * round imports every bundle once, in a rotating order. The six functions as they were at `BEFORE_REV` (before each
 * was bundled for what it does) are built and imported in the same rounds, as they were deployed then (with
 * `--enable-source-maps`). Then, by weight only, the SQS trigger and the API bundled for each hand-off target
 * against that target's floor. Last, a Slack interaction acknowledged after a cold start (bench/slack-ack.ts).
 */

/** One bundle's weight and import times (ms, medians over fresh processes). */
export interface ColdStartRow extends Omit<BuiltBundle, 'file' | 'entry'> {
  /** Import time as deployed (the stack's `NODE_OPTIONS`). */
  importMs: number;
  importP90Ms: number;
  /** Import time with `--enable-source-maps`. */
  importMapsMs: number;
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
  /** The commit the "before" rows were bundled from. */
  beforeRev: string;
  bannerDrift?: string;
  rows: ColdStartRow[];
  targets: TargetRow[];
  /** A Slack interaction acknowledged after a cold start, on the local stand-ins (bench/slack-ack.ts). */
  slackAck?: SlackAckResult;
}

const PROBE = `
const started = performance.now();
await import(process.argv[1]);
const loaded = performance.now();
process.stdout.write(JSON.stringify({ importMs: loaded - started, readyMs: loaded }));
`;

/** The environment a deployed function sees at init (the values are placeholders; nothing is called). */
const LAMBDA_ENV = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  TABLE_NAME: 'handback-bench',
  HANDOFF_TARGET: 'sqs',
  HANDOFF_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/111122223333/handoff',
  EVENT_BUS_NAME: 'handback-lifecycle',
  // The channels' functions: the Slack app's secret is read on first use, never at import.
  SLACK_SECRET_ID: 'handback/slack',
  INBOX_URL: 'https://abc123.execute-api.us-east-1.amazonaws.com/inbox',
  HANDBACK_EMAIL_FROM: 'approvals@example.org',
  POWERTOOLS_SERVICE_NAME: 'handback',
  POWERTOOLS_METRICS_NAMESPACE: 'Handback',
  POWERTOOLS_LOG_LEVEL: 'INFO',
};

/**
 * The email function's link key, given to it alone: the functions as they were at `BEFORE_REV` read the key at
 * import, which fails with no Secrets Manager to answer; the functions now read it on first use.
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

const MAPS = ['--enable-source-maps'];

/** The SQS trigger and the API bundled for every hand-off target, by gzip bytes against each target's floor. */
async function targetRows(): Promise<TargetRow[]> {
  const rows: TargetRow[] = [];
  const gzip = (file: string) => gzipSync(readFileSync(file), { level: 9 }).length;
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
        gzipBytes: gzip(built.file),
        floorGzipBytes: gzip(floor.file),
        oldFloorGzipBytes: gzip(oldFloor.file),
      });
    }
  }
  return rows;
}

export async function runColdStart(options: GroupOptions): Promise<ColdStartResult> {
  const drift = bannerDrift();
  if (drift !== undefined) options.log(`warning: ${drift}`);
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
    importMs: Number.NaN,
    importP90Ms: Number.NaN,
    importMapsMs: Number.NaN,
    readyMs: Number.NaN,
    samples: 0,
    error,
  });
  const before = beforeSpecs() ?? [];
  if (before.length === 0) options.log(`coldstart: commit ${BEFORE_REV} not found; no before-and-after`);
  for (const spec of [...BUNDLES, ...before]) {
    try {
      const bundle = await buildBundle(spec);
      // Fails fast on a bundle that cannot load, and warms the disk cache.
      importOnce(bundle.file, spec.kind === 'before' ? MAPS : DEPLOYED_NODE_FLAGS, spec.name);
      built.push(bundle);
    } catch (error) {
      rows.push(failed(spec, (error as Error).message.slice(0, 400)));
      options.log(`coldstart ${spec.name}: ${(error as Error).message.slice(0, 400)}`);
    }
  }
  const rounds = options.quick ? 3 : 21;
  const mapped = new Map(
    built.map((b) => [b.name, { imports: [] as number[], maps: [] as number[], ready: [] as number[] }]),
  );
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < built.length; k++) {
      const bundle = built[(round + k) % built.length] as BuiltBundle;
      const m = mapped.get(bundle.name);
      if (!m) continue;
      // Which of the two imports goes first alternates by round, so neither always gets the warmer disk cache. The
      // functions as they were deployed before ran with --enable-source-maps: that is their "as deployed".
      const withMaps = () => m.maps.push(importOnce(bundle.file, MAPS, bundle.name).importMs);
      if (round % 2 === 1) withMaps();
      const deployed = importOnce(bundle.file, bundle.kind === 'before' ? MAPS : DEPLOYED_NODE_FLAGS, bundle.name);
      m.imports.push(deployed.importMs);
      m.ready.push(deployed.readyMs);
      if (round % 2 === 0) withMaps();
    }
  }
  for (const bundle of built) {
    const m = mapped.get(bundle.name);
    if (!m) continue;
    const { file: _file, entry: _entry, ...weight } = bundle;
    rows.push({
      ...weight,
      importMs: quantile(m.imports, 0.5),
      importP90Ms: quantile(m.imports, 0.9),
      importMapsMs: quantile(m.maps, 0.5),
      readyMs: quantile(m.ready, 0.5),
      samples: m.imports.length,
    });
    const row = rows.at(-1) as ColdStartRow;
    options.log(
      `coldstart ${bundle.name.padEnd(36)} ${(bundle.bytes / 1024).toFixed(0).padStart(6)} KB, gzip ${(bundle.gzipBytes / 1024).toFixed(0).padStart(5)} KB, import ${row.importMs.toFixed(1)} ms (with maps ${row.importMapsMs.toFixed(1)} ms)`,
    );
  }
  const order = new Map([...BUNDLES, ...before].map((b, i) => [b.name, i]));
  rows.sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0));
  const targets = await targetRows();
  let slackAck: SlackAckResult | undefined;
  try {
    slackAck = await measureSlackAck({ rounds: options.quick ? 2 : 9, log: options.log });
  } catch (error) {
    options.log(`coldstart slack interaction: ${(error as Error).message.slice(0, 400)}`);
  }
  for (const t of targets) {
    options.log(
      `coldstart ${t.bundle} for ${t.target}: gzip ${(t.gzipBytes / 1024).toFixed(1)} KB, ×${(t.gzipBytes / t.floorGzipBytes).toFixed(2)} its floor`,
    );
  }
  return {
    esbuild: LAMBDA_BUNDLE_OPTIONS,
    deployedNodeFlags: DEPLOYED_NODE_FLAGS,
    beforeRev: BEFORE_REV,
    ...(drift === undefined ? {} : { bannerDrift: drift }),
    rows,
    targets,
    ...(slackAck === undefined ? {} : { slackAck }),
  };
}

export { FLOOR };
