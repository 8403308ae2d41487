import { BadRequestError } from '../errors.ts';
import { parseInput, type StatsInput, statsInput } from '../inputs.ts';
import { utf8Bytes } from '../json.ts';
import { ASK_OUTCOMES, type AskOutcome, isOneOf, LIMITS, PEOPLE_OUTCOMES } from '../vocabulary.ts';
import type { DecisionStats, ToolStats } from '../wire-reports.ts';
import type { CheckpointPersistence } from './persistence.ts';
import { askStates } from './settled-asks.ts';

/**
 * How decisions went (§21, `GET /stats`): one tenant's asks of the pauses made in a window, counted exactly per tool —
 * outcomes, people's time to decision by nearest rank, what still waits and for how long. It reads the tenant's
 * listing newest first from the window's end (`ListQuery.createdBefore`) until a pause made before its start, so it
 * reads each pause of the window once and at most a page past it; a window of more than `LIMITS.statsPauses` pauses
 * is refused, never sampled.
 */

/** Pauses a listing page brings: the port's largest. */
const PAGE = LIMITS.pageSize.max;

/** What one tool's asks came to, as they are read. */
interface Tally {
  asks: number;
  outcomes: Record<AskOutcome, number>;
  /** People's times to decision, in the order read. */
  times: number[];
  pending: number;
  oldestSinceMs: number;
}

/** The stats of `input`'s window at `nowMs`; its tenant, `since` and `until` are parsed first (`statsInput`). */
export async function decisionStats(
  persistence: CheckpointPersistence,
  input: StatsInput,
  nowMs: number,
): Promise<DecisionStats> {
  const query = parseInput(statsInput, input, 'stats query');
  const since = new Date(query.since).toISOString();
  const until = new Date(query.until).toISOString();
  const tallies = new Map<string, Tally>();
  let pauses = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await persistence.list({
      tenant: query.tenant,
      openOnly: false,
      limit: PAGE,
      createdBefore: until,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const { record } of page.entries) {
      // A backend may start its listing later than `createdBefore` asks: what is newer is stepped over.
      if (record.createdAt >= until) continue;
      if (record.createdAt < since) return statsOf(since, until, tallies, nowMs);
      if (++pauses > LIMITS.statsPauses) throw tooMany();
      for (const ask of askStates(record, nowMs)) {
        const tally = tallyOf(tallies, ask.tool);
        tally.asks++;
        if (ask.state === 'waiting') {
          tally.pending++;
          tally.oldestSinceMs = Math.min(tally.oldestSinceMs, ask.sinceMs);
          continue;
        }
        tally.outcomes[ask.outcome]++;
        if (isOneOf(PEOPLE_OUTCOMES, ask.outcome)) tally.times.push(ask.timeToDecisionMs);
      }
    }
    if (page.next === undefined) return statsOf(since, until, tallies, nowMs);
    cursor = page.next;
  }
}

function tallyOf(tallies: Map<string, Tally>, tool: string): Tally {
  let tally = tallies.get(tool);
  if (tally === undefined) {
    const outcomes = Object.fromEntries(ASK_OUTCOMES.map((outcome) => [outcome, 0])) as Record<AskOutcome, number>;
    tally = { asks: 0, outcomes, times: [], pending: 0, oldestSinceMs: Number.POSITIVE_INFINITY };
    tallies.set(tool, tally);
  }
  return tally;
}

/** The answer: each tool, most asks first (then by name), while the whole stays under `LIMITS.pageBytes`. */
function statsOf(since: string, until: string, tallies: Map<string, Tally>, nowMs: number): DecisionStats {
  const ordered = [...tallies].sort(([a, x], [b, y]) => y.asks - x.asks || (a < b ? -1 : a > b ? 1 : 0));
  const tools: ToolStats[] = [];
  let bytes = 0;
  for (const [tool, tally] of ordered) {
    const times = Float64Array.from(tally.times).sort();
    const entry: ToolStats = {
      tool,
      outcomes: tally.outcomes,
      timeToDecisionMs: { p50: nearestRank(times, 50), p90: nearestRank(times, 90), max: times.at(-1) ?? null },
      pending: tally.pending,
      oldestPendingSeconds: tally.pending === 0 ? null : Math.max(0, Math.floor((nowMs - tally.oldestSinceMs) / 1000)),
    };
    bytes += utf8Bytes(JSON.stringify(entry));
    if (bytes > LIMITS.pageBytes) {
      return { since, until, tools, toolsOmitted: ordered.length - tools.length };
    }
    tools.push(entry);
  }
  return { since, until, tools };
}

/** The `percent`th percentile of ascending `sorted` by nearest rank: the value at rank ⌈percent/100 × n⌉; null for none. */
export function nearestRank(sorted: ArrayLike<number>, percent: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((percent / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

function tooMany(): BadRequestError {
  const message = `the window holds more than ${LIMITS.statsPauses} pauses; ask for a shorter one`;
  return new BadRequestError(`The stats' ${message}.`, [{ path: '/since', message }]);
}
