import { ALL_CHECKS } from '../checkpoints/checks.ts';
import { parseChannelNames } from '../checkpoints/notify.ts';
import { answerLinksOnFirstUse } from '../links/links.ts';
import type { LinkMailer } from '../resume/resume.ts';
import * as S from '../settings.ts';
import { settingOf } from './config.ts';
import { createApiHandler } from './http-api.ts';
import { config, useCaseDeps } from './runtime.ts';
import { scimDirectory } from './runtime-base.ts';

// Signing and verifying links (jose) and reading their key (the Secrets Manager client) load with the first request
// that needs them — a pause made while links are configured, a recipient's link, a link route — and once: resume,
// decide, list, get and cancel never do. The key itself is read on first use too, not here, so a slow key store
// never holds up the function's init.
const linkSecretArn = config.linkSecretArn;
const links =
  linkSecretArn === undefined
    ? undefined
    : answerLinksOnFirstUse(async () => (await import('./answer-links.ts')).answerLinksOn(linkSecretArn));
// The channels the stack turned on (§14): a pause's `notify` may name only these; their functions deliver.
const channels = parseChannelNames(settingOf(S.channels));
// With email on, the links asked for with `deliver: true` (§16) are mailed from here, by SES, loaded on first use.
const emailFrom = channels.includes('email') ? settingOf(S.emailFrom) : undefined;
const emailRegion = settingOf(S.emailRegion);
const deliverLink: LinkMailer | undefined =
  emailFrom === undefined
    ? undefined
    : async (view, recipient, link) =>
        (await import('./link-mailer.ts')).sesLinkMailer(emailFrom, emailRegion)(view, recipient, link);
const deps = {
  ...useCaseDeps(ALL_CHECKS),
  ...(channels.length === 0 ? {} : { channels }),
  ...(deliverLink === undefined ? {} : { deliverLink }),
};

// §20 SCIM: `/scim/v2` on the table-kept directory, its secret read (and its code loaded) by its first request.
const scimConfig = config.scim;
const scim =
  scimConfig === undefined || scimDirectory === undefined
    ? undefined
    : {
        tenant: scimConfig.tenant,
        token: async () => (await import('./scim-secret.ts')).readScimSecret(scimConfig.secretArn),
        keep: { directory: scimDirectory, documents: scimDirectory },
      };

/** The Lambda entry point; its dependencies are wired once, at cold start, in `runtime.ts`. */
export const handler = createApiHandler({
  ...deps,
  ...(links === undefined ? {} : { links }),
  ...(scim === undefined ? {} : { scim }),
});
