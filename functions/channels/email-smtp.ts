import { createTransport } from 'nodemailer';
import type { EmailTransport } from './email.ts';

/** Email by SMTP (`HANDBACK_SMTP_URL`, e.g. `smtp://127.0.0.1:2525`): the local service's transport. */
export function createSmtpTransport(url: string): EmailTransport {
  const transport = createTransport(url);
  return {
    async send(message) {
      await transport.sendMail({
        from: message.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
    },
  };
}
