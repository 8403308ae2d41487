import { MissingToolResultsError, type ModelMessage, modelMessageSchema } from 'ai';
import { convertToLanguageModelPrompt, standardizePrompt } from 'ai/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendResults, applyDecisions, type Decision, rehydrate } from '../../../functions/index.ts';
import { aiSdkFixture } from '../../fixtures/formats/ai-sdk.ts';
import { addressOf, answers, threeCallSpec, transcriptSpecs } from '../../fixtures/transcript-spec.ts';

/** What `generateText`/`streamText` do with `messages` before any provider sees them. */
async function toModelPrompt(messages: unknown[]) {
  const prompt = await standardizePrompt({ messages: messages as ModelMessage[], allowSystemInMessages: true });
  return convertToLanguageModelPrompt({ prompt, supportedUrls: {}, download: undefined });
}

function rejectedMessages(messages: unknown[]): unknown[] {
  return messages.filter((message) => !modelMessageSchema.safeParse(message).success);
}

const hand: [string, unknown[], string][] = [
  [
    'a round with text, reasoning and a provider-executed call',
    [
      { role: 'system', content: 'You are a support agent.' },
      { role: 'user', content: [{ type: 'text', text: 'Refund order 42?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Need approval.', providerOptions: { anthropic: { signature: 'sig' } } },
          { type: 'text', text: 'Checking.' },
          {
            type: 'tool-call',
            toolCallId: 'srv_1',
            toolName: 'web_search',
            input: { q: 'policy' },
            providerExecuted: true,
          },
          { type: 'tool-result', toolCallId: 'srv_1', toolName: 'web_search', output: { type: 'json', value: [] } },
          { type: 'tool-call', toolCallId: 'call_ask', toolName: 'ask_human', input: { q: 'Approve?' } },
          { type: 'tool-call', toolCallId: 'call_notify', toolName: 'notify', input: {} },
        ],
      },
    ],
    'call_ask',
  ],
  [
    'a round whose tool message already has a result and an approval response',
    [
      { role: 'user', content: 'Refund order 42?' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'call_lookup', toolName: 'lookup_order', input: { orderId: '42' } },
          { type: 'tool-call', toolCallId: 'call_ask', toolName: 'ask_human', input: {} },
          { type: 'tool-approval-request', approvalId: 'ap_1', toolCallId: 'call_lookup' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: 'ap_1', approved: true },
          {
            type: 'tool-result',
            toolCallId: 'call_lookup',
            toolName: 'lookup_order',
            output: { type: 'text', value: 'shipped' },
          },
        ],
      },
    ],
    'call_ask',
  ],
];

