/**
 * §19's `@validFor("PT1H")`: how long an approval under a permit of `call` lets the call run, as an ISO 8601 duration
 * of weeks, or of days, hours, minutes and seconds — never years or months, whose length depends on the date. Pure, a
 * leaf: the policies' loader checks the annotation with it, and the rules compute `approvedUntil` with it.
 */

const DURATION = /^P(?:(\d{1,6})W|(?:(\d{1,6})D)?(?:T(?:(\d{1,7})H)?(?:(\d{1,9})M)?(?:(\d{1,10})S)?)?)$/;

/** The seconds of an ISO 8601 duration such as `PT1H`, `P2D`, `P1DT12H`, `PT90S` or `P1W`; undefined for anything else or zero. */
export function durationSeconds(text: string): number | undefined {
  const match = DURATION.exec(text);
  // "P" and "PT" alone, and a "T" with nothing after it, say no duration.
  if (match === null || text === 'P' || text.endsWith('T')) return undefined;
  const [, weeks, days, hours, minutes, seconds] = match.map((part) => (part === undefined ? 0 : Number(part)));
  const total =
    (weeks as number) * 604_800 +
    (days as number) * 86_400 +
    (hours as number) * 3_600 +
    (minutes as number) * 60 +
    (seconds as number);
  return total > 0 ? total : undefined;
}
