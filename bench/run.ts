import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine } from './measure.ts';
import type { GroupOptions } from './options.ts';

/**
 * `npm run bench [-- GROUP…] [--quick] [--write]`: runs each benchmark group in a fresh process of its own (its
 * contestants interleaved inside it) and merges what they measured over the committed bench/results/latest.json
 * (groups not run keep their committed numbers). The merged results, the report and its chart go to bench/out/
 * (gitignored); only `--write` puts them in place of the committed bench/results/latest.json, bench/REPORT.md and
 * bench/results/resume-cost.svg, so a smoke run never rewrites the published numbers by accident.
 *
 * Groups: rehydrate (1), store (2), cost (3), coldstart (4), peers (5), scale (6), expiry (7), validators (8), policy
 * (9), keys (10), sweep (11); each is described in bench/README.md. `--before=<rev>` also measures the functions of that commit where a group
 * compares (coldstart). `--report` measures nothing and renders the report from the committed latest.json (into bench/out/, or
 * in place with `--write`).
 */

const BENCH = dirname(fileURLToPath(import.meta.url));
const RESULTS = join(BENCH, 'results');
const PARTS = join(RESULTS, 'parts');
const PEERS = join(BENCH, 'peers');
const OUT = join(BENCH, 'out');
const OPTIONS = ['--quick', '--write', '--report'];

/** Where a run's results, report and chart go: in place of the committed ones, or beside them in bench/out/. */
function destination(write: boolean): { latest: string; report: string; chart: string } {
  return write
    ? {
        latest: join(RESULTS, 'latest.json'),
        report: join(BENCH, 'REPORT.md'),
        chart: join(RESULTS, 'resume-cost.svg'),
      }
    : { latest: join(OUT, 'latest.json'), report: join(OUT, 'REPORT.md'), chart: join(OUT, 'resume-cost.svg') };
}

function rel(path: string): string {
  return relative(join(BENCH, '..'), path);
}

function wrote(write: boolean, to: ReturnType<typeof destination>): void {
  log(`\nwrote ${[to.latest, to.report, to.chart].map(rel).join(', ')}`);
  if (!write) log('The committed bench/REPORT.md and bench/results/ are unchanged: add --write to replace them.');
}

export const GROUPS = [
  'rehydrate',
  'store',
  'cost',
  'coldstart',
  'peers',
  'scale',
  'expiry',
  'validators',
  'policy',
  // §23
  'keys',
  'sweep',
  'ladders',
] as const;
export type Group = (typeof GROUPS)[number];

/** The groups that import bench/peers' packages (installed on first use). */
const PEER_GROUPS: readonly Group[] = ['cost', 'peers', 'validators'];

const log = (line: string) => process.stderr.write(`${line}\n`);

async function runGroup(group: Group, options: GroupOptions): Promise<unknown> {
  switch (group) {
    case 'rehydrate':
      return (await import('./group-rehydrate.ts')).runRehydrate(options);
    case 'store':
      return (await import('./group-store.ts')).runStore(options);
    case 'cost':
      return (await import('./group-store.ts')).runCost(options);
    case 'coldstart':
      return (await import('./group-coldstart.ts')).runColdStart(options);
    case 'peers':
      return (await import('./group-peers.ts')).runPeers(options);
    case 'scale':
      return (await import('./group-store.ts')).runScale(options);
    case 'expiry':
      return (await import('./group-expiry.ts')).runExpiry(options);
    case 'validators':
      return (await import('./group-validators.ts')).runValidators(options);
    case 'policy':
      return (await import('./group-policy.ts')).runPolicy(options);
    case 'keys':
      return (await import('./group-keys.ts')).runKeys(options);
    case 'sweep':
      return (await import('./group-sweep.ts')).runSweep(options);
    case 'ladders':
      return (await import('./sweep-ladders.ts')).runLadders(options);
  }
}

