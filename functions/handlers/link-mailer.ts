import { SESv2Client } from '@aws-sdk/client-sesv2';
import { createLinkMailer } from '../channels/email.ts';
import { createSesTransport } from '../channels/email-ses.ts';
import type { LinkMailer } from '../resume/resume.ts';
import { traceAwsClient } from './tracing.ts';

/**
 * The API's mailer of delivered links on AWS (§16, `POST …/links` with `deliver: true`): SES v2 `SendEmail` from the
 * email channel's identity. This module is imported on the first link delivered, so the API's other routes never load
 * the SES client; the client is made once per container.
 */
let made: { key: string; mailer: LinkMailer } | undefined;

/** Mails a delivered link from `from` by SES in `region` (default the function's). */
export function sesLinkMailer(from: string, region: string | undefined): LinkMailer {
  const key = `${from} ${region ?? ''}`;
  if (made?.key !== key) {
    const client = traceAwsClient(new SESv2Client(region === undefined ? {} : { region }));
    made = { key, mailer: createLinkMailer({ transport: createSesTransport(client), from }) };
  }
  return made.mailer;
}
