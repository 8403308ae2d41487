import { type AnswerFailure, BadRequestError } from '../errors.ts';
import { CHANNEL_ADDRESSES, isEmailAddress } from '../fields.ts';
import { channels as CHANNELS_SETTING } from '../settings.ts';
import { CHANNEL_NAMES, type ChannelName, isOneOf } from '../vocabulary.ts';
import type { NotifyEntry } from '../wire.ts';

/**
 * Whom a pause tells (§14), pure: whether each entry's channel is configured (checked where the deployment's
 * configuration is known), and the entries a channel delivers to — the pause's own, or the deployment's defaults when
 * it gave none. The shape of `notify` and what each channel's address is are `fields.ts`'s (`notifyList`,
 * `CHANNEL_ADDRESSES`).
 */

/** A sender with a display name: `Name <address>`, the name without angle brackets or quotes. */
const NAMED_SENDER = /^([^<>"]*\S)\s*<([^<>]+)>$/;

/**
 * The address of a sender (`HANDBACK_EMAIL_FROM`, `handback:emailFrom`): an address, or `Name <address>`; throws
 * naming what is wrong, the same locally and at synthesis.
 */
export function senderAddress(from: string): string {
  const address = NAMED_SENDER.exec(from.trim())?.[2] ?? from.trim();
  if (!isEmailAddress(address)) {
    throw new Error(
      `must be an email address, or Name <address> (a verified SES identity, or an address of a verified domain, on AWS), not ${JSON.stringify(from.slice(0, 64))}`,
    );
  }
  return address;
}

/** What is wrong with `to` for `channel`, or undefined when it is well formed (`CHANNEL_ADDRESSES`). */
export function addressProblem(channel: ChannelName, to: unknown): string | undefined {
  const parsed = CHANNEL_ADDRESSES[channel].to.safeParse(to);
  return parsed.success ? undefined : `to ${parsed.error.issues[0]?.message ?? 'is not an address'}`;
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
export { notifyEntryKey as entryKey } from '../fields.ts';

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
