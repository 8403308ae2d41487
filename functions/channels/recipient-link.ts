import type { UseCaseDeps } from '../resume/resume.ts';
import type { RecipientLink } from './email.ts';

/**
 * The recipient's own answer link (§13) from the deployment's link signer, at the inbox URL known once the service
 * listens (or the stack's `INBOX_URL`). The signer takes the recipient as a third argument where recipient links are built (its two-argument
 * form ignores it and signs the pause's own link).
 */
export function recipientLinkOf(useCases: UseCaseDeps): RecipientLink {
  return async (pause, recipient) => {
    const { links, inboxUrl } = useCases;
    if (links === undefined || inboxUrl === undefined) throw new Error('Answer links are not configured.');
    const linkFor = links.linkFor as (
      grant: typeof pause,
      inboxUrl: string,
      options: { recipient: typeof recipient },
    ) => Promise<string>;
    return linkFor.call(links, pause, inboxUrl, { recipient });
  };
}
