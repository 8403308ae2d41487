import type { KeysResult } from './group-keys.ts';
import { PARTITION_WCU } from './group-keys.ts';
import { MILLION_TARGETS, type MillionResult } from './group-million.ts';
import { PRICES, PRICES_READ } from './prices.ts';

/**
 * The report's sections of §23: one million decided pauses in dollars (part of group 3), and the hottest key of one
 * tenant's writes (group 10). Kept apart from report.ts, which renders the other groups.
 */

/** A target the report's summary lists, and whether it was met. */
interface Verdict {
  target: string;
  measured: string;
  met: boolean | undefined;
}

/** A part of the results as bench/run.ts writes it. */
interface Part<T> {
  quick: boolean;
  command: string;
  result: T;
}

const table = (head: string[], rows: string[][]) =>
  [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
const usd = (value: number) => `$${value.toFixed(2)}`;

/** One million decided pauses, by transcript size, beside Step Functions Standard and Lambda durable functions. */
export function millionSection(part: Part<{ million?: MillionResult }> | undefined, verdicts: Verdict[]): string {
  const million = part?.result.million;
  if (!part || !million) {
    return '### One million decided pauses, in dollars\n\nNot measured yet: `npm run bench -- cost`.\n';
  }
  const rows = million.rows;
  verdicts.push({
    target: `One million decided pauses ≤ ${Object.entries(MILLION_TARGETS)
      .map(([label, target]) => `$${target} at ${label}`)
      .join(' / ')}, with ${million.retentionDays} days of retention (§23)`,
    measured: rows.map((r) => `${r.label}: ${usd(r.usd.total)}`).join('; '),
    met: rows.length > 0 ? rows.every((r) => r.usd.total <= (MILLION_TARGETS[r.label] ?? 0)) : undefined,
  });
  return [
    '### One million decided pauses, in dollars',
    '',
    `\`${part.command}\`: pause → approve → resume (the continuation read back), ${million.samples} times per size after one warm-up, through the store on dynalite with transcripts over 64 KB compressed in s3rver and closed ones of 8 KB or more moved there by the lifecycle stream, counted from what the code sends and priced at the us-east-1 list prices of \`bench/prices.ts\` (dated ${PRICES_READ}; below).`,
    '',
    table(
      [
        'transcript',
        'kept in',
        'RCU / WCU (reported)',
        'table bytes',
        'S3 PUT / GET, bytes',
        'store ms: pause / resume / read / move',
        'DynamoDB requests',
        'DynamoDB + PITR storage',
        'S3',
        'Lambda',
        'HTTP API, events, SQS',
        '**total**',
        'target',
      ],
      rows.map((r) => [
        r.label,
        r.placement === 'moved' ? 'table → s3 at close' : r.placement,
        `${r.dynamodb.readUnits} / ${r.dynamodb.writeUnits} (${r.dynamodb.readUnitsReported ?? '–'} / ${r.dynamodb.writeUnitsReported ?? '–'})`,
        String(r.dynamodb.storedBytes),
        `${r.s3.puts} / ${r.s3.gets}, ${r.s3.bytesPut} B`,
        `${r.durationsMs.pause.toFixed(1)} / ${r.durationsMs.resume.toFixed(1)} / ${r.durationsMs.continuation.toFixed(1)} / ${(r.durationsMs.archive ?? 0).toFixed(1)}`,
        usd(r.usd.dynamodbRequests),
        usd(r.usd.dynamodbStorage),
        usd(r.usd.s3),
        usd(r.usd.lambda),
        usd(r.usd.httpApi + r.usd.events + r.usd.sqs),
        `**${usd(r.usd.total)}**`,
        `$${MILLION_TARGETS[r.label] ?? '–'}`,
      ]),
    ),
    '',
    ...tableClassLines(million),
    'The same million waits elsewhere, from their list prices alone (no storage of the transcript beyond what each keeps, no compute of the agent):',
    '',
    table(
      ['transcript', 'Handback', 'Step Functions Standard (3 transitions per wait)', 'Lambda durable functions'],
      rows.map((r) => [
        r.label,
        usd(r.usd.total),
        usd(r.peersUsd.stepFunctionsStandard),
        usd(r.peersUsd.lambdaDurable),
      ]),
    ),
    '',
    'Assumptions:',
    '',
    ...million.assumptions.map((line) => `- ${line}`),
    '',
    `Prices (us-east-1, the table dated ${PRICES_READ}):`,
    '',
    ...Object.values(PRICES).map((price) => `- ${price.source}`),
    '',
  ].join('\n');
}

/** Each size on each table class, and what threshold a size kept inline would need to meet its target. */
function tableClassLines(million: MillionResult): string[] {
  const rows = million.rows.filter((r) => r.byClass !== undefined);
  const limits = million.inlineLimits ?? [];
  if (rows.length === 0) return [];
  const classes = Object.keys(rows[0]?.byClass ?? {});
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  return [
    `The table class (\`handback:tableClass\`; the stack's default, \`${million.tableClass}\`, is the one "total" above is priced on):`,
    '',
    table(
      ['transcript', ...classes.map((c) => `${c}: DynamoDB requests / storage + PITR / **total**`)],
      rows.map((r) => [
        r.label,
        ...classes.map((c) => {
          const u = r.byClass?.[c as keyof typeof r.byClass];
          return u === undefined ? '–' : `${usd(u.dynamodbRequests)} / ${usd(u.dynamodbStorage)} / **${usd(u.total)}**`;
        }),
      ]),
    ),
    '',
    ...(limits.length === 0
      ? []
      : [
          `The inline threshold against the targets: a transcript over ${kb(million.inlineThresholdBytes ?? 0)} compressed goes to S3 (§23). For each size kept inline, the table bytes per pause its target allows with every other part as measured, the largest threshold that keeps every inline transcript within that target (those bytes less the pause's other table bytes), and the same size with its transcript in S3 (the 1 MB row's measured S3 path — item, requests, durations, an upper bound — with this size's compressed bytes):`,
          '',
          table(
            [
              'transcript',
              'table class',
              'compressed',
              'table bytes allowed',
              'threshold that meets the target',
              'in S3 instead',
              'target',
            ],
            limits.map((l) => {
              const row = million.rows.find((r) => r.label === l.label);
              return [
                l.label,
                l.tableClass,
                row?.compressedBytes === undefined ? '–' : kb(row.compressedBytes),
                kb(l.budgetBytes),
                l.thresholdBytes > 0 ? `≤ ${kb(l.thresholdBytes)}` : 'none',
                l.inS3Usd === undefined ? '–' : usd(l.inS3Usd),
                `$${l.target}`,
              ];
            }),
          ),
          '',
        ]),
  ];
}

/** The hottest key of one tenant at 5,000 pauses/s and 5,000 decisions/s. */
export function keysSection(part: Part<KeysResult> | undefined, verdicts: Verdict[]): string {
  if (!part) return '## 10. No hot keys\n\nNot measured yet: `npm run bench -- keys`.\n';
  const r = part.result;
  const hottest = r.hottest[0];
  verdicts.push({
    target: `One tenant at ${r.rate.toLocaleString('en')} pauses/s and ${r.rate.toLocaleString('en')} decisions/s: the hottest key under ${PARTITION_WCU} WCU/s (§23)`,
    measured: hottest ? `${hottest.wcuPerSecond} WCU/s (${hottest.where} ${hottest.key})` : '–',
    met: hottest ? hottest.wcuPerSecond < PARTITION_WCU : undefined,
  });
  return [
    '## 10. No hot keys',
    '',
    `\`${part.command}\`: ${r.pauses.toLocaleString('en')} pauses of one tenant (each on a run of its own, ${r.transcriptBytes / 1024} KB transcripts) and the ${r.decisions.toLocaleString('en')} decisions that close them, through the store on dynalite; the write units each key takes are counted from the items the store wrote (a table write: 1 per KB of the larger of the item before and after; a keys-only index entry written or removed: 1), and each shared key's count scaled to ${r.rate.toLocaleString('en')} of each a second. ${r.wcuPerPause.toFixed(1)} WCU per pause and ${r.wcuPerDecision.toFixed(1)} per decision, all keys together.`,
    '',
    table(
      ['where', 'hottest key', 'WCU/s'],
      r.hottestBy.map((load) => [load.where, `\`${load.key}\``, String(load.wcuPerSecond)]),
    ),
    '',
    `The same writes with one listing key per tenant (before §23) would put ${r.unshardedListing.wcuPerSecond} WCU/s on \`${r.unshardedListing.key}\` of ${r.unshardedListing.where}; DynamoDB throttles a partition key past ${PARTITION_WCU} WCU/s.`,
    '',
  ].join('\n');
}
