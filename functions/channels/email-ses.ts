import { type SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import type { EmailTransport } from './email.ts';

/**
 * Email by SES v2 `SendEmail`, from the verified identity in `handback:emailFrom`, with the configuration set
 * `handback:emailConfigurationSet` when one is named: the transport on AWS.
 */
export function createSesTransport(client: SESv2Client, options: { configurationSet?: string } = {}): EmailTransport {
  return {
    async send(message) {
      await client.send(
        new SendEmailCommand({
          FromEmailAddress: message.from,
          ...(options.configurationSet === undefined ? {} : { ConfigurationSetName: options.configurationSet }),
          Destination: { ToAddresses: [message.to] },
          Content: {
            Simple: {
              Subject: { Data: message.subject, Charset: 'UTF-8' },
              Body: { Text: { Data: message.text, Charset: 'UTF-8' }, Html: { Data: message.html, Charset: 'UTF-8' } },
            },
          },
        }),
      );
    },
  };
}
