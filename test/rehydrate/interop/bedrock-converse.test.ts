import { Readable } from 'node:stream';
import { BedrockRuntimeClient, ConverseCommand, type Message } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, it } from 'vitest';
import { checkTranscript, NOT_DISPATCHED, rehydrate } from '../../../functions/index.ts';

/** A client whose request handler records the serialized Converse body and answers with a minimal response. */
function recordingClient(): { client: BedrockRuntimeClient; sent: () => { messages?: unknown } } {
  let body: { messages?: unknown } = {};
  const reply = {
    output: { message: { role: 'assistant', content: [{ text: 'Refunded.' }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    metrics: { latencyMs: 1 },
  };
  const client = new BedrockRuntimeClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    maxAttempts: 1,
    requestHandler: {
      handle: async (request: { body?: unknown }) => {
        body = JSON.parse(
          typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body as Uint8Array),
        );
        return {
          response: {
            statusCode: 200,
            headers: { 'content-type': 'application/json' },
            body: Readable.from([Buffer.from(JSON.stringify(reply))]),
          },
        };
      },
    } as never,
  });
  return { client, sent: () => body };
}

describe('bedrock-converse interop with @aws-sdk/client-bedrock-runtime', () => {
  const paused: Message[] = [
    { role: 'user', content: [{ text: 'Refund order 42, please.' }] },
    {
      role: 'assistant',
      content: [
        { reasoningContent: { reasoningText: { text: 'Needs approval.', signature: 'sig' } } },
        { text: 'I will ask.' },
        { toolUse: { toolUseId: 'tooluse_lookup', name: 'lookup_order', input: { orderId: '42' } } },
        { toolUse: { toolUseId: 'tooluse_ask', name: 'ask_human', input: { question: 'Approve?' } } },
      ],
    },
  ];

  it('sends a rebuilt transcript, typed as Message[], through ConverseCommand unchanged', async () => {
    const rebuilt = rehydrate({ format: 'bedrock-converse', messages: paused, toolCallId: 'tooluse_ask' }, 'Approved.');
    expect(checkTranscript('bedrock-converse', rebuilt)).toEqual([]);
    // The static proof that these shapes are Message is bedrock-converse.test-d.ts; this feeds the object to the SDK.
    const messages = rebuilt as Message[];
    const { client, sent } = recordingClient();
    const reply = await client.send(new ConverseCommand({ modelId: 'anthropic.claude-test', messages }));
    expect(reply.output?.message?.content).toEqual([{ text: 'Refunded.' }]);
    expect(sent().messages).toEqual(messages);
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { toolResult: { toolUseId: 'tooluse_lookup', content: [{ text: NOT_DISPATCHED }] } },
        { toolResult: { toolUseId: 'tooluse_ask', content: [{ text: 'Approved.' }] } },
      ],
    });
  });
});
