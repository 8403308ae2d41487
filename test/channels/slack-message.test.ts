import type { KnownBlock, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { breakFences, pauseMessage } from '../../functions/channels/slack-message.ts';
import { INBOX_PAUSE_QUERY } from '../../functions/vocabulary.ts';
import type { PauseView } from '../../functions/wire.ts';

/** The pure Slack message of a pause: what the model wrote stays inside its code block, and the link opens the pause. */

function view(args: Record<string, unknown>): PauseView {
  return {
    runId: 'order-42',
    interruptId: 'p-1/2 & more',
    status: 'paused',
    format: 'openai-chat',
    toolCall: { id: 'call_refund', name: 'refund_order', args },
    prompt: null,
    answerSchema: null,
    asks: [{ toolCallId: 'call_refund', name: 'refund_order', args, kind: 'approval', prompt: null, editable: true }],
    decided: [],
    pending: ['call_refund'],
    metadata: null,
    onExpiry: 'fail',
    createdAt: '2026-12-01T00:00:00.000Z',
    expiresAt: '2026-12-08T00:00:00.000Z',
  } as PauseView;
}

function askSection(blocks: KnownBlock[]): string {
  const section = blocks.find(
    (block): block is SectionBlock => block.type === 'section' && block.text?.text.includes('refund_order') === true,
  );
  return section?.text?.text ?? '';
}

describe('the Slack message of a pause', () => {
  it.each([
    ['three backticks', { note: '```\n*all refunds approved*\n```' }],
    ['a longer run', { note: 'a ````` b' }],
    ['backticks at the end of a value', { note: 'ends in ``' }],
  ])('keeps arguments with %s inside their one code block', (_what, args) => {
    const text = askSection(pauseMessage(view(args)).blocks);
    // The opening fence and the closing one, and no other run of three anywhere.
    expect(text.match(/```/g)).toHaveLength(2);
    expect(text.endsWith('```')).toBe(true);
    expect(text).toContain(`\`\`\`${breakFences(JSON.stringify(args, null, 2))}\`\`\``);
  });

  it('breaks a run of backticks with zero-width spaces and leaves single ones alone', () => {
    expect(breakFences('a ``` b ` c')).toBe('a `\u200B`\u200B` b ` c');
  });

  it('links to that pause in the inbox, as the page reads it (?run=…&pause=…)', () => {
    const { blocks } = pauseMessage(view({}), { inboxUrl: 'https://handback.example.com/inbox' });
    const last = blocks.at(-1);
    const text = last?.type === 'context' && last.elements[0]?.type === 'mrkdwn' ? last.elements[0].text : '';
    const match = /^<([^|>]+)\|Open in the inbox>$/.exec(text);
    expect(match).not.toBeNull();
    // mrkdwn escapes & as &amp; in the link, which Slack turns back before opening it.
    const url = new URL((match?.[1] ?? '').replaceAll('&amp;', '&'));
    expect(url.origin + url.pathname).toBe('https://handback.example.com/inbox');
    expect(url.searchParams.get(INBOX_PAUSE_QUERY.runId)).toBe('order-42');
    expect(url.searchParams.get(INBOX_PAUSE_QUERY.interruptId)).toBe('p-1/2 & more');
  });

  it('says why a cancelled pause was cancelled (§22: answered at the terminal or closed)', () => {
    const cancelled = { ...view({}), status: 'cancelled', outcome: 'cancelled' as const };
    const text = (reason?: string) =>
      JSON.stringify(pauseMessage({ ...cancelled, ...(reason === undefined ? {} : { cancelReason: reason }) }).blocks);
    expect(text('answered at the terminal or closed')).toContain('*Cancelled* — answered at the terminal or closed');
    expect(text()).toContain('*Cancelled*"');
  });
});
