import { type AnswerFailure, RecipientNotAllowedError } from '../errors.ts';
import { recipientDomains as RECIPIENT_DOMAINS } from '../settings.ts';
import { type Approvers, CHANNEL_ADDRESSES, type NotifyEntry, type Principal } from '../wire.ts';
import { foldEmail } from './identity.ts';

/**
 * Agents never choose their approvers (§16): the deployment's recipient domains, and the one refusal of a pause by an
 * `agent` that names an email outside them, as an approver or an email `notify` recipient.
 */

/** A domain name, ASCII: labels of letters, digits and hyphens, separated by dots. */
const DOMAIN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * The deployment's recipient domains from a comma-separated list (`HANDBACK_RECIPIENT_DOMAINS`, context
 * `handback:recipientDomains`), folded to lower case; none when unset. Throws naming an entry that is not a domain.
 */
export function parseRecipientDomains(value: string | undefined): string[] {
  const domains = (value ?? '')
    .split(',')
    .map((part) => foldEmail(part.trim()).replace(/^@/, ''))
    .filter((part) => part !== '');
  for (const domain of domains) {
    if (!DOMAIN.test(domain)) {
      throw new Error(
        `The recipient domain ${JSON.stringify(domain.slice(0, 64))} is not a domain name: give domains such as example.com, comma-separated.`,
      );
    }
  }
  return domains;
}

/** Whether `email`'s domain is one of `domains` or below one (`ops.example.com` is inside `example.com`). */
export function isInsideDomains(email: string, domains: readonly string[]): boolean {
  const at = email.lastIndexOf('@');
  if (at < 0) return false;
  const domain = foldEmail(email.slice(at + 1));
  return domains.some((allowed) => domain === allowed || domain.endsWith(`.${allowed}`));
}

/**
 * Refuses (400 `recipient_not_allowed`, naming each address) a pause by an `agent` that names an email outside the
 * deployment's recipient domains, as an approver or an email `notify` recipient (§16): an agent never chooses who
 * approves it. Without recipient domains an agent names approvers by subject and group only, and its email goes to
 * the deployment's default recipients. Other principals are not held to this.
 */
export function checkRecipients(
  pause: {
    pausedBy: Principal;
    asks: ReadonlyArray<{ approvers?: Approvers }>;
    notify?: readonly NotifyEntry[] | undefined;
  },
  domains: readonly string[],
  asksPath = (index: number) => `/asks/${index}`,
): void {
  if (pause.pausedBy.kind !== 'agent') return;
  const failures: AnswerFailure[] = [];
  const outside = (email: string) =>
    domains.length === 0
      ? `${email} is not allowed: an agent names approvers and email recipients by address only inside the deployment's recipient domains, and this deployment has none (${RECIPIENT_DOMAINS.env}, on AWS context ${RECIPIENT_DOMAINS.context})`
      : `${email} is outside the recipient domains (${domains.join(', ')}) an agent may name`;
  pause.asks.forEach((ask, index) => {
    ask.approvers?.emails?.forEach((email, at) => {
      if (!isInsideDomains(email, domains)) {
        failures.push({ path: `${asksPath(index)}/approvers/emails/${at}`, message: outside(email) });
      }
    });
  });
  pause.notify?.forEach((entry, index) => {
    if (CHANNEL_ADDRESSES[entry.channel].heldToDomains && !isInsideDomains(entry.to, domains)) {
      failures.push({ path: `/notify/${index}/to`, message: outside(entry.to) });
    }
  });
  if (failures.length > 0) {
    throw new RecipientNotAllowedError(
      `The pause names email addresses an agent may not choose; nothing was recorded or sent: ${failures.map((f) => f.message).join('; ')}.`,
      failures,
    );
  }
}
