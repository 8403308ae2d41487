import { type AnswerFailure, BadRequestError } from '../errors.ts';
import { channels as CHANNELS_SETTING } from '../settings.ts';
import { CHANNEL_NAMES, type ChannelName, isOneOf, LIMITS } from '../vocabulary.ts';
import type { NotifyEntry } from '../wire.ts';

/**
 * Whom a pause tells (§14), pure: the shape of `notify` (checked with the rest of a pause's fields), whether each entry's
 * channel is configured (checked where the deployment's configuration is known), and the entries a channel delivers
 * to — the pause's own, or the deployment's defaults when it gave none.
 */

/** A Slack conversation id: a public or private channel (`C…`, `G…`) or a direct message (`D…`). */
const SLACK_CHANNEL_ID = /^[CGD][A-Z0-9]{8,}$/;
/** An address with one `@`, a dotted domain and no spaces or angle brackets: what SMTP and SES take as a recipient. */
const EMAIL_ADDRESS = /^[^\s@<>()",;]{1,64}@[^\s@<>()",;]+\.[^\s@<>()",;]{2,}$/;
/** Characters of an email address (RFC 5321's path limit). */
const EMAIL_CHARS = 254;

/** A sender with a display name: `Name <address>`, the name without angle brackets or quotes. */
const NAMED_SENDER = /^([^<>"]*\S)\s*<([^<>]+)>$/;

/**
 * The address of a sender (`HANDBACK_EMAIL_FROM`, `handback:emailFrom`): an address, or `Name <address>`; throws
 * naming what is wrong, the same locally and at synthesis.
 */
export function senderAddress(from: string): string {
  const address = NAMED_SENDER.exec(from.trim())?.[2] ?? from.trim();
  if (address.length > EMAIL_CHARS || !EMAIL_ADDRESS.test(address)) {
    throw new Error(
      `must be an email address, or Name <address> (a verified SES identity, or an address of a verified domain, on AWS), not ${JSON.stringify(from.slice(0, 64))}`,
    );
  }
  return address;
}

/** What a channel's `to` is (§14): each channel's own, so a new channel cannot be checked as another's by default. */
export interface ChannelAddress {
  /** What is wrong with `to`, or undefined when it is well formed. */
  problem(to: string): string | undefined;
  /** `to` as the delivery log names it and a pause's entries are compared: `<channel>:<key>`. */
  key(to: string): string;
  /**
   * Whether an agent's pause may name `to` only inside the deployment's recipient domains (§16): an address that
   * reaches whomever it names (an email), not a place the deployment set up (a Slack channel its app was invited to).
   */
  heldToDomains: boolean;
}

/** Each channel's addresses. */
export const CHANNEL_ADDRESSES: Record<ChannelName, ChannelAddress> = {
  slack: {
    problem: (to) =>
      SLACK_CHANNEL_ID.test(to)
        ? undefined
        : `to must be a Slack channel id such as C0123456789, got ${JSON.stringify(to.slice(0, 64))}`,
    key: (to) => to,
    heldToDomains: false,
  },
  email: {
    problem: (to) =>
      to.length <= EMAIL_CHARS && EMAIL_ADDRESS.test(to)
        ? undefined
        : `to must be an email address, got ${JSON.stringify(to.slice(0, 64))}`,
    key: (to) => to.toLowerCase(),
    heldToDomains: true,
  },
};

/** What is wrong with `to` for `channel`, or undefined when it is well formed. */
export function addressProblem(channel: ChannelName, to: unknown): string | undefined {
  if (typeof to !== 'string') return 'to must be a string';
  return CHANNEL_ADDRESSES[channel].problem(to);
}

/** The failures of a pause's `notify` (each at its JSON pointer); none when it is absent. */
export function notifyFailures(notify: unknown): AnswerFailure[] {
  if (notify === undefined) return [];
  if (!Array.isArray(notify) || notify.length > LIMITS.notifyEntries) {
    return [{ path: '/notify', message: `notify must be an array of at most ${LIMITS.notifyEntries} entries` }];
  }
  const failures: AnswerFailure[] = [];
  const seen = new Set<string>();
  notify.forEach((entry: unknown, index) => {
    const at = `/notify/${index}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      failures.push({ path: at, message: 'a notify entry must be an object {channel, to}' });
      return;
    }
    const { channel, to } = entry as Record<string, unknown>;
    if (!isOneOf(CHANNEL_NAMES, channel)) {
      failures.push({ path: `${at}/channel`, message: `channel must be one of ${CHANNEL_NAMES.join(', ')}` });
      return;
    }
    const problem = addressProblem(channel, to);
    if (problem !== undefined) {
      failures.push({ path: `${at}/to`, message: problem });
      return;
    }
    const key = entryKey(entry as NotifyEntry);
    if (seen.has(key)) failures.push({ path: at, message: `${key} is named twice` });
    seen.add(key);
  });
  return failures;
}

/**
 * Refuses (400, naming each entry) a `notify` entry whose channel this deployment has not configured: the pause would
 * otherwise be recorded with a promise to tell someone that nothing can keep.
 */
export function checkNotifyConfigured(
  notify: readonly NotifyEntry[] | undefined,
  configured: readonly ChannelName[],
): void {
  if (notify === undefined) return;
  const failures: AnswerFailure[] = [];
  notify.forEach((entry, index) => {
    if (!configured.includes(entry.channel)) {
      failures.push({
        path: `/notify/${index}/channel`,
        message: `the ${entry.channel} channel is not configured on this deployment`,
      });
    }
  });
  if (failures.length > 0) {
    throw new BadRequestError(
      `The pause names channels that are not configured: ${failures.map((f) => f.message).join('; ')}.`,
      failures,
    );
  }
}

/** The addresses `channel` delivers a pause to: the pause's own entries for it, or the default when it gave none. */
export function recipientsOf(
  notify: readonly NotifyEntry[] | undefined,
  channel: ChannelName,
  defaults: readonly string[],
): string[] {
  if (notify === undefined) return [...defaults];
  return notify.filter((entry) => entry.channel === channel).map((entry) => entry.to);
}

/** An entry as one string, `<channel>:<to>`: how the delivery log names it. */
export function entryKey(entry: NotifyEntry): string {
  return `${entry.channel}:${CHANNEL_ADDRESSES[entry.channel].key(entry.to)}`;
}

/** A comma-separated list of defaults (`HANDBACK_EMAIL_TO=a@x.com,b@x.com`), each checked like a `notify` entry. */
export function parseDefaults(channel: ChannelName, value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return [];
  const list = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const to of list) {
    const problem = addressProblem(channel, to);
    if (problem !== undefined) throw new Error(`The default ${channel} recipient is not valid: ${problem}.`);
  }
  return list;
}

/**
 * The well-formed entries of an unchecked `notify`, for the configured-channel check that runs before the store's own
 * checks (which name whatever else is wrong with it).
 */
export function notifyOf(input: { notify?: unknown }): NotifyEntry[] | undefined {
  if (!Array.isArray(input.notify)) return undefined;
  return input.notify.filter(
    (entry: unknown): entry is NotifyEntry =>
      typeof entry === 'object' && entry !== null && isOneOf(CHANNEL_NAMES, (entry as NotifyEntry).channel),
  );
}

/** The channels a deployment turned on, from a comma-separated list (`HANDBACK_CHANNELS=slack,email`); none when unset. */
export function parseChannelNames(value: string | undefined): ChannelName[] {
  const names = (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const name of names) {
    if (!isOneOf(CHANNEL_NAMES, name)) {
      throw new Error(`${CHANNELS_SETTING.env} names ${JSON.stringify(name)}: use ${CHANNEL_NAMES.join(', ')}.`);
    }
  }
  return names as ChannelName[];
}
