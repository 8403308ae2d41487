import { createAnswerLinks, createKeyCache } from '../links/answer-links.ts';
import type { AnswerLinks } from '../links/links.ts';
import { logger } from './observability.ts';
import { describeError, secretStringReader } from './secrets.ts';

/**
 * Answer links, when the deployment keeps a link key in Secrets Manager (`LINK_SECRET_ARN`). The key is read on first
 * use and cached (`createKeyCache`: five minutes, a failure remembered for five seconds), never at cold start: a slow
 * or failing Secrets Manager then costs only what needs the key — the link routes answer 503
 * `link_key_unavailable`, a pause's 201 goes without its `answerUrl` — and every other route keeps serving. This
 * module brings jose and the Secrets Manager client with it: the email channel, which signs a link for most events it
 * gets, imports it statically; the API and the lifecycle stream, most of whose requests and events neither sign nor
 * verify one, import it on first use (`answerLinksOnFirstUse` in `api.ts` and `lifecycle-events.ts`), so its chunk is
 * read only then.
 */

/** Answer links on the key in `linkSecretArn`, read when first needed; undefined when no secret is configured. */
export function loadAnswerLinks(linkSecretArn: string | undefined): AnswerLinks | undefined {
  return linkSecretArn === undefined ? undefined : answerLinksOn(linkSecretArn);
}

/** Answer links on the key in the secret `linkSecretArn`, read when first needed. */
export function answerLinksOn(linkSecretArn: string): AnswerLinks {
  const read = secretStringReader(linkSecretArn, 'LINK_SECRET_ARN');
  const key = createKeyCache(async () => new TextEncoder().encode(await read()), {
    onFailure: (error) => logger.warn('The answer-link key could not be read', { error: describeError(error) }),
  });
  return createAnswerLinks(key);
}
