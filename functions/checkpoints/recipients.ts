import { type AnswerFailure, RecipientNotAllowedError } from '../errors.ts';
import { CHANNEL_ADDRESSES } from '../fields.ts';
import { recipientDomains as RECIPIENT_DOMAINS } from '../settings.ts';
import type { Approvers, NotifyEntry, Principal } from '../wire.ts';
import { isInsideDomains } from './recipient-domains.ts';

export { isInsideDomains, parseRecipientDomains } from './recipient-domains.ts';

/**
 * Agents never choose their approvers (§16): the deployment's recipient domains, and the one refusal of a pause by an
 * `agent` that names an email outside them, as an approver or an email `notify` recipient.
 */

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
