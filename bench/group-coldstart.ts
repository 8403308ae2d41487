import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { BUNDLES, type BuiltBundle, bannerDrift, buildBundle, LAMBDA_BUNDLE_OPTIONS } from './bundle.ts';
import { quantile } from './measure.ts';
import type { GroupOptions } from './options.ts';

/**
 * Group 4, cold start: each handler bundled exactly as the stack bundles it, weighed (raw, gzip) and imported in a
 * fresh `node` process, beside the DynamoDB-only floor and the peers bundled the same way. Import time is measured
 * inside the new process (`performance.now()` around `await import(bundle)`), with and without
 * `--enable-source-maps` (the stack sets it in NODE_OPTIONS, and Node then reads the source map at load). Every
 * round imports every bundle once, in a rotating order.
 */

/** One bundle's weight and import times (ms, medians over fresh processes). */
export interface ColdStartRow extends Omit<BuiltBundle, 'file' | 'entry'> {
  /** Import time with `--enable-source-maps`, as deployed. */
  importMs: number;
  importP90Ms: number;
  /** Import time without source maps. */
  importPlainMs: number;
  /** From process start to the module loaded (node's own start-up included), as deployed. */
  readyMs: number;
  samples: number;
  /** Why the bundle did not build or import. */
  error?: string;
}

export interface ColdStartResult {
  esbuild: typeof LAMBDA_BUNDLE_OPTIONS;
  bannerDrift?: string;
  rows: ColdStartRow[];
}

const PROBE = `
const started = performance.now();
await import(process.argv[1]);
const loaded = performance.now();
process.stdout.write(JSON.stringify({ importMs: loaded - started, readyMs: loaded }));
`;

/** The environment a deployed handler sees at init (the values are placeholders; nothing is called). */
const LAMBDA_ENV = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  TABLE_NAME: 'handback-bench',
  HANDOFF_TARGET: 'none',
  POWERTOOLS_SERVICE_NAME: 'handback',
  POWERTOOLS_METRICS_NAMESPACE: 'Handback',
  POWERTOOLS_LOG_LEVEL: 'INFO',
};

function importOnce(file: string, sourceMaps: boolean): { importMs: number; readyMs: number } {
  const args = [
    ...(sourceMaps ? ['--enable-source-maps'] : []),
    '--input-type=module',
    '-e',
    PROBE,
    pathToFileURL(file).href,
  ];
  const done = spawnSync(process.execPath, args, { env: LAMBDA_ENV, encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`import failed: ${done.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return JSON.parse(done.stdout) as { importMs: number; readyMs: number };
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
    mapBytes: 0,
    byPackage: [],
    importMs: Number.NaN,
    importP90Ms: Number.NaN,
    importPlainMs: Number.NaN,
    readyMs: Number.NaN,
    samples: 0,
    error,
  });
  for (const spec of BUNDLES) {
    try {
      const bundle = await buildBundle(spec);
      importOnce(bundle.file, true); // fails fast on a bundle that cannot load, and warms the disk cache
      built.push(bundle);
    } catch (error) {
      rows.push(failed(spec, (error as Error).message.slice(0, 400)));
      options.log(`coldstart ${spec.name}: ${(error as Error).message.slice(0, 400)}`);
    }
  }
  const rounds = options.quick ? 3 : 21;
  const mapped = new Map(
    built.map((b) => [b.name, { imports: [] as number[], plain: [] as number[], ready: [] as number[] }]),
  );
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < built.length; k++) {
      const bundle = built[(round + k) % built.length] as BuiltBundle;
      const m = mapped.get(bundle.name);
      if (!m) continue;
      const deployed = importOnce(bundle.file, true);
      m.imports.push(deployed.importMs);
      m.ready.push(deployed.readyMs);
      m.plain.push(importOnce(bundle.file, false).importMs);
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
      importPlainMs: quantile(m.plain, 0.5),
      readyMs: quantile(m.ready, 0.5),
      samples: m.imports.length,
    });
    const row = rows.at(-1) as ColdStartRow;
    options.log(
      `coldstart ${bundle.name.padEnd(36)} ${(bundle.bytes / 1024).toFixed(0).padStart(6)} KB, gzip ${(bundle.gzipBytes / 1024).toFixed(0).padStart(5)} KB, import ${row.importMs.toFixed(1)} ms (plain ${row.importPlainMs.toFixed(1)} ms)`,
    );
  }
  const order = new Map(BUNDLES.map((b, i) => [b.name, i]));
  rows.sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0));
  return { esbuild: LAMBDA_BUNDLE_OPTIONS, ...(drift === undefined ? {} : { bannerDrift: drift }), rows };
}
