import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server (`smtp-server`) on a free port that parses every message it receives with `mailparser`, for
 * `HANDBACK_SMTP_URL`: the email channel's tests and the email screenshot read what a mail client would get.
 */

/** A running catcher. */
export interface SmtpCatcher {
  /** `smtp://127.0.0.1:<port>`, for `HANDBACK_SMTP_URL`. */
  url: string;
  /** Every message received so far, parsed, in the order they arrived. */
  mails: ParsedMail[];
  close(): Promise<void>;
}

/** Starts a catcher on 127.0.0.1. */
export async function startSmtpCatcher(): Promise<SmtpCatcher> {
  const mails: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          mails.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The addresses a message was sent to. */
export const recipientsOf = (mail: ParsedMail): string[] =>
  (Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((to) => to?.value.map((a) => a.address ?? '') ?? []);

/** Polls `probe` every 25 ms until it gives something, or fails naming `what` after `ms`. */
export async function until<T>(probe: () => T | undefined | false, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
