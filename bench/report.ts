import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { lineChart, type Series } from './chart.ts';
import type { DecisionRunResult, RunPart } from './decision-run.ts';
import { FIRST_DECISION_FLOOR, FIRST_DECISION_ON_FIRST_CALL, type FirstDecisionRow } from './first-decision.ts';
import type { ColdStartResult, ColdStartRow } from './group-coldstart.ts';
import type { ExpiryResult } from './group-expiry.ts';
import { PRICES } from './group-expiry.ts';
import type { KeysResult } from './group-keys.ts';
import type { PeersResult } from './group-peers.ts';
import type { PolicyResult } from './group-policy.ts';
import type { RehydrateRow } from './group-rehydrate.ts';
import type { CostResult, ScaleResult, StoreRow } from './group-store.ts';
import type { SweepResult } from './group-sweep.ts';
import type { ValidatorsResult } from './group-validators.ts';
import type { Machine } from './measure.ts';
import { keysSection, millionSection } from './report-scale.ts';
import type { LadderRun } from './sweep-ladders.ts';

/**
 * bench/REPORT.md and bench/results/resume-cost.svg from bench/results/latest.json: tables only — every table with its
 * ratios and the command and machine that produced it, and each target with what was measured and whether it was met.
 * What each group measures is in bench/README.md; what the numbers mean for the design, in docs/choices.md.
 */

interface Part<T> {
  group: string;
  quick: boolean;
  machine: Machine;
  seconds: number;
  command: string;
  result: T;
}

export interface Results {
  machine: Machine;
  groups: {
    rehydrate?: Part<RehydrateRow[]>;
    store?: Part<StoreRow[]>;
    cost?: Part<CostResult>;
    coldstart?: Part<ColdStartResult>;
    peers?: Part<PeersResult>;
    scale?: Part<ScaleResult>;
    expiry?: Part<ExpiryResult>;
    validators?: Part<ValidatorsResult>;
    policy?: Part<PolicyResult>;
    // §23
    keys?: Part<KeysResult>;
    sweep?: Part<SweepResult>;
    // §21
    ladders?: Part<LadderRun>;
  };
}

const us = (value: number | undefined) => {
  if (value === undefined || !Number.isFinite(value)) return '–';
  if (value >= 1_000_000) return `${(value / 1_000_000).toFixed(2)} s`;
  if (value >= 1000) return `${(value / 1000).toFixed(2)} ms`;
  return `${value.toFixed(1)} µs`;
};
const x = (ratio: number | undefined, digits = 2) =>
  ratio === undefined || !Number.isFinite(ratio) ? '–' : `×${ratio.toFixed(ratio >= 100 ? 0 : digits)}`;
const kb = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MB` : `${(bytes / 1024).toFixed(1)} KB`;
const table = (head: string[], rows: string[][]) =>
  [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

function provenance(part: Part<unknown>): string {
  const m = part.machine;
  return `_Measured by \`${part.command}\`${part.quick ? ' (**--quick: a smoke run, not for conclusions**)' : ''} on ${m.date.slice(0, 16).replace('T', ' ')} UTC, ${part.seconds.toFixed(0)} s; Node ${m.node}, ${m.nproc} cores (${m.cpu}), load average ${m.loadavg} when it ended._`;
}

interface Verdict {
  target: string;
  measured: string;
  met: boolean | undefined;
}

function rehydrateSection(part: Part<RehydrateRow[]> | undefined, verdicts: Verdict[]): string {
  if (!part) return '## 1. Rehydration CPU\n\nNot measured yet: `npm run bench -- rehydrate`.\n';
  const rows = part.result;
  const formats = [...new Set(rows.map((r) => r.format))];
  const cell = (format: string, size: number, key: 'trusted' | 'validating') => {
    const r = rows.find((row) => row.format === format && row.messages === size);
    if (!r) return '–';
    if (r.error) return 'n/a';
    return x(r.ratios?.[key]);
  };
  const bySize = [...new Set(rows.map((r) => Math.round(r.messages / 10) * 10))];
  const floorRow = (size: number) =>
    rows.find((r) => r.format === 'openai-chat' && Math.round(r.messages / 10) * 10 === size)?.stats?.floor?.medianUs;
  const errors = rows.filter((r) => r.error);
  const trustedAt100 = rows
    .filter((r) => r.messages >= 100 && !r.error)
    .map((r) => ({ r, ratio: r.ratios?.trusted ?? Number.NaN }));
  const worst = trustedAt100.sort((a, b) => b.ratio - a.ratio)[0];
  verdicts.push({
    target: 'Rehydration (trusted resume path) ≤ 1.5× the floor at ≥ 100 messages',
    measured: worst ? `worst ${x(worst.ratio)} (${worst.r.format}, ${worst.r.messages} messages)` : '–',
    met: worst ? worst.ratio <= 1.5 : undefined,
  });
  return [
    '## 1. Rehydration CPU',
    '',
    provenance(part),
    '',
    table(
      ['format', ...bySize.flatMap((s) => [`${s} msgs trusted`, `${s} msgs validating`])],
      formats.map((f) => [
        f,
        ...bySize.flatMap((s) => {
          const size = rows.find((r) => r.format === f && Math.round(r.messages / 10) * 10 === s)?.messages ?? s;
          return [cell(f, size, 'trusted'), cell(f, size, 'validating')];
        }),
      ]),
    ),
    '',
    table(
      ['floor median (openai-chat)', ...bySize.map((s) => `${s} msgs`)],
      [['JSON.parse + append', ...bySize.map((s) => us(floorRow(s)))]],
    ),
    '',
    errors.length > 0
      ? `\nNot measured: ${errors.map((e) => `${e.format} at ${e.messages} (${e.error})`).join('; ')}.`
      : '',
    '',
  ].join('\n');
}

/** The store targets: at most this many times the raw floor, p50, by transcript size. */
const STORE_TARGETS: Record<string, number> = { '1 MB': 1.3, '10 MB': 1.5 };

