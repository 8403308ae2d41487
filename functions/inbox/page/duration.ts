/** A duration in words for the stats view (§21), pure. */

const DAY_MS = 86_400_000;

/** Milliseconds in words a person reads at a glance: "850 ms", "42 s", "12 min", "3.5 h", "2.1 days"; null: "none". */
export function duration(ms: number | null): string {
  if (ms === null) return 'none';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 48 * 3_600_000) return `${round1(ms / 3_600_000)} h`;
  return `${round1(ms / DAY_MS)} days`;
}

function round1(n: number): string {
  return (Math.round(n * 10) / 10).toString();
}
