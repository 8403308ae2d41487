import { foldEmail } from '../emails.ts';

/**
 * The deployment's recipient domains (§16), read and compared: a module of its own, with no schema, so the settings'
 * loader (`handlers/config.ts`) loads no validator at init (§23). The refusal that uses them is `recipients.ts`'s.
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
