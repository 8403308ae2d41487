import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import type { PendingCensus, PendingCount } from '../checkpoints/checkpoint-store.ts';
import { settledBy } from '../checkpoints/settled-asks.ts';
import { isOneOf, LIMITS, PEOPLE_OUTCOMES } from '../vocabulary.ts';
import type { UseCaseDeps } from './resume.ts';
import { Metric, type MetricDimensions, type Metrics, MetricUnit } from './telemetry.ts';

/**
 * How decisions are going, as metrics (§21): each ask's settling (`TimeToDecision`, `Decisions`) from the change that
 * settled it, each escalation level reached (`Escalations`), and the sweep's count of what waits (`PendingAsks`,
 * `OldestPendingSeconds`). Their dimensions are Handback's own words and the tool's name, never other tenant data:
 * `tool`, `outcome` (`ASK_OUTCOMES`) and `via` (`VIAS`). On AWS they are EMF lines of the lifecycle stream's and the
 * sweep's functions; locally the same lines go to the log when metrics are on.
 */

/** Every series of a settled ask: by tool, outcome and door. */
const BY_ALL = ['tool', 'outcome', 'via'] as const;

/** Minutes between two counts of what waits: each reads every open pause. */
export const PENDING_EVERY_MINUTES = 5;

/**
 * The asks `change` settled, each counted once: `Decisions` (by tool, outcome and door, and by outcome alone, what the
 * dashboard's outcomes graph reads), and `TimeToDecision` (by all three, and by tool alone for the asks people decided,
 * the series whose p50 and p90 the dashboard graphs per tool).
 */
export function countSettled(metrics: Metrics, change: PauseChange): void {
  for (const ask of settledBy(change)) {
    const values = { tool: toolDimension(ask.tool), outcome: ask.outcome, via: ask.via };
    const byTool = isOneOf(PEOPLE_OUTCOMES, ask.outcome) ? [['tool']] : [];
    metrics.addMetric(Metric.TimeToDecision, MetricUnit.Milliseconds, ask.timeToDecisionMs, {
      values,
      sets: [BY_ALL, ...byTool],
    });
    metrics.addMetric(Metric.Decisions, MetricUnit.Count, 1, { values, sets: [BY_ALL, ['outcome']] });
  }
}

/**
 * One escalation level reached by one ask (§21): `Escalations`, in all and by tool; the level rides along for log
 * queries. What the sweep calls once per level it escalates.
 */
export function countEscalation(metrics: Metrics, escalation: { tool: string; level: number }): void {
  const values = { tool: toolDimension(escalation.tool), level: String(escalation.level) };
  metrics.addMetric(Metric.Escalations, MetricUnit.Count, 1, { values, sets: [[], ['tool']] });
}

/** The census's counts as metrics: `PendingAsks` and `OldestPendingSeconds`, in all and per tool waiting (by name). */
export function countPending(metrics: Metrics, census: PendingCensus, nowMs: number): void {
  const add = (count: PendingCount, dimensions: MetricDimensions) => {
    const oldest =
      count.oldestSinceMs === undefined ? 0 : Math.max(0, Math.floor((nowMs - count.oldestSinceMs) / 1000));
    metrics.addMetric(Metric.PendingAsks, MetricUnit.Count, count.asks, dimensions);
    metrics.addMetric(Metric.OldestPendingSeconds, MetricUnit.Seconds, oldest, dimensions);
  };
  add(census, { values: {}, sets: [[]] });
  // By name: the census reads pauses at once, in no set order.
  const byName = [...census.tools].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [tool, count] of byName) add(count, { values: { tool: toolDimension(tool) }, sets: [['tool']] });
}

/** Whether the sweep tick at `nowMs` counts what waits: the ticks of every `PENDING_EVERY_MINUTES`th minute. */
export function pendingDue(nowMs: number): boolean {
  return Math.floor(nowMs / 60_000) % PENDING_EVERY_MINUTES === 0;
}

/** Counts what waits now, of every tenant, as metrics and one log line (a warning when it could not read all). */
export async function reportPending(deps: UseCaseDeps): Promise<PendingCensus> {
  const census = await deps.store.countPending();
  const nowMs = (deps.now ?? Date.now)();
  countPending(deps.metrics, census, nowMs);
  const counted = {
    asks: census.asks,
    pauses: census.pauses,
    tools: census.tools.size,
    oldestPendingSeconds:
      census.oldestSinceMs === undefined ? 0 : Math.max(0, Math.floor((nowMs - census.oldestSinceMs) / 1000)),
  };
  if (census.complete) deps.logger.info('Pending asks counted', counted);
  else {
    deps.logger.warn(
      `Pending asks counted in the first ${LIMITS.pendingCensusPauses} open pauses only: more are open`,
      counted,
    );
  }
  return census;
}

/** A tool's name as the `tool` dimension: its first `LIMITS.metricToolChars` characters, never blank. */
export function toolDimension(tool: string): string {
  const clipped = tool.length <= LIMITS.metricToolChars ? tool : [...tool].slice(0, LIMITS.metricToolChars).join('');
  return clipped.trim() === '' ? '(unnamed)' : clipped;
}
