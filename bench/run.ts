import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine } from './measure.ts';
import type { GroupOptions } from './options.ts';

/**
 * `npm run bench [-- GROUP…] [-- --quick]`: runs each benchmark group in a fresh process of its own (its contestants
 * interleaved inside it), merges what they measured into bench/results/latest.json (groups not run keep their last
 * numbers), and writes bench/REPORT.md and bench/results/resume-cost.svg from it.
 *
 * Groups: rehydrate (1), store (2), cost (3), coldstart (4), peers (5), scale (6). `--report` only rewrites the report
 * from latest.json.
 */

const BENCH = dirname(fileURLToPath(import.meta.url));
const RESULTS = join(BENCH, 'results');
const PARTS = join(RESULTS, 'parts');
const PEERS = join(BENCH, 'peers');

export const GROUPS = ['rehydrate', 'store', 'cost', 'coldstart', 'peers', 'scale'] as const;
export type Group = (typeof GROUPS)[number];

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
  }
}

/** In a child: run one group, write its part file. */
async function child(group: Group, quick: boolean): Promise<void> {
  const started = Date.now();
  const result = await runGroup(group, { quick, log });
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

async function parent(groups: Group[], quick: boolean): Promise<void> {
  ensurePeers();
  const command = `npm run bench${groups.length < GROUPS.length || quick ? ` -- ${[...groups, ...(quick ? ['--quick'] : [])].join(' ')}` : ''}`;
  const latestPath = join(RESULTS, 'latest.json');
  const latest = existsSync(latestPath)
    ? (JSON.parse(readFileSync(latestPath, 'utf8')) as Record<string, unknown>)
    : { groups: {} };
  const all = (latest.groups ?? {}) as Record<string, unknown>;
  for (const group of groups) {
    log(`\n== ${group}${quick ? ' (quick)' : ''}`);
    const done = spawnSync(
      process.execPath,
      [
        '--no-warnings',
        '--import',
        'tsx',
        '--expose-gc',
        fileURLToPath(import.meta.url),
        '--child',
        group,
        ...(quick ? ['--quick'] : []),
      ],
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
  mkdirSync(RESULTS, { recursive: true });
  const merged = { machine: machine(), groups: all };
  writeFileSync(latestPath, `${JSON.stringify(merged, null, 2)}\n`);
  const { writeReport } = await import('./report.ts');
  writeReport(merged, BENCH);
  log(`\nwrote ${latestPath}, bench/REPORT.md and bench/results/resume-cost.svg`);
}

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const childIndex = args.indexOf('--child');
if (args.includes('--report')) {
  // Rewrite REPORT.md and the chart from latest.json without measuring anything.
  const merged = JSON.parse(readFileSync(join(RESULTS, 'latest.json'), 'utf8'));
  const { writeReport } = await import('./report.ts');
  writeReport(merged, BENCH);
  log('wrote bench/REPORT.md and bench/results/resume-cost.svg from bench/results/latest.json');
} else if (childIndex >= 0) {
  await child(args[childIndex + 1] as Group, quick);
} else {
  const named = args.filter((a): a is Group => (GROUPS as readonly string[]).includes(a));
  const unknown = args.filter((a) => a !== '--quick' && !(GROUPS as readonly string[]).includes(a));
  if (unknown.length > 0) {
    log(`unknown argument(s) ${unknown.join(' ')}: groups are ${GROUPS.join(', ')}, plus --quick (or --report alone)`);
    process.exit(2);
  }
  await parent(named.length > 0 ? named : [...GROUPS], quick);
}
