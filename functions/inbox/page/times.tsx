import { fullTime, timeLeft, timeSince } from './time.ts';

/** The page's `<time>` elements: an instant in words, its full date and time on hover (`time.ts` words them). */

/** An instant that has happened ("3 minutes ago", "just now"). */
export function Since({ at, nowMs }: { at: string; nowMs: number }) {
  return (
    <time dateTime={at} title={fullTime(at)}>
      {timeSince(at, nowMs)}
    </time>
  );
}

/** A pause's expiry ("expires in 6 days", "expired 2 hours ago"). */
export function Left({ at, nowMs }: { at: string; nowMs: number }) {
  return (
    <time dateTime={at} title={fullTime(at)}>
      {timeLeft(at, nowMs)}
    </time>
  );
}
