/** Times in words for the person deciding, pure: "3 minutes ago", "in 6 days". */

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['week', 7 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
  ['second', 1000],
];

const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** `iso` relative to `nowMs`, in the largest unit it holds at least once, rounded: "3 minutes ago", "in 7 days". */
export function relativeTime(iso: string, nowMs: number): string {
  const delta = Date.parse(iso) - nowMs;
  if (!Number.isFinite(delta)) return iso;
  for (const [unit, ms] of UNITS) {
    if (Math.abs(delta) >= ms) return format.format(Math.round(delta / ms), unit);
  }
  return 'now';
}

/** "expires in 6 days" or "expired 2 hours ago". */
export function timeLeft(expiresAt: string, nowMs: number): string {
  return Date.parse(expiresAt) > nowMs
    ? `expires ${relativeTime(expiresAt, nowMs)}`
    : `expired ${relativeTime(expiresAt, nowMs)}`;
}

/** A full local date and time, for a `title`. */
export function fullTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString('en');
}