/** In a child: run one group, write its part file. */
async function child(group: Group, quick: boolean, before: string | undefined): Promise<void> {
  const started = Date.now();
  const result = await runGroup(group, { quick, log, ...(before === undefined ? {} : { before }) });
  mkdirSync(PARTS, { recursive: true });
  writeFileSync(
    join(PARTS, `${group}.json`),
    JSON.stringify({ group, quick, machine: machine(), seconds: (Date.now() - started) / 1000, result }, null, 2),
  );
}

function ensurePeers(): void {
  if (existsSync(join(PEERS, 'node_modules'))) return;
  log('bench/peers/node_modules is missing: npm ci --prefix bench/peers');
  const done = spawnSync('npm', ['ci', '--prefix', PEERS, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (done.status !== 0) throw new Error('npm ci --prefix bench/peers failed; the peers cannot be measured.');
}

async function parent(groups: Group[], quick: boolean, write: boolean, before: string | undefined): Promise<void> {
  // These groups run the peers' own versions; the coldstart group bundles them from what resolves.
  if (groups.some((group) => PEER_GROUPS.includes(group))) ensurePeers();
  const flags = [...(quick ? ['--quick'] : []), ...(before === undefined ? [] : [`--before=${before}`])];
  const command = `npm run bench${groups.length < GROUPS.length || flags.length > 0 ? ` -- ${[...groups, ...flags].join(' ')}` : ''}`;
  const committed = join(RESULTS, 'latest.json');
  const latest = existsSync(committed)
    ? (JSON.parse(readFileSync(committed, 'utf8')) as Record<string, unknown>)
    : { groups: {} };
  const all = (latest.groups ?? {}) as Record<string, unknown>;
  for (const group of groups) {
    log(`\n== ${group}${quick ? ' (quick)' : ''}`);
    const done = spawnSync(
      process.execPath,
      ['--no-warnings', '--import', 'tsx', '--expose-gc', fileURLToPath(import.meta.url), '--child', group, ...flags],
      { stdio: 'inherit', cwd: join(BENCH, '..') },
    );
    const partPath = join(PARTS, `${group}.json`);
    if (done.status !== 0 || !existsSync(partPath)) {
      log(`group ${group} failed (exit ${done.status}); its previous numbers, if any, are kept`);
      continue;
    }
    const part = JSON.parse(readFileSync(partPath, 'utf8')) as Record<string, unknown>;
    all[group] = { ...part, command };
  }
  const to = destination(write);
  mkdirSync(dirname(to.latest), { recursive: true });
  const merged = { machine: machine(), groups: all };
  writeFileSync(to.latest, `${JSON.stringify(merged, null, 2)}\n`);
  const { writeReport } = await import('./report.ts');
  writeReport(merged, BENCH, to);
  wrote(write, to);
}

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const before = args.find((a) => a.startsWith('--before='))?.slice('--before='.length) || undefined;
const write = args.includes('--write');
const childIndex = args.indexOf('--child');
if (childIndex >= 0) {
  await child(args[childIndex + 1] as Group, quick, before);
} else {
  const named = args.filter((a): a is Group => (GROUPS as readonly string[]).includes(a));
  const unknown = args.filter(
    (a) => !OPTIONS.includes(a) && !a.startsWith('--before=') && !(GROUPS as readonly string[]).includes(a),
  );
  if (unknown.length > 0) {
    log(
      `unknown argument(s) ${unknown.join(' ')}: groups are ${GROUPS.join(', ')}, plus --quick, --before=<rev> and --write (or --report, with or without --write)`,
    );
    process.exit(2);
  }
  if (args.includes('--report')) {
    // Render the report and the chart from the committed latest.json without measuring anything.
    const to = destination(write);
    const merged = JSON.parse(readFileSync(join(RESULTS, 'latest.json'), 'utf8'));
    mkdirSync(dirname(to.report), { recursive: true });
    const { writeReport } = await import('./report.ts');
    writeReport(merged, BENCH, to);
    log(`wrote ${rel(to.report)} and ${rel(to.chart)} from bench/results/latest.json`);
    if (!write) log('The committed bench/REPORT.md is unchanged: add --write to replace it.');
  } else {
    await parent(named.length > 0 ? named : [...GROUPS], quick, write, before);
  }
}
