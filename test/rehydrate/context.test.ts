import { describe, expect, it } from 'vitest';
import { BadRequestError, InvalidTranscriptError } from '../../functions/index.ts';
import { turnContext } from '../../functions/rehydrate/context.ts';
import { fixtures } from '../fixtures/formats/index.ts';
import { threeCallSpec } from '../fixtures/transcript-spec.ts';

describe.each(fixtures)('turnContext ($format)', ({ format, render }) => {
  it('reads the last user text before the paused round and the assistant’s text in it', () => {
    expect(turnContext(format, render(threeCallSpec()))).toEqual({
      user: 'Refund it, please.',
      assistant: 'I will check with a person.',
    });
  });

  it('cuts each text to maxChars with an ellipsis', () => {
    expect(turnContext(format, render(threeCallSpec()), 8)).toEqual({ user: 'Refund …', assistant: 'I will …' });
  });

  it('leaves out the assistant’s text when the round has none', () => {
    const spec = threeCallSpec();
    spec.paused.text = '';
    expect(turnContext(format, render(spec))).toEqual({ user: 'Refund it, please.' });
  });

  it('goes back past messages without user text to the last user text there is', () => {
    const spec = threeCallSpec();
    spec.user = '';
    // (gemini folds the system prompt into the first user turn, before the user's words)
    expect(turnContext(format, render(spec)).user).toMatch(/^(You are a support agent\.\n)?Where is order 42\?$/);
  });

  it('refuses a transcript without a paused round', () => {
    const spec = threeCallSpec();
    const complete = render({ ...spec, paused: { ...spec.paused, calls: [] } });
    expect(() => turnContext(format, complete)).toThrow(InvalidTranscriptError);
  });
});

describe('turnContext', () => {
  it('skips user messages that carry only tool results, and keeps text that follows results', () => {
    const use = (id: string) => ({ type: 'tool_use', id, name: 'f', input: {} });
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'First ask.' }] },
      { role: 'assistant', content: [use('a')] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'done' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Next:' }, use('b'), { type: 'text', text: 'and then.' }] },
    ];
    expect(turnContext('anthropic', messages)).toEqual({ user: 'First ask.', assistant: 'Next:\nand then.' });
    const withText = [
      ...messages.slice(0, 2),
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'done' },
          { type: 'text', text: 'Hurry.' },
        ],
      },
      messages[3],
    ];
    expect(turnContext('anthropic', withText).user).toBe('Hurry.');
  });

  it('leaves out thoughts, reasoning, images and tool parts', () => {
    const gemini = [
      { role: 'user', parts: [{ text: 'Hi' }, { inlineData: { mimeType: 'image/png', data: 'AA==' } }] },
      {
        role: 'model',
        parts: [{ text: 'thinking…', thought: true }, { text: 'On it.' }, { functionCall: { name: 'f', args: {} } }],
      },
    ];
    expect(turnContext('gemini', gemini)).toEqual({ user: 'Hi', assistant: 'On it.' });
    const aiSdk = [
      {
        role: 'user',
        content: [
          { type: 'image', image: 'https://x/y.png' },
          { type: 'text', text: 'What is it?' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'text', text: 'Let me check.' },
          { type: 'tool-call', toolCallId: 'a', toolName: 'f', input: {} },
        ],
      },
    ];
    expect(turnContext('ai-sdk', aiSdk)).toEqual({ user: 'What is it?', assistant: 'Let me check.' });
    const bedrock = [
      { role: 'user', content: [{ text: 'Go.' }] },
      {
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: 'hmm' } } },
          { toolUse: { toolUseId: 'a', name: 'f', input: {} } },
        ],
      },
    ];
    expect(turnContext('bedrock-converse', bedrock)).toEqual({ user: 'Go.' });
  });

  it('joins the assistant messages of an openai-responses round and reads string contents', () => {
    const items = [
      { role: 'user', content: 'Plain text.' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'One.' }] },
      { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
      { role: 'assistant', content: 'Two.' },
      { type: 'function_call', call_id: 'b', name: 'f', arguments: '{}' },
    ];
    expect(turnContext('openai-responses', items)).toEqual({ user: 'Plain text.', assistant: 'One.\nTwo.' });
  });

  it('reads content parts of openai-chat and langchain messages', () => {
    const chat = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Part one.' },
          { type: 'image_url', image_url: { url: 'x' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
    ];
    expect(turnContext('openai-chat', chat)).toEqual({ user: 'Part one.' });
    const langchain = [
      { type: 'human', data: { content: [{ type: 'text', text: 'Blocks.' }] } },
      {
        type: 'ai',
        data: { content: [{ type: 'text', text: 'Sure.' }], tool_calls: [{ id: 'a', name: 'f', args: {} }] },
      },
    ];
    expect(turnContext('langchain', langchain)).toEqual({ user: 'Blocks.', assistant: 'Sure.' });
  });

  it('leaves out the user’s text when no user message before the round has any', () => {
    const chat = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: ' ' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
    ];
    expect(turnContext('openai-chat', chat)).toEqual({ assistant: 'Checking.' });
  });

  it('never cuts a surrogate pair in half', () => {
    const chat = [
      { role: 'user', content: 'ab😀cd' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
    ];
    expect(turnContext('openai-chat', chat, 4).user).toBe('ab…');
    expect(turnContext('openai-chat', chat, 5).user).toBe('ab😀…');
    expect(turnContext('openai-chat', chat, 1).user).toBe('…');
  });

  it.each([0, -1, 1.5, Number.NaN, '10'])('refuses maxChars %s with BadRequestError', (maxChars) => {
    expect(() => turnContext('openai-chat', [{ role: 'user', content: 'x' }], maxChars as number)).toThrow(
      BadRequestError,
    );
  });
});
