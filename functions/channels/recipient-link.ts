import type { UseCaseDeps } from '../resume/resume.ts';
import type { RecipientLink } from './email.ts';

/**
 * The recipient's own answer link (§14, §16) from the deployment's link signer, at the inbox URL known once the service
 * listens (or the stack's `HANDBACK_INBOX_URL`): a delivered link, mailed to that address, so what its holder decides is
 * recorded as `email:<address>`, verified.
 */
export function recipientLinkOf(useCases: UseCaseDeps): RecipientLink {
  return async (pause, recipient) => {
    const { links, inboxUrl } = useCases;
    if (links === undefined || inboxUrl === undefined) throw new Error('Answer links are not configured.');
    return links.linkFor(pause, inboxUrl, { kind: 'delivered', recipient });
  };
}