function storeSection(part: Part<StoreRow[]> | undefined, verdicts: Verdict[]): string {
  if (!part) return '## 2. Resume through the store\n\nNot measured yet: `npm run bench -- store`.\n';
  const rows = part.result;
  const judged = rows.filter((r) => STORE_TARGETS[r.label] !== undefined);
  const missed = judged.filter((r) => r.ratioP50 > (STORE_TARGETS[r.label] ?? 0));
  verdicts.push({
    target:
      'Resume through the store ≤ 1.3× the raw DynamoDB floor at 1 MB and ≤ 1.5× at 10 MB (p50), the hash of the stored bytes and the shape of the handed-on round still checked',
    measured: judged.map((r) => `${r.label} ${x(r.ratioP50)} (p99 ${x(r.ratioP99)})`).join('; '),
    met: judged.length > 0 ? missed.length === 0 : undefined,
  });
  return [
    '## 2. Resume through the store (embedded DynamoDB-compatible server)',
    '',
    provenance(part),
    '',
    table(
      [
        'transcript',
        'messages',
        'samples',
        'Handback p50',
        'Handback p99',
        'floor p50',
        'floor p99',
        'p50 ratio',
        'p99 ratio',
        'paired ratio (median)',
        'target (p50)',
      ],
      rows.map((r) => [
        `${r.label} (${kb(r.jsonBytes)})`,
        String(r.messages),
        String(r.handback.samples),
        us(r.handback.medianUs),
        us(r.handback.p99Us),
        us(r.floor.medianUs),
        us(r.floor.p99Us),
        x(r.ratioP50),
        x(r.ratioP99),
        x(r.pairedRatio),
        STORE_TARGETS[r.label] === undefined ? '–' : `≤ ×${STORE_TARGETS[r.label]}`,
      ]),
    ),
    '',
    table(
      [
        'transcript',
        'decode (sha256 + inflate + parse of the round)',
        'decode, whole (parse of everything)',
        'rebuildTranscript',
        'continuation hash (sha256 of the rebuilt round)',
        'sum',
        'Handback p50 − floor p50',
      ],
      rows.map((r) => [
        r.label,
        us(r.breakdown?.decodeUs),
        us(r.breakdown?.decodeWholeUs),
        us(r.breakdown?.rebuildUs),
        us(r.breakdown?.continuationHashUs),
        us((r.breakdown?.decodeUs ?? 0) + (r.breakdown?.rebuildUs ?? 0) + (r.breakdown?.continuationHashUs ?? 0)),
        us(r.handback.medianUs - r.floor.medianUs),
      ]),
    ),
    '',
  ].join('\n');
}

function costSection(part: Part<CostResult> | undefined, verdicts: Verdict[]): string {
  if (!part) return '## 3. DynamoDB cost\n\nNot measured yet: `npm run bench -- cost`.\n';
  const { rows, peers, capacityReported, errors } = part.result;
  const oneRead = rows.every((r) => r.resume.awsReadRequests === 1 && r.resume.writeRequests === 1);
  const noTransactions = rows.every((r) => (r.transactions ?? 0) === 0);
  const wcus = rows.map((r) => r.resume.reportedWriteUnits ?? r.resume.writeUnits);
  const oneWcu = wcus.every((w) => w === 1);
  // The incompressible row is there for the one-read promise; the storage target is about transcripts as agents write them.
  const from100k = rows.filter((r) => r.jsonBytes >= 100 * 1000 && !r.label.includes('random'));
  const worstStored = [...from100k].sort((a, b) => b.storedRatio - a.storedRatio)[0];
  verdicts.push({
    target:
      'One read request per resume at every size up to 16 MB, one conditional write, no transactions (on DynamoDB; dynalite shown beside)',
    measured:
      rows
        .map(
          (r) =>
            `${r.label}: ${r.resume.awsReadRequests} + ${r.resume.writeRequests}${r.resume.readRequests !== r.resume.awsReadRequests ? ` (dynalite ${r.resume.readRequests} + ${r.resume.writeRequests})` : ''}`,
        )
        .join('; ') + (noTransactions ? '; no transactions' : '; **a transaction**'),
    met: rows.length > 0 ? oneRead && noTransactions : undefined,
  });
  verdicts.push({
    target: '1 WCU per resume (not growing with the transcript)',
    measured: `${wcus.join(', ')} WCU for ${rows.map((r) => r.label).join(', ')}${capacityReported ? ' (as the server reported them)' : ''}`,
    met: rows.length > 0 ? oneWcu : undefined,
  });
  verdicts.push({
    target: 'Stored bytes ≤ 0.25× the transcript JSON from 100 KB up',
    measured: worstStored ? `worst ${worstStored.storedRatio.toFixed(3)}× (${worstStored.label})` : '–',
    met: worstStored ? worstStored.storedRatio <= 0.25 : undefined,
  });
  return [
    '## 3. DynamoDB cost per resume and bytes stored per pause',
    '',
    provenance(part),
    '',
    table(
      [
        'transcript',
        'JSON',
        'items per pause',
        'bytes stored',
        'stored / JSON',
        'pause WCU',
        'resume requests on DynamoDB (read + write)',
        'on dynalite',
        'resume RCU (reported / computed)',
        'resume WCU (reported / computed)',
        'transactions',
        'floor requests (dynalite)',
      ],
      rows.map((r) => [
        r.label,
        kb(r.jsonBytes),
        String(r.pauseItems),
        kb(r.storedBytes),
        `${r.storedRatio.toFixed(3)}×`,
        String(r.pauseWriteUnits),
        `${r.resume.awsReadRequests} + ${r.resume.writeRequests}`,
        `${r.resume.readRequests} + ${r.resume.writeRequests}`,
        `${r.resume.reportedReadUnits ?? '–'} / ${r.resume.readUnits}`,
        `${r.resume.reportedWriteUnits ?? '–'} / ${r.resume.writeUnits}`,
        String(r.transactions ?? 0),
        String(r.floorRequests),
      ]),
    ),
    '',
    '### Stored bytes per pause beside the peers',
    '',
    table(
      ['transcript', 'peer', 'JSON', 'peer stores', 'peer / JSON', 'Handback stores', 'Handback / JSON'],
      peers.map((p) => [
        `${p.label} (${p.format})`,
        p.peer,
        kb(p.jsonBytes),
        kb(p.storedBytes),
        `${(p.storedBytes / p.jsonBytes).toFixed(2)}×`,
        kb(p.handbackStoredBytes),
        `${(p.handbackStoredBytes / p.jsonBytes).toFixed(3)}×`,
      ]),
    ),
    errors.length > 0 ? `\nErrors: ${errors.join('; ')}` : '',
    '',
    millionSection(part, verdicts),
  ].join('\n');
}

/** The cold-start targets: gzip at init and import, each against the floor of the clients it uses. */
const COLD_TARGETS: Array<{ names: string[]; label: string; gzip: number; import: number; floor: string }> = [
  { names: ['api'], label: 'API (a request without a schema)', gzip: 1.35, import: 1.3, floor: 'the floor' },
  {
    names: ['step-functions', 'sqs', 'eventbridge', 'sweeper'],
    label: 'Step Functions, SQS and EventBridge resume, and the sweep',
    gzip: 1.2,
    import: 1.15,
    floor: 'the floor',
  },
  {
    names: ['lifecycle-events', 'slack-events', 'email-events'],
    label: 'lifecycle and channel functions',
    gzip: 1.2,
    import: 1.2,
    floor: 'their own floors',
  },
  { names: ['slack-interactions'], label: 'Slack interactions', gzip: 1.3, import: 1.3, floor: 'the Slack floor' },
  { names: ['mcp'], label: 'MCP (§23)', gzip: 1.3, import: 1.3, floor: 'the floor' },
];

