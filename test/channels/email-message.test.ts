import { describe, expect, it } from 'vitest';
import { pauseEmail } from '../../functions/channels/email-message.ts';
import type { PauseView } from '../../functions/wire.ts';
import { EXAMPLE_INBOX, EXAMPLE_PAUSE } from '../../scripts/channel-examples.ts';

/** The email of a pause, pure (§14): both parts say the same, the HTML escapes what the model wrote and loads nothing. */

const LINK = `${EXAMPLE_INBOX}#a.b.c`;
const withAsk = (over: Partial<PauseView['asks'][number]>): PauseView => ({
  ...EXAMPLE_PAUSE,
  asks: [{ ...(EXAMPLE_PAUSE.asks[0] as PauseView['asks'][number]), ...over }],
  pending: ['call_refund'],
});

describe('pauseEmail', () => {
  it('names what waits in the subject and says the same in both parts, with the recipient and their link', () => {
    const mail = pauseEmail(EXAMPLE_PAUSE, 'ops@example.com', LINK);
    expect(mail.to).toBe('ops@example.com');
    expect(mail.subject).toBe('Approval needed: refund_order, pick_reason — order-42');
    for (const part of [mail.text, mail.html]) {
      for (const shown of ['Refund this order?', 'Why is it refunded?', 'refund_order', 'pick_reason', 'order-42']) {
        expect(part).toContain(shown);
      }
      expect(part).toContain('Please refund order-42, it arrived broken.');
      expect(part).toContain('Opening the link decides nothing');
    }
    expect(mail.text).toContain(`Review and decide: ${LINK}`);
    expect(mail.html).toContain(`href="${LINK}"`);
    expect(mail.html.match(/<a /g)).toHaveLength(1);
  });

  it('says a reminder is one, in the subject and the first line', () => {
    const mail = pauseEmail(EXAMPLE_PAUSE, 'ops@example.com', LINK, { reminder: true });
    expect(mail.subject).toBe('Reminder: Approval needed: refund_order, pick_reason — order-42');
    expect(mail.text.split('\n')[0]).toBe('This still waits for your decision, until 2026-12-08T09:00:00.000Z.');
  });

  it('shows only the asks still pending', () => {
    const mail = pauseEmail(
      { ...EXAMPLE_PAUSE, decided: ['call_refund'], pending: ['call_reason'] },
      'ops@example.com',
      LINK,
    );
    expect(mail.text).not.toContain('Refund this order?');
    expect(mail.text).toContain('Why is it refunded?');
  });

  it.each([
    ['a prompt', withAsk({ prompt: '<img src=https://evil.example/x.png> & "more"' })],
    ['a tool name', withAsk({ name: '<script>alert(1)</script>' })],
    ['the arguments', withAsk({ args: { note: '</pre><img src="https://evil.example/x.png">' } })],
    ['the user message', { ...EXAMPLE_PAUSE, context: { user: '<iframe src="https://evil.example/"></iframe>' } }],
  ])('escapes %s in the HTML part, so it loads nothing', (_, view) => {
    const { html } = pauseEmail(view, 'ops@example.com', LINK);
    // As text it may say "src=": no tag of the HTML carries one.
    expect(html).not.toMatch(/<(img|script|iframe)|<[^>]*\bsrc=/i);
    expect(html).toContain('&lt;');
  });

  it('escapes the link in its href', () => {
    const { html } = pauseEmail(EXAMPLE_PAUSE, 'ops@example.com', `${EXAMPLE_INBOX}#"><img src=x>`);
    expect(html).toContain('href="https://handback.example.com/inbox#&quot;&gt;&lt;img src=x&gt;"');
  });

  it('cuts long arguments with "…" and points at the page for arguments left out', () => {
    const long = pauseEmail(withAsk({ args: { note: 'x'.repeat(10_000) } }), 'ops@example.com', LINK);
    expect(long.text).toContain('x…');
    expect(long.text.length).toBeLessThan(5_000);
    const omitted = pauseEmail(withAsk({ args: null, argsOmitted: true }), 'ops@example.com', LINK);
    expect(omitted.text).toContain('(too large to show here: open the link)');
  });
});
