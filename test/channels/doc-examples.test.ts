import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { headline } from '../../functions/channels/slack-message.ts';
import {
  EXAMPLE_PAUSE,
  emailTextBlock,
  emailTextBlockOf,
  slackDecidedExample,
  slackExample,
} from '../../scripts/channel-examples.ts';

/**
 * The channels' examples in the docs are what the renderers make (`scripts/channel-examples.ts`): when a renderer
 * changes, this fails until `npx tsx scripts/channel-examples.ts` has rewritten them.
 */

const docs = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');
const REWRITE = 'run `npx tsx scripts/channel-examples.ts` to rewrite it';

describe('the channels examples in the docs', () => {
  it('docs/slack-message.json is the Slack message the channel posts for the example pause', () => {
    expect(docs('slack-message.json'), REWRITE).toBe(slackExample());
  });

  it('docs/slack-message-decided.json is the same message once Alice approved: who decided, and no buttons on that ask', () => {
    expect(docs('slack-message-decided.json'), REWRITE).toBe(slackDecidedExample());
    const blocks = JSON.parse(slackDecidedExample()).blocks as Array<{ type: string; block_id?: string }>;
    expect(JSON.stringify(blocks)).toContain(':white_check_mark: Approved by Alice Approver');
    expect(blocks.filter((block) => block.type === 'actions').map((block) => block.block_id)).toEqual(['ask:1']);
  });

  it('docs/channels.md shows the plain-text email the channel sends for the same pause', () => {
    expect(emailTextBlockOf(docs('channels.md')), REWRITE).toBe(emailTextBlock());
  });

  it('docs/channels.md names the subject both examples carry', () => {
    expect(headline(EXAMPLE_PAUSE)).toBe('Approval needed: refund_order, pick_reason — order-42');
    expect(docs('channels.md')).toContain(`\`${headline(EXAMPLE_PAUSE)}\``);
  });
});