const PART_NAMES = { handback: "Handback's code", zod: 'zod', sdk: 'the SDK and other packages' } as const;

/**
 * What a function's requests run of its init (bench/decision-run.ts), each part beside what it weighs there, and what
 * an init holding only what ran would weigh against the floor: the least (what the requests alone ran) and the most
 * (with what init ran).
 */
function decisionRunLines(run: DecisionRunResult, floor: ColdStartRow | undefined): string[] {
  const ours = run.parts.filter((p) => p.part !== 'sdk');
  const sum = (pick: (p: RunPart) => number) => ours.reduce((total, p) => total + pick(p), 0);
  const bound = (extra: number) => (floor === undefined ? '–' : x((floor.gzipBytes + extra) / floor.gzipBytes));
  const done = run.bundle === 'sqs' ? 'each resumed its pause' : 'each answered as it should';
  return [
    table(
      [
        `what the ${run.bundle} function's init holds (${run.decided.join(', ')}: ${run.allResumed ? done : 'not all did'})`,
        'at init',
        'run by init or the requests',
        'run by the requests alone',
      ],
      run.parts.map((p) => [
        PART_NAMES[p.part],
        `${kb(p.bytes)} (gzip ${kb(p.gzipBytes)})`,
        `${kb(p.ranBytes)} (gzip ${kb(p.ranGzipBytes)})`,
        `${kb(p.decisionsRanBytes)} (gzip ${kb(p.decisionsRanGzipBytes)})`,
      ]),
    ),
    '',
    `The floor's gzip at init with Handback's code and zod as far as they ran (${run.bundle}): ${bound(sum((p) => p.decisionsRanGzipBytes))} with what the requests alone ran, ${bound(sum((p) => p.ranGzipBytes))} with what init ran too (the gzip of the bytes that ran, concatenated: an estimate).`,
    '',
    ...(run.schemasBuilt === undefined
      ? []
      : [
          `zod schemas the ${run.bundle} function built (calls of zod's \`$ZodType\` initializer, by the same coverage): ${run.schemasBuilt.init} by init, ${run.schemasBuilt.requests} by the requests.`,
          '',
        ]),
    table(
      [`Handback's modules at the ${run.bundle} function's init, by bytes no request ran`, 'at init', 'ran'],
      run.idle.slice(0, 10).map((m) => [`\`${m.module}\``, kb(m.bytes), kb(m.ranBytes)]),
    ),
    '',
  ];
}

