/** Times in words for the person deciding, pure: "3 minutes ago", "in 6 days", "just now". */

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

/**
 * An instant that has happened (a decision, a pause's creation, its closing) relative to `nowMs`: "3 minutes ago",
 * never in the future. The page's clock ticks every 30 seconds and the server's may run ahead of the browser's, so an
 * instant of a moment ago can sit after `nowMs`; that, and anything under a minute, reads "just now".
 */
export function timeSince(iso: string, nowMs: number): string {
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return iso;
  return nowMs - at < 60_000 ? 'just now' : relativeTime(iso, nowMs);
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
