import { LIMITS } from '../vocabulary.ts';
import type { Approvers } from '../wire.ts';
import type { LadderLevel } from './port.ts';

export type { LadderLevel };

/**
 * Escalation ladders (§21), pure: the text a deployment writes — in a policy's `@escalate("…")` or in
 * `HANDBACK_ESCALATION` — as levels, each an ISO 8601 duration from the pause and the approvers it adds (entries as in
 * `@approvers`, or `manager`). Parsed once, where it is loaded; what is wrong names the level and the word.
 */

/** Levels a ladder may have: a handful is what a person can follow. */
export const MAX_LADDER_LEVELS = 10;

/** Characters of a ladder's text: each waiting ask records its ladder in the pause's record, which has a size bound. */
export const MAX_LADDER_CHARS = 2048;

/** Where a ladder's text went wrong: `offset` is the UTF-16 index in the text of the word it is about. */
export class LadderError extends Error {
  readonly offset: number;
  constructor(offset: number, message: string) {
    super(message);
    this.name = 'LadderError';
    this.offset = offset;
  }
}

/**
 * `"PT30M group:finance-leads; PT2H manager; PT8H email:cfo@example.com"` as levels, their times strictly
 * increasing. Throws `LadderError`.
 */
export function parseLadder(text: string): LadderLevel[] {
  if (text.length > MAX_LADDER_CHARS) {
    throw new LadderError(MAX_LADDER_CHARS, `longer than ${MAX_LADDER_CHARS} characters: a ladder names a few levels`);
  }
  const levels: LadderLevel[] = [];
  let start = 0;
  for (const part of text.split(';')) {
    const offset = start + (part.length - part.trimStart().length);
    start += part.length + 1;
    const level = part.trim();
    if (level.length === 0) throw new LadderError(offset, `level ${levels.length + 1} is empty`);
    const space = level.search(/\s/);
    const duration = space < 0 ? level : level.slice(0, space);
    const whom = space < 0 ? '' : level.slice(space).trim();
    const afterSeconds = durationSeconds(duration);
    if (afterSeconds === undefined) {
      throw new LadderError(
        offset,
        `"${duration}" is not an ISO 8601 duration of days, hours, minutes and seconds (PT30M, PT2H, P1DT12H)`,
      );
    }
    const previous = levels.at(-1);
    if (previous !== undefined && afterSeconds <= previous.afterSeconds) {
      throw new LadderError(offset, `"${duration}" is not later than the level before it`);
    }
    const whomAt = offset + level.indexOf(whom, duration.length);
    if (whom.length === 0) throw new LadderError(offset, `the level "${level}" names no approvers after its duration`);
    levels.push(levelOf(afterSeconds, whom, whomAt));
    if (levels.length > MAX_LADDER_LEVELS) throw new LadderError(offset, `more than ${MAX_LADDER_LEVELS} levels`);
  }
  return levels;
}

function levelOf(afterSeconds: number, whom: string, offset: number): LadderLevel {
  const level: LadderLevel = { afterSeconds };
  const entries = whom.split(',').map((entry) => entry.trim());
  const named = entries.filter((entry) => entry !== 'manager');
  if (named.length < entries.length) level.manager = true;
  if (named.length > 0) {
    level.approvers = parseApprovers(named.join(','), (message) => {
      const word = /"([^"]*)"/.exec(message)?.[1];
      const at = word === undefined ? -1 : whom.indexOf(word);
      return new LadderError(offset + Math.max(at, 0), message.replace('@approvers entry', 'approver'));
    });
  }
  return level;
}

/** An ISO 8601 duration of days, hours, minutes and seconds (no years or months: their length varies), in seconds. */
export function durationSeconds(text: string): number | undefined {
  const match = /^P(?:(\d{1,4})D)?(?:T(?:(\d{1,5})H)?(?:(\d{1,6})M)?(?:(\d{1,7})S)?)?$/.exec(text);
  if (match === null || text === 'P' || text.endsWith('T')) return undefined;
  const [, d = '0', h = '0', m = '0', s = '0'] = match;
  const seconds = Number(d) * 86_400 + Number(h) * 3_600 + Number(m) * 60 + Number(s);
  return seconds > 0 ? seconds : undefined;
}

/** The ladder of `HANDBACK_ESCALATION` (or, at synthesis, `handback:escalation`), errors naming it and the column. */
export function ladderSetting(text: string | undefined, name: string): LadderLevel[] | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return parseLadder(text);
  } catch (error) {
    if (!(error instanceof LadderError)) throw error;
    throw new Error(`${name} at column ${error.offset + 1}: ${error.message}.`);
  }
}

/**
 * `@approvers("group:finance, email:cfo@example.com, sub:ann, slack:T1:U1")` as approvers: groups, emails, and
 * subjects (a token's `sub`, or a Slack user's `slack:<team>:<user>`).
 */
export function parseApprovers(value: string, fail: (message: string) => Error): Approvers {
  const approvers: Approvers = {};
  const add = (key: keyof Approvers, entry: string) => {
    const list = approvers[key] ?? [];
    if (!list.includes(entry)) list.push(entry);
    approvers[key] = list;
  };
  const { entries, chars } = LIMITS.approvers;
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    const colon = entry.indexOf(':');
    const kind = entry.slice(0, colon);
    const name = entry.slice(colon + 1);
    if (colon <= 0 || name.length === 0 || name.length > chars) {
      throw fail(
        `@approvers entry "${entry}" must be group:<name>, email:<address>, sub:<subject> or slack:<team>:<user> (at most ${chars} characters after the prefix)`,
      );
    }
    if (kind === 'group') add('groups', name);
    else if (kind === 'email') add('emails', name);
    else if (kind === 'sub') add('subjects', name);
    else if (kind === 'slack') add('subjects', entry);
    else throw fail(`@approvers entry "${entry}": "${kind}:" is none of group:, email:, sub: and slack:`);
  }
  for (const key of ['subjects', 'emails', 'groups'] as const) {
    if ((approvers[key]?.length ?? 0) > entries) throw fail(`@approvers names more than ${entries} ${key}`);
  }
  return approvers;
}