describe('ai-sdk interop with the ai package', () => {
  it.each(hand)('modelMessageSchema accepts every message of %s, rebuilt', async (_label, messages, toolCallId) => {
    // ai/internal bundles its own copy of the class, so match by the SDK's marker, not instanceof.
    await expect(toModelPrompt(messages)).rejects.toSatisfy((error) => MissingToolResultsError.isInstance(error));
    const rebuilt = rehydrate({ format: 'ai-sdk', messages, toolCallId }, { approved: true });
    expect(rejectedMessages(rebuilt)).toEqual([]);
    await expect(toModelPrompt(rebuilt)).resolves.toBeInstanceOf(Array);
  });

  it('turns the paused fixture transcript into a prompt the AI SDK sends on', async () => {
    const spec = threeCallSpec({ answered: [0], prior: ['shipped'] });
    const rebuilt = rehydrate({ format: 'ai-sdk', messages: aiSdkFixture.render(spec), toolCallId: 'call_ask' }, 'yes');
    const prompt = await toModelPrompt(rebuilt);
    const toolMessage = prompt.at(-1);
    expect(toolMessage?.role).toBe('tool');
    expect(toolMessage?.content).toMatchObject([
      { type: 'tool-result', toolCallId: 'call_lookup', output: { type: 'text', value: 'shipped' } },
      { type: 'tool-result', toolCallId: 'call_ask', output: { type: 'text', value: 'yes' } },
      { type: 'tool-result', toolCallId: 'call_notify', output: { type: 'error-text' } },
    ]);
  });

  it('modelMessageSchema accepts every message of rebuilt transcripts of generated specs', async () => {
    await fc.assert(
      fc.asyncProperty(transcriptSpecs(aiSdkFixture.callId), answers, fc.nat(), async (spec, answer, pick) => {
        const messages = aiSdkFixture.render(spec);
        expect(rejectedMessages(messages)).toEqual([]);
        const reserved = spec.paused.calls.map((_, k) => k).filter((k) => !spec.paused.answered.includes(k));
        const toolCallId = addressOf(spec, reserved[pick % reserved.length] ?? 0);
        const rebuilt = rehydrate({ format: 'ai-sdk', messages, toolCallId }, answer);
        expect(rejectedMessages(rebuilt)).toEqual([]);
        await expect(toModelPrompt(rebuilt)).resolves.toBeInstanceOf(Array);
      }),
      { numRuns: 80 },
    );
  });

  it('modelMessageSchema accepts the continuation of decided rounds once appendResults adds the dispatch results', async () => {
    const decision = fc.constantFrom('answer', 'approve', 'edit', 'reject', 'none');
    await fc.assert(
      fc.asyncProperty(
        transcriptSpecs(aiSdkFixture.callId),
        fc.array(decision, { minLength: 5, maxLength: 5 }),
        async (spec, kinds) => {
          const messages = aiSdkFixture.render(spec);
          const decisions = spec.paused.calls.flatMap((_, k): Decision[] => {
            const toolCallId = addressOf(spec, k);
            if (spec.paused.answered.includes(k)) return [];
            switch (kinds[k]) {
              case 'answer':
                return [{ toolCallId, answer: { k } }];
              case 'approve':
                return [{ toolCallId, decision: 'approve' }];
              case 'edit':
                return [{ toolCallId, decision: 'edit', args: { edited: k } }];
              case 'reject':
                return [{ toolCallId, decision: 'reject', reason: 'no' }];
              default:
                return [];
            }
          });
          fc.pre(decisions.length > 0);
          const { messages: decided, dispatch } = applyDecisions({ format: 'ai-sdk', messages }, decisions);
          expect(rejectedMessages(decided)).toEqual([]);
          const completed = appendResults(
            'ai-sdk',
            decided,
            dispatch.map((call, i) => ({
              toolCallId: call.toolCallId,
              output: { ran: call.args },
              isError: i % 2 === 1,
            })),
          );
          expect(rejectedMessages(completed)).toEqual([]);
          await expect(toModelPrompt(completed)).resolves.toBeInstanceOf(Array);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('carries an edited call’s new input and an error-text result through to the prompt the AI SDK builds', async () => {
    const spec = threeCallSpec();
    const { messages, dispatch } = applyDecisions({ format: 'ai-sdk', messages: aiSdkFixture.render(spec) }, [
      { toolCallId: 'call_lookup', decision: 'edit', args: { orderId: '43' } },
      { toolCallId: 'call_ask', decision: 'reject' },
    ]);
    const completed = appendResults('ai-sdk', messages, [
      { toolCallId: dispatch[0]?.toolCallId ?? '', output: 'not found', isError: true },
    ]);
    const prompt = await toModelPrompt(completed);
    const assistant = prompt.findLast((message) => message.role === 'assistant');
    expect(assistant?.content).toContainEqual(
      expect.objectContaining({ type: 'tool-call', toolCallId: 'call_lookup', input: { orderId: '43' } }),
    );
    expect(prompt.at(-1)?.content).toMatchObject([
      { type: 'tool-result', toolCallId: 'call_lookup', output: { type: 'error-text', value: 'not found' } },
      { type: 'tool-result', toolCallId: 'call_ask', output: { type: 'error-text' } },
      { type: 'tool-result', toolCallId: 'call_notify', output: { type: 'error-text' } },
    ]);
  });
});