function coldStartSection(part: Part<ColdStartResult> | undefined, verdicts: Verdict[]): string {
  if (!part) return '## 4. Cold start\n\nNot measured yet: `npm run bench -- coldstart`.\n';
  const {
    rows,
    targets,
    deployedNodeFlags,
    beforeRev,
    firstSchemaCheck,
    load,
    slackAck,
    decisionRuns,
    firstDecisions,
  } = part.result;
  const byName = new Map(rows.map((r) => [r.name, r]));
  const floorOf = (r?: ColdStartRow) => (r === undefined ? undefined : byName.get(r.floor ?? 'dynamodb + sqs (floor)'));
  const gz = (r?: ColdStartRow, f?: ColdStartRow) => (r && f ? r.gzipBytes / f.gzipBytes : Number.NaN);
  const im = (r?: ColdStartRow, f?: ColdStartRow) => (r && f ? r.importMs / f.importMs : Number.NaN);
  for (const t of COLD_TARGETS) {
    const measured = t.names.map((n) => byName.get(n)).filter((r): r is ColdStartRow => r !== undefined && !r.error);
    const missing = t.names.filter((n) => !byName.has(n));
    const met = measured.every((r) => gz(r, floorOf(r)) <= t.gzip && im(r, floorOf(r)) <= t.import);
    verdicts.push({
      target: `${t.label}: gzip at init ≤ ${t.gzip}×, cold import ≤ ${t.import}× ${t.floor}`,
      measured: [
        ...measured.map((r) => `${r.name} ${x(gz(r, floorOf(r)))} / ${x(im(r, floorOf(r)))}`),
        ...missing.map((n) => `${n}: measured after merge (not in this tree)`),
      ].join('; '),
      met: measured.length === 0 ? undefined : met,
    });
  }
  // Rows measured before this check was in the bench have no `onUseAtInit`: not measured, never "met".
  const functions = rows.filter((r) => r.kind === 'handler' && !r.error);
  const checked = functions.filter((r) => r.onUseAtInit !== undefined);
  const loadedAtInit = checked.flatMap((r) =>
    (r.onUseAtInit ?? []).map((part) => `${r.name}: ${part.name} ${kb(part.bytes)}`),
  );
  verdicts.push({
    target: `S3, the directory, metrics, traces, the JSON Schema checks and the policies loaded only by the requests that use them: none in what any function's init loads (§23)`,
    measured:
      checked.length === 0
        ? '–'
        : loadedAtInit.length === 0
          ? `none at init in the ${checked.length} functions`
          : loadedAtInit.join('; '),
    met: checked.length === 0 ? undefined : loadedAtInit.length === 0,
  });
  if (slackAck !== undefined) {
    verdicts.push({
      target: 'A Slack interaction acknowledged within 1 s of a cold start, on the local stand-in',
      measured: `${slackAck.ackFromStartMs.toFixed(0)} ms from process start (p90 ${slackAck.ackFromStartP90Ms.toFixed(0)} ms): import ${slackAck.importMs.toFixed(0)} ms + first click ${slackAck.firstRequestMs.toFixed(0)} ms, ${slackAck.rounds} cold starts${slackAck.allDecided ? '' : '; not every click was decided'}`,
      met: slackAck.allDecided && slackAck.ackFromStartMs <= 1_000,
    });
    if (slackAck.warmRequestMs !== undefined) {
      verdicts.push({
        target:
          "A warm container's Slack click acknowledged well inside Slack's 3 s (within 300 ms), on the local stand-in",
        measured: `${slackAck.warmRequestMs.toFixed(0)} ms (p90 ${slackAck.warmRequestP90Ms.toFixed(0)} ms), the second click of each of ${slackAck.rounds} containers`,
        met: slackAck.allDecided && slackAck.warmRequestP90Ms <= 300,
      });
    }
  }
  const first = (name: string) => firstSchemaCheck?.find((r) => r.name === name && !r.error);
  const nowCheck = first('sqs');
  const beforeCheck = first('sqs (before)');
  verdicts.push({
    target:
      'A first request that needs the validator pays for it once: cold import + first schema check, against a `--before=<rev>` commit',
    measured:
      nowCheck && beforeCheck
        ? `SQS trigger ${nowCheck.totalMs.toFixed(0)} ms (import ${nowCheck.importMs.toFixed(0)} + check ${nowCheck.checkMs.toFixed(0)}) against ${beforeCheck.totalMs.toFixed(0)} ms at \`${beforeRev}\` (${beforeCheck.importMs.toFixed(0)} + ${beforeCheck.checkMs.toFixed(0)})`
        : '–',
    met: nowCheck && beforeCheck ? nowCheck.totalMs <= beforeCheck.totalMs * 1.05 : undefined,
  });
  // Amendment 5 of the spec: what a person waits for, the import and the first decision, held against the same
  // function with nothing at init and reported against the floor's first request.
  const decided = (name: string) => firstDecisions?.find((r) => r.name === name);
  const lazy = decided(FIRST_DECISION_ON_FIRST_CALL);
  const floorFirst = decided(FIRST_DECISION_FLOOR);
  const held = ['sqs', 'api'].map(decided).filter((r) => r !== undefined);
  verdicts.push({
    target:
      'An approve after a cold start (import + first decision) quicker as bundled than with nothing at init (the SQS trigger’s handler loaded by its first call), reported against the floor’s first request',
    measured:
      lazy && floorFirst && held.length > 0
        ? `${held.map((r) => `${r.name} ${r.totalMs.toFixed(1)} ms (×${(r.totalMs / floorFirst.totalMs).toFixed(2)})`).join(', ')}; with nothing at init ${lazy.totalMs.toFixed(1)} ms (×${(lazy.totalMs / floorFirst.totalMs).toFixed(2)}); the floor ${floorFirst.totalMs.toFixed(1)} ms`
        : '–',
    met: lazy && held.length > 0 ? (decided('sqs')?.totalMs ?? Number.POSITIVE_INFINITY) < lazy.totalMs : undefined,
  });
  // §21: a deployment without an OTLP endpoint reads the traces' front alone at init, none of the spans' code.
  const traced = rows.filter((r) => r.kind === 'handler' && !r.error && r.traces !== undefined);
  verdicts.push({
    target: 'Traces (§21): without an OTLP endpoint, init reads none of the spans’ code and no OpenTelemetry package',
    measured:
      traced.length === 0
        ? 'measured after merge (not in these results)'
        : `${traced.filter((r) => r.traces?.spanCodeAtInitBytes === 0).length} of ${traced.length} functions read none (the front, ${kb(Math.max(...traced.map((r) => r.traces?.frontAtInitBytes ?? 0)))} minified at most)`,
    met: traced.length === 0 ? undefined : traced.every((r) => r.traces?.spanCodeAtInitBytes === 0),
  });
  const before = rows.filter((r) => r.kind === 'before');
  const after = (name: string) => byName.get(name.replace(/ \(before\)$/, ''));
  const sqs = byName.get('sqs');
  return [
    '## 4. Cold start',
    '',
    provenance(part),
    ` Imported with ${deployedNodeFlags.length === 0 ? 'no NODE_OPTIONS' : `NODE_OPTIONS ${deployedNodeFlags.join(' ')}`}${load ? `; load average before the rounds ${load.before.join(' ')}, after them ${load.after.join(' ')}` : ''}.`,
    '',
    table(
      [
        'bundle',
        'gzip at init',
        'asset gzip',
        'gzip / its floor',
        'import',
        'import / its floor',
        'import p90',
        'samples',
      ],
      rows
        .filter((r) => r.kind !== 'before')
        .map((r) => [
          r.error ? `${r.name} (failed: ${r.error.slice(0, 120)})` : r.name,
          kb(r.gzipBytes),
          kb(r.assetGzipBytes),
          x(gz(r, floorOf(r))),
          `${r.importMs.toFixed(1)} ms`,
          x(im(r, floorOf(r))),
          `${r.importP90Ms.toFixed(1)} ms`,
          String(r.samples),
        ]),
    ),
    '',
    before.length === 0
      ? ''
      : table(
          [
            `function (before: \`${beforeRev ?? '?'}\`)`,
            'gzip at init before → now',
            'gzip / floor before → now',
            'import before → now',
            'import / floor before → now',
          ],
          before.map((r) => {
            const now = after(r.name);
            const floor = floorOf(now ?? r);
            return [
              r.name.replace(/ \(before\)$/, ''),
              `${kb(r.gzipBytes)} → ${now ? kb(now.gzipBytes) : '–'}`,
              `${x(gz(r, floor))} → ${x(gz(now, floor))}`,
              `${r.importMs.toFixed(0)} → ${now ? now.importMs.toFixed(0) : '–'} ms`,
              `${x(im(r, floor))} → ${x(im(now, floor))}`,
            ];
          }),
        ),
    '',
    ...(slackAck === undefined
      ? []
      : [
          table(
            [
              'Slack click after a cold start',
              'answered',
              'p90',
              'import',
              'first click',
              'warm click',
              'warm p90',
              'cold starts',
            ],
            [
              [
                'slack-interactions',
                `${slackAck.ackFromStartMs.toFixed(0)} ms`,
                `${slackAck.ackFromStartP90Ms.toFixed(0)} ms`,
                `${slackAck.importMs.toFixed(0)} ms`,
                `${slackAck.firstRequestMs.toFixed(0)} ms`,
                // Older results (before the warm click was measured) carry no warm figure.
                slackAck.warmRequestMs === undefined ? '–' : `${slackAck.warmRequestMs.toFixed(0)} ms`,
                slackAck.warmRequestP90Ms === undefined ? '–' : `${slackAck.warmRequestP90Ms.toFixed(0)} ms`,
                String(slackAck.rounds),
              ],
            ],
          ),
          '',
        ]),
    table(
      ['SQS trigger', 'import', 'first check', 'import + first check', 'samples'],
      (firstSchemaCheck ?? []).map((r) => [
        r.error ? `${r.name} (failed: ${r.error.slice(0, 120)})` : r.name,
        `${r.importMs.toFixed(1)} ms`,
        `${r.checkMs.toFixed(1)} ms`,
        `${r.totalMs.toFixed(1)} ms`,
        String(r.samples),
      ]),
    ),
    '',
    ...(firstDecisions === undefined ? [] : [...firstDecisionLines(firstDecisions), '']),
    ...(decisionRuns ?? []).flatMap((run) => decisionRunLines(run, floorOf(byName.get(run.bundle)))),
    sqs
      ? table(
          ['chunk the SQS trigger loads on first use', 'gzip'],
          sqs.lazyChunks
            .slice(0, 12)
            .map((c) => [c.file.replace(/^chunks\//, '').replace(/-[A-Z0-9]{8}\.mjs$/, ''), kb(c.gzipBytes)]),
        )
      : '',
    '',
    table(
      ['function', 'hand-off target', 'gzip at init', 'its floor', 'gzip / its floor'],
      (targets ?? []).map((t) => [
        t.bundle,
        t.target,
        kb(t.gzipBytes),
        kb(t.floorGzipBytes),
        x(t.gzipBytes / t.floorGzipBytes),
      ]),
    ),
    '',
    traced.length === 0
      ? ''
      : table(
          ['traces (§21)', 'front at init (minified)', 'spans’ code at init', 'span chunk, first span (gzip)'],
          traced.map((r) => [
            r.name,
            kb(r.traces?.frontAtInitBytes ?? 0),
            kb(r.traces?.spanCodeAtInitBytes ?? 0),
            kb(r.traces?.chunkGzipBytes ?? 0),
          ]),
        ),
    '',
    table(
      ['bundle', 'largest packages at init (minified)'],
      rows
        .filter((r) => r.kind === 'handler' && !r.error && r.name !== 'inbox')
        .map((r) => [
          r.name,
          r.byPackage
            .slice(0, 10)
            .map((p) => `${p.name} ${kb(p.bytes)}`)
            .join(', '),
        ]),
    ),
    '',
  ].join('\n');
}

/** The version bench/peers/package-lock.json pins for `name`. */
function lockedVersion(benchDir: string, name: string): string {
  const lock = JSON.parse(readFileSync(join(benchDir, 'peers', 'package-lock.json'), 'utf8')) as {
    packages?: Record<string, { version?: string }>;
  };
  return lock.packages?.[`node_modules/${name}`]?.version ?? '?';
}

/** The peers' installed versions and the Node versions they declare, from bench/peers. */
function peerVersions(benchDir: string): string[][] {
  const manifest = JSON.parse(readFileSync(join(benchDir, 'peers', 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  return Object.keys(manifest.dependencies).map((name) => {
    const path = join(benchDir, 'peers', 'node_modules', name, 'package.json');
    if (!existsSync(path)) return [name, `${lockedVersion(benchDir, name)} (locked, not installed)`, '–'];
    const pkg = JSON.parse(readFileSync(path, 'utf8')) as { version: string; engines?: { node?: string } };
    return [name, pkg.version, pkg.engines?.node ?? 'not declared'];
  });
}

function peersSection(part: Part<PeersResult> | undefined, benchDir: string): string {
  if (!part) return '## 5. Peers\n\nNot measured yet: `npm run bench -- peers`.\n';
  const { transcripts, durable, errors } = part.result;
  const names = Object.keys(transcripts[0]?.stats ?? {});
  return [
    '## 5. Peers on the same transcripts, same run',
    '',
    provenance(part),
    '',
    table(['peer (bench/peers/package.json)', 'version', 'engines.node'], peerVersions(benchDir)),
    '',
    table(
      ['contestant', ...transcripts.map((t) => `${t.messages} msgs`)],
      names.map((name) => [
        name,
        ...transcripts.map((t) => `${us(t.stats[name]?.medianUs)} (${x(t.ratios[name], 1)})`),
      ]),
    ),
    '',
    table(
      ['stored per pause', ...transcripts.map((t) => `${t.messages} msgs`)],
      [
        ['transcript JSON (langchain)', ...transcripts.map((t) => kb(t.jsonBytes.langchain))],
        ...Object.keys(transcripts[0]?.storedBytes ?? {}).map((peer) => [
          peer,
          ...transcripts.map(
            (t) =>
              `${kb(t.storedBytes[peer] ?? 0)} (${((t.storedBytes[peer] ?? 0) / (peer.startsWith('openai') ? t.jsonBytes.openaiResponses : t.jsonBytes.langchain)).toFixed(1)}× JSON)`,
          ),
        ]),
      ],
    ),
    '',
    '### AWS durable functions: replay',
    '',
    table(
      [
        'earlier steps',
        'resume (median)',
        'resume after 0 steps',
        'replay (difference)',
        'floor (openai-chat, same message count)',
      ],
      durable.map((d) => [
        String(d.steps),
        us(d.stats[`durable ${d.steps} steps`]?.medianUs),
        us(d.stats['durable 0 steps']?.medianUs),
        us(d.replayUs),
        us(d.stats.floor?.medianUs),
      ]),
    ),
    errors.length > 0 ? `\nErrors: ${errors.join('; ')}` : '',
    '',
  ].join('\n');
}

function scaleSection(part: Part<ScaleResult> | undefined, verdicts: Verdict[]): string {
  if (!part) return '## 6. Scale\n\nNot measured yet: `npm run bench -- scale`.\n';
  const { table: rows, sameRun, seedSeconds, stoppedAt } = part.result;
  const seeding = table(
    ['seeding', 'stopped at'],
    [[`${seedSeconds.toFixed(0)} s`, stoppedAt === undefined ? '–' : `${stoppedAt.toLocaleString('en')} pauses`]],
  );
  const first = rows[0];
  const last = rows.at(-1);
  const runFirst = sameRun[0];
  const runLast = sameRun.at(-1);
  const tableDrift = (last?.pairedRatio ?? Number.NaN) / (first?.pairedRatio ?? Number.NaN);
  const runDrift = (runLast?.pairedRatio ?? Number.NaN) / (runFirst?.pairedRatio ?? Number.NaN);
  verdicts.push({
    target: 'Resume cost flat against pauses in the table and earlier pauses in the same run',
    measured: `Handback / floor ${x(first?.pairedRatio)} at ${first?.pausesInTable.toLocaleString('en')} pauses, ${x(last?.pairedRatio)} at ${last?.pausesInTable.toLocaleString('en')} (Handback p50 ${us(first?.handback.medianUs)} → ${us(last?.handback.medianUs)}, floor ${us(first?.floor.medianUs)} → ${us(last?.floor.medianUs)}); same run ${x(runFirst?.pairedRatio)} after ${runFirst?.earlierPauses} → ${x(runLast?.pairedRatio)} after ${runLast?.earlierPauses} earlier pauses`,
    met: rows.length > 0 && sameRun.length > 0 ? tableDrift < 1.25 && runDrift < 1.25 : undefined,
  });
  return [
    '## 6. Scale',
    '',
    provenance(part),
    '',
    seeding,
    '',
    table(
      ['pauses in table', 'Handback p50', 'Handback p99', 'floor p50', 'p50 ratio', 'paired ratio (median)'],
      rows.map((r) => [
        r.pausesInTable.toLocaleString('en'),
        us(r.handback.medianUs),
        us(r.handback.p99Us),
        us(r.floor.medianUs),
        x(r.ratioP50),
        x(r.pairedRatio),
      ]),
    ),
    '',
    table(
      [
        'earlier pauses in the same run',
        'resumes',
        'Handback p50',
        'Handback p99',
        'floor p50 (twin pause, fresh run)',
        'paired ratio (median)',
      ],
      sameRun.map((r) => [
        r.earlierPauses,
        String(r.handback.samples),
        us(r.handback.medianUs),
        us(r.handback.p99Us),
        us(r.floor?.medianUs),
        x(r.pairedRatio),
      ]),
    ),
    '',
  ].join('\n');
}

function expirySection(part: Part<ExpiryResult> | undefined): string {
  if (!part) return '## 7. Expiry that acts\n\nNot measured yet: `npm run bench -- expiry`.\n';
  const r = part.result;
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const usd = (v: number) => (v < 0.01 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`);
  return [
    '## 7. Expiry that acts: the lag, and what the mechanism costs',
    '',
    provenance(part),
    '',
    table(
      ['pauses', 'sweep every', 'idle sweep', 'closing one pause', 'not closed within 30 s'],
      [[String(r.pauses), `${r.sweepEveryMs / 1000} s`, ms(r.idleSweepMs), ms(r.closeMsPerPause), String(r.unclosed)]],
    ),
    '',
    table(
      ['lag to', 'p50', 'p95', 'max'],
      [
        ['the closing committed (`resumedAt`)', ms(r.lag.p50), ms(r.lag.p95), ms(r.lag.max)],
        ['the hand-off delivered', ms(r.handoffLag.p50), ms(r.handoffLag.p95), ms(r.handoffLag.max)],
      ],
    ),
    '',
    '### Cost per million pauses: the sweep against EventBridge Scheduler one-time schedules',
    '',
    table(
      ['price (us-east-1) and where it was read'],
      Object.values(PRICES).map((price) => [price.source]),
    ),
    '',
    table(
      ['assumption'],
      r.cost.assumptions.map((assumption) => [assumption]),
    ),
    '',
    table(
      ['Lambda memory', 'sweep: fixed per month (43,200 ticks, idle index reads)'],
      r.cost.sweepFixedPerMonth.map((f) => [`${f.memoryMb} MB`, usd(f.usd)]),
    ),
    '',
    table(
      ['mechanism', 'Lambda memory', 'per million pauses, none expiring', 'per million pauses, all expiring'],
      r.cost.perMillion.map((row) => [row.mechanism, `${row.memoryMb} MB`, usd(row.noneExpire), usd(row.allExpire)]),
    ),
    '',
  ].join('\n');
}

/** The §17 targets: at most 5 ms added at p50 for 100 policies × 16 asks; without policies, within 1% at init. */
const POLICY_ADDED_MS = 5;
const POLICY_BUNDLE_SHARE = 0.01;
/** Linear loading: the cost per policy at 5,000 within twice that at 1,000 (a quadratic load is five times). */
const POLICY_LOAD_RATIO = 2;

function policySection(part: Part<PolicyResult> | undefined, verdicts: Verdict[]): string {
  if (!part) return '## 9. Policy before people (§17)\n\nNot measured yet: `npm run bench -- policy`.\n';
  const { rows, bundles } = part.result;
  const loads = part.result.loads ?? [];
  const ms = (us: number) => (us / 1000).toFixed(2);
  const [, thousand, fiveThousand] = loads;
  if (thousand !== undefined && fiveThousand !== undefined) {
    const ratio = fiveThousand.perPolicyUs / thousand.perPolicyUs;
    verdicts.push({
      target: `Loading policies is linear: a policy of 5,000 costs at most ${POLICY_LOAD_RATIO}× a policy of 1,000 (§17)`,
      measured: `${fiveThousand.perPolicyUs.toFixed(0)} µs against ${thousand.perPolicyUs.toFixed(0)} µs (${x(ratio)})`,
      met: ratio <= POLICY_LOAD_RATIO,
    });
  }
  const worst = rows.find((r) => r.policies === 100 && r.asks === 16);
  if (worst !== undefined) {
    verdicts.push({
      target: `A pause with 100 policies × 16 approval asks: at most ${POLICY_ADDED_MS} ms added at p50 (§17)`,
      measured: `${ms(worst.addedP50Us)} ms added (p50 ${ms(worst.p50Us)} ms)`,
      met: worst.addedP50Us <= POLICY_ADDED_MS * 1000,
    });
  }
  const plain = bundles.find((b) => b.name.startsWith('api, without'));
  if (plain !== undefined) {
    const share = plain.policyInitBytes / plain.initBytes;
    verdicts.push({
      target: "The API function without policies: the policy feature's share of what init loads at most 1% (§17)",
      measured: `${plain.policyInitBytes} of ${plain.initBytes} B minified (${(share * 100).toFixed(2)}%)`,
      met: share <= POLICY_BUNDLE_SHARE,
    });
  }
  return [
    '## 9. Policy before people (§17): the pause with Cedar policies, and the bundle without them',
    '',
    "`CheckpointService.pause()` on the memory store (the store's I/O left out, so the evaluation shows), all ten configurations interleaved round by round, the engine loaded before (once per container). 0 policies = no engine configured, a deployment without policies. Each policy is a `call` permit with its `@approvers` on one of 16 tools, reading `context.args.amount`, so each ask of a round is matched by about a sixteenth of them and every pause waits for people. Added = p50 above the same asks without policies.",
    '',
    provenance(part),
    '',
    table(
      ['policies', 'asks', 'p50', 'p99', 'added at p50', 'samples'],
      rows.map((r) => [
        String(r.policies),
        String(r.asks),
        `${ms(r.p50Us)} ms`,
        `${ms(r.p99Us)} ms`,
        `${ms(r.addedP50Us)} ms`,
        String(r.samples),
      ]),
    ),
    '',
    "Loading the policy file, as a function does once per container: `loadPolicies` (Cedar parses the file, each policy's annotations are read and checked, the set is validated against the schema in strict mode), then `createPolicyEngine` and the first evaluation of an ask, which preparses the policies of its tool. The median of the samples, Cedar's WebAssembly warmed up by a load of 100 before.",
    '',
    table(
      ['policies', 'file', 'load', 'per policy', 'engine and first evaluation', 'samples'],
      loads.map((l) => [
        String(l.policies),
        kb(l.fileBytes),
        `${l.loadMs.toFixed(0)} ms`,
        `${l.perPolicyUs.toFixed(0)} µs`,
        `${l.engineMs.toFixed(0)} ms`,
        String(l.samples),
      ]),
    ),
    '',
    'The API function bundled as the stack bundles it (hand-off `sqs`): without policies (the default, `HANDBACK_BUNDLED_POLICIES` "false": no chunk of the engine in the asset), with `handback:policies` (Cedar a chunk loaded by the first approval pause), and at the commit before §17 (which also lacks everything the other part-four work added since, so its difference is not the policies\' alone). "Policy modules at init": the minified bytes of functions/policies/ and the policy-decisions seam in what init loads, by esbuild\'s metafile.',
    '',
    table(
      ['bundle', 'gzip at init', 'whole asset, gzip', 'minified at init', 'policy modules at init'],
      bundles.map((b) => [
        b.name,
        `${b.gzipBytes} B`,
        `${b.assetGzipBytes} B`,
        `${b.initBytes} B`,
        `${b.policyInitBytes} B`,
      ]),
    ),
    '',
    ...largeRows(part.result.large),
  ].join('\n');
}

/** §19's large-argument rows: what judging large declared sets holds the service for, `/health` asked meanwhile. */
function largeRows(large: PolicyResult['large']): string[] {
  if (large === undefined) return ['Large declared arguments (§19): not measured yet: `npm run bench -- policy`.', ''];
  return [
    "Large declared arguments (§19): `npm start` (a child process) paused with a 5.9 MB body of 16 approval asks, each with a declared `Set<String>` argument, while the bench asks `GET /health` every 5 ms; the worst `/health` wait is how long the service answered no one. Without a policy file it is the pause's own cost (parse, checks, hash, compression, the embedded store); within the bounds each ask's set holds 1,000 elements (the rest of the body an undeclared argument the policies never see); past them each set holds 12,001 and every ask fails closed (`policy:error`) after converting at most 1,001 elements. The §19 target is at most 100 ms of evaluation at a time: the service yields between asks, so the longest it holds the event loop for judging is one ask's evaluation — timed in the bench's own process on the same arguments with the same policies (the last column); the worst `/health` wait also holds the pause's own work, the no-policy row's.",
    '',
    table(
      [
        'configuration',
        'body',
        'asks',
        'pause (median)',
        'status',
        '/health worst wait',
        '/health answers',
        "one ask's evaluation (median / max)",
        'samples',
      ],
      large.map((r) => [
        r.name,
        `${(r.bodyBytes / 1024 / 1024).toFixed(1)} MB`,
        String(r.asks),
        `${r.pauseMs.toFixed(0)} ms`,
        String(r.status),
        `${r.healthWorstMs.toFixed(0)} ms`,
        String(r.healthAnswers),
        r.evaluation === undefined
          ? '—'
          : `${r.evaluation.medianMs.toFixed(1)} / ${r.evaluation.maxMs.toFixed(1)} ms (${r.evaluation.runs} runs)`,
        String(r.samples),
      ]),
    ),
    '',
  ];
}

/** The §23 target: 10,000 expired pauses closed and handed off within one bound of the sweep (two minutes). */
const SWEEP_PAUSES = 10_000;

function sweepSection(part: Part<SweepResult> | undefined, verdicts: Verdict[]): string {
  if (!part) return '## 11. The sweep (§23)\n\nNot measured yet: `npm run bench -- sweep`.\n';
  const r = part.result;
  const parallel = r.runs.find((run) => run.parallel > 1);
  if (parallel !== undefined) {
    verdicts.push({
      target: `The sweep closes and hands off ${SWEEP_PAUSES.toLocaleString('en-US')} expired pauses within one bound (${r.boundSeconds} s), each exactly once (§23)`,
      measured: `${parallel.pauses.toLocaleString('en-US')} in ${parallel.seconds.toFixed(1)} s, ${parallel.ticks.length} tick(s), exactly once: ${parallel.exactlyOnce ? 'yes' : 'no'}`,
      met: parallel.pauses >= SWEEP_PAUSES && parallel.seconds <= r.boundSeconds && parallel.exactlyOnce,
    });
  }
  return [
    '## 11. The sweep (§23): expired pauses closed in one tick',
    '',
    `The sweep function as the stack runs it (\`createSweepHandler\`: batches of ${r.batch} due pauses until ${r.reserveSeconds} s of its ${r.tickSeconds} s timeout are left, a tick a minute) on the embedded store (dynalite in a process of its own), every pause expired with \`onExpiry: "reject"\`, so each is closed (one conditional write) and its continuation handed off (a stand-in taking ${r.handoffMs} ms a pointer, as an SQS \`SendMessage\` in the region). Parallel = due pauses acted on at once (\`LIMITS.sweepParallel\`); 1 is the sweep before §23, one pause at a time. Per tick = the rate times the ${r.tickSeconds - r.reserveSeconds} s a tick works. Exactly once: every pause reads back expired and was handed off once. The lifecycle events of these closings leave by the table's stream, ten to a \`PutEvents\` call (not part of this figure).`,
    '',
    provenance(part),
    '',
    table(
      [
        'pauses',
        'parallel',
        'ticks',
        'closed and handed off in',
        'per second',
        'per tick',
        'exactly once',
        'seeding (not swept)',
      ],
      r.runs.map((run) => [
        run.pauses.toLocaleString('en-US'),
        String(run.parallel),
        run.ticks.map((tick) => `${tick.closed} in ${tick.seconds.toFixed(1)} s`).join('; '),
        `${run.seconds.toFixed(1)} s`,
        run.perSecond.toFixed(0),
        run.perTick.toLocaleString('en-US'),
        run.exactlyOnce ? 'yes' : '**no**',
        run.cpuSeconds === undefined
          ? '–'
          : `${run.cpuSeconds.sweep.toFixed(1)} s + ${run.cpuSeconds.store.toFixed(1)} s`,
        `${run.seedSeconds.toFixed(0)} s`,
      ]),
    ),
    '',
    `Load average before and after: ${r.load.before.join(' ')} → ${r.load.after.join(' ')}.`,
    '',
  ].join('\n');
}

/** §21: the sweep's requests per tick with open asks on escalation ladders, counted at the persistence port. */
function laddersSection(part: Part<LadderRun> | undefined): string {
  if (!part) return '## 12. The sweep with escalation ladders (§21)\n\nNot measured yet: `npm run bench -- ladders`.\n';
  const { asks, ladder, ticks, stats } = part.result;
  return [
    '## 12. The sweep with escalation ladders (§21), and `GET /stats`',
    '',
    provenance(part),
    '',
    `${asks.toLocaleString('en-US')} open pauses of one approval ask each on the ladder \`${ladder}\`, expiring after 10 minutes with \`onExpiry: "reject"\`, swept once a minute from their creation to their expiry, each tick running batches until one writes nothing. Counted at the persistence port (\`bench/sweep-ladders.ts\`): each due-index page, record read and conditional write is one request to DynamoDB (a \`Query\` page, a \`GetItem\`, an \`UpdateItem\`). A level reached, a level's reminder (halfway to the next, or to \`expiresAt\`) and an expiry are each one write per pause; a tick with nothing due reads one index page and nothing else. The closing at expiry reads the transcript too and writes twice (the closing, then its hand-off acknowledged).`,
    '',
    table(
      ['minute', 'due-index pages', 'record reads', 'writes', 'levels reached', 'level reminders', 'closed'],
      ticks.map((tick) => [
        String(tick.minute),
        tick.dueReads.toLocaleString('en-US'),
        tick.recordReads.toLocaleString('en-US'),
        tick.writes.toLocaleString('en-US'),
        tick.escalated.toLocaleString('en-US'),
        tick.reminded.toLocaleString('en-US'),
        tick.closed.toLocaleString('en-US'),
      ]),
    ),
    '',
    ...(stats === undefined
      ? []
      : [
          `\`GET /stats\` over the window holding all ${stats.pauses.toLocaleString('en-US')} of them once expired (\`decisionStats\`, exact: every pause of the window read, ${stats.listPages} listing pages of the persistence port, each one \`Query\` page on DynamoDB): ${stats.ms.toFixed(0)} ms in process on the memory store, ${stats.expired.toLocaleString('en-US')} asks counted expired.`,
          '',
        ]),
  ].join('\n');
}

function validatorsSection(part: Part<ValidatorsResult> | undefined): string {
  if (!part) return '## 8. The JSON Schema validator\n\nNot measured yet: `npm run bench -- validators`.\n';
  const { rows, suiteCommit, files } = part.result;
  const suite = table(
    ['JSON-Schema-Test-Suite commit', 'draft 2020-12 files'],
    [[suiteCommit.slice(0, 12), files.join(', ')]],
  );
  const total = (r: ValidatorsResult['rows'][number]) => r.passed + r.failed + r.refused;
  return [
    '## 8. The JSON Schema validator: bytes, cold import, and the official test suite',
    '',
    provenance(part),
    '',
    suite,
    '',
    table(
      ['validator', 'raw', 'gzip', 'import', 'suite: right', 'wrong', 'refused', 'first wrong answers'],
      rows.map((r) => [
        r.name,
        kb(r.bytes),
        kb(r.gzipBytes),
        `${r.importMs.toFixed(1)} ms`,
        total(r) === 0 ? '–' : `${r.passed} / ${total(r)}`,
        String(r.failed),
        String(r.refused),
        r.failures.slice(0, 3).join('; ') || '–',
      ]),
    ),
    '',
  ].join('\n');
}

function chart(results: Results): string {
  const peers = results.groups.peers?.result.transcripts ?? [];
  const palette: Record<string, string> = {
    floor: '#555555',
    'handback trusted': '#1f77b4',
    'handback validating': '#6baed6',
    'langgraph Command({resume})': '#d62728',
    'openai-agents RunState.fromString': '#ff7f0e',
    'openai-agents fromString + run': '#e6550d',
  };
  const series: Series[] = Object.entries(palette).map(([name, color]) => ({
    name: name === 'floor' ? 'floor (JSON.parse + append)' : name,
    color,
    dashed: name === 'floor',
    points: peers.map((t): [number, number] => [t.messages, t.stats[name]?.medianUs ?? Number.NaN]),
  }));
  const durable = results.groups.peers?.result.durable ?? [];
  if (durable.length > 0) {
    series.push({
      name: 'durable functions (N steps)',
      color: '#2ca02c',
      points: durable.map((d): [number, number] => [
        d.steps,
        d.stats[`durable ${d.steps} steps`]?.medianUs ?? Number.NaN,
      ]),
    });
  }
  return lineChart({
    title: 'Resume CPU against transcript length (median per resume, log–log)',
    xLabel: 'messages in the transcript (~200 bytes each)',
    yLabel: 'time per resume',
    yUnit: 'µs',
    series,
  });
}

/** Writes the report and its chart to `to` (bench/REPORT.md and bench/results/resume-cost.svg when published). */
export function writeReport(results: Results, benchDir: string, to: { report: string; chart: string }): void {
  const verdicts: Verdict[] = [];
  const m = results.machine;
  const g = results.groups;
  const sections = [
    rehydrateSection(g.rehydrate, verdicts),
    storeSection(g.store, verdicts),
    costSection(g.cost, verdicts),
    coldStartSection(g.coldstart, verdicts),
    peersSection(g.peers, benchDir),
    scaleSection(g.scale, verdicts),
    expirySection(g.expiry),
    validatorsSection(g.validators),
    policySection(g.policy, verdicts),
    keysSection(g.keys, verdicts),
    sweepSection(g.sweep, verdicts),
    laddersSection(g.ladders),
  ];
  const quick = Object.values(g).some((part) => part?.quick);
  const doc = [
    '# Handback benchmarks',
    '',
    `Written by \`npm run bench -- --write\` from bench/results/latest.json on ${m.date.slice(0, 16).replace('T', ' ')} UTC (Node ${m.node}, \`nproc\` ${m.nproc}, ${m.cpu}). What each group measures: [bench/README.md](README.md); what the figures mean for the design: [docs/choices.md](../docs/choices.md).`,
    '',
    quick ? '> **Some groups below come from `--quick` smoke runs: their numbers are not for conclusions.**\n' : '',
    '## Targets',
    '',
    table(
      ['target', 'measured', 'met'],
      verdicts.map((v) => [v.target, v.measured, v.met === undefined ? 'not measured' : v.met ? 'yes' : '**no**']),
    ),
    '',
    ...sections,
    `![Resume CPU against transcript length](${relative(dirname(to.report), to.chart).split(sep).join('/')})`,
    '',
  ].join('\n');
  const reportPath = to.report;
  writeFileSync(reportPath, doc);
  // The repository's formatter also formats Markdown (it pads the tables); leave the report as `npm run lint` wants it.
  const biome = join(benchDir, '..', 'node_modules', '.bin', 'biome');
  if (existsSync(biome)) spawnSync(biome, ['format', '--write', reportPath], { stdio: 'ignore' });
  writeFileSync(to.chart, chart(results));
}

/** An approve after a cold start, each row's sum beside the floor's when the floor was measured. */
function firstDecisionLines(rows: FirstDecisionRow[]): string[] {
  const floor = rows.find((r) => r.name === FIRST_DECISION_FLOOR)?.totalMs;
  return [
    table(
      [
        'an approve after a cold start',
        'import',
        'first decision',
        'import + first decision',
        '/ the floor’s',
        'samples',
      ],
      rows.map((r) => [
        r.name,
        `${r.importMs.toFixed(1)} ms`,
        `${r.decisionMs.toFixed(1)} ms`,
        `${r.totalMs.toFixed(1)} ms`,
        floor === undefined ? '–' : `×${(r.totalMs / floor).toFixed(2)}`,
        String(r.samples),
      ]),
    ),
    '',
    'The floor reads the pause’s item and sends it to the queue: less than a decision does (no conditional write). The ' +
      'trigger loaded by its first call holds almost nothing at init, so its gzip and import at init are far under ' +
      'every target; its sum is what a person would wait for were the code a decision runs loaded by the first request ' +
      'instead of at init.',
  ];
}
