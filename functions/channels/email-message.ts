import type { PauseView } from '../wire.ts';
import { headline } from './slack-message.ts';

/**
 * The email of a pause (§14), pure: a subject naming what waits, a plain-text and an HTML part that say the same
 * (prompts, tools, arguments, the last user message), no images, and one link, **Review and decide**, that is the
 * recipient's own answer link. Opening it decides nothing: it opens the inbox page, where the person decides.
 */

/** One email, before a transport sends it. */
export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

// Inline styles only: mail clients drop <style> blocks and never load stylesheets, and nothing here is remote.
const BODY_STYLE =
  'max-width:640px;padding:16px 20px;font-family:Helvetica,Arial,sans-serif;color:#1a1a1a;line-height:1.5';
const BUTTON_STYLE =
  'display:inline-block;background:#1d4ed8;color:#ffffff;font-weight:bold;padding:10px 18px;border-radius:6px;text-decoration:none';

/** Characters of arguments shown per ask; the inbox shows the rest. */
const ARGS_CHARS = 4000;

const escapeHtml = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');

const cutText = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** The email to `to` about `view`, with their own `link`; a reminder says so in its subject and first line. */
export function pauseEmail(
  view: PauseView,
  to: string,
  link: string,
  options: { reminder?: boolean } = {},
): EmailMessage {
  const subject = `${options.reminder ? 'Reminder: ' : ''}${headline(view)}`;
  const asks = view.asks.filter((ask) => view.pending.includes(ask.toolCallId));
  const lines: string[] = [];
  const html: string[] = [];
  const intro = options.reminder
    ? `This still waits for your decision, until ${view.expiresAt}.`
    : `An agent paused run ${view.runId} for a decision, until ${view.expiresAt}.`;
  lines.push(intro, '');
  html.push(
    `<h1 style="font-size:20px;margin:0 0 12px">${escapeHtml(headline(view))}</h1>`,
    `<p>${escapeHtml(intro)}</p>`,
  );
  if (view.context?.user !== undefined) {
    lines.push('The user asked:', view.context.user, '');
    html.push(`<p><strong>The user asked:</strong></p><blockquote>${escapeHtml(view.context.user)}</blockquote>`);
  }
  for (const ask of asks) {
    const prompt = ask.prompt ?? (ask.kind === 'approval' ? 'Approve this call?' : 'Answer this call');
    const args = ask.argsOmitted
      ? '(too large to show here: open the link)'
      : cutText(JSON.stringify(ask.args, null, 2) ?? 'null', ARGS_CHARS);
    lines.push(`${prompt}`, `Tool: ${ask.name}`, args, '');
    html.push(
      `<h2 style="font-size:16px">${escapeHtml(prompt)}</h2><p>Tool: <code>${escapeHtml(ask.name)}</code></p>`,
      `<pre style="background:#f4f4f4;padding:8px;white-space:pre-wrap">${escapeHtml(args)}</pre>`,
    );
  }
  lines.push(`Review and decide: ${link}`, '', 'Opening the link decides nothing; you decide on the page it opens.');
  html.push(
    `<p style="margin:24px 0"><a href="${escapeHtml(link)}" style="${BUTTON_STYLE}">Review and decide</a></p>`,
    '<p style="color:#555">Opening the link decides nothing; you decide on the page it opens.</p>',
  );
  return {
    to,
    subject,
    text: lines.join('\n'),
    html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head><body style="margin:0;background:#ffffff"><div style="${BODY_STYLE}">${html.join('')}</div></body></html>`,
  };
}
