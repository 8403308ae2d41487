import type { LanguageModelV3CallOptions, LanguageModelV3Content } from '@ai-sdk/provider';
import type { BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { AgentInputItem, Model, ModelRequest } from '@openai/agents';
import type { Message, ModelStreamEvent } from '@strands-agents/sdk';

/**
 * Each framework's scripted model, as the docs pages show one (docs/ai-sdk.md and the others, "A scripted model to
 * copy"): it calls `refund_order` for order 42 (120) until the refund's result comes back, then answers
 * "Refunded.", counting its calls and keeping what it read. Each framework is loaded only for its own model. The AI
 * SDK's is the SDK's own mock: `MockLanguageModelV3` in `ai` 6, `MockLanguageModelV4` in `ai` 7.
 */

/** The call every scripted model makes first. */
export const CALL = { toolCallId: 'call_refund', toolName: 'refund_order', input: { orderId: '42', amount: 120 } };
const ANSWER = 'Refunded.';

/** What the model was sent as the refund's result, and how many calls it answered. */
export interface Seen {
  read?: unknown;
  calls: number;
}

/** A framework's side of the story: the model the snippet is given. */
export interface Side {
  model(seen: Seen): unknown;
}

/** The AI SDK's own mock model: the refund call, then, once the result came back, the answer. */
async function aiSdk(): Promise<Side> {
  const test = (await import('ai/test')) as Record<string, unknown>;
  const MockLanguageModel = (test.MockLanguageModelV4 ??
    test.MockLanguageModelV3) as typeof import('ai/test').MockLanguageModelV3;
  const usage = {
    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 0, text: 0, reasoning: 0 },
  };
  const model = (seen: Seen) =>
    new MockLanguageModel({
      async doGenerate({ prompt }: LanguageModelV3CallOptions) {
        seen.calls += 1;
        const tool = prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).find((p) => p.type === 'tool-result');
        if (tool !== undefined) seen.read = tool.output.type === 'json' ? tool.output.value : tool.output;
        const content: LanguageModelV3Content[] =
          tool === undefined
            ? [{ type: 'tool-call', ...CALL, input: JSON.stringify(CALL.input) }]
            : [{ type: 'text', text: ANSWER }];
        const finishReason = { unified: tool === undefined ? 'tool-calls' : 'stop', raw: undefined } as const;
        return { content, finishReason, usage, warnings: [] };
      },
    });
  return { model };
}

/** A `Model` of the Agents SDK: the refund call for the user's message, then the answer. */
async function openaiAgents(): Promise<Side> {
  const { setTracingDisabled, Usage } = await import('@openai/agents');
  setTracingDisabled(true);
  const model = (seen: Seen): Model => ({
    async getResponse(request: ModelRequest) {
      seen.calls += 1;
      const input = (typeof request.input === 'string' ? [] : request.input) as AgentInputItem[];
      const result = input.find((item) => item.type === 'function_call_result');
      if (result === undefined) {
        const call = { type: 'function_call', status: 'completed', id: 'fc_1', callId: CALL.toolCallId } as const;
        return {
          usage: new Usage(),
          responseId: 'resp_1',
          output: [{ ...call, name: CALL.toolName, arguments: JSON.stringify(CALL.input) }],
        };
      }
      seen.read = JSON.parse(String((result.output as { text?: string }).text));
      const message = { type: 'message', role: 'assistant', status: 'completed' } as const;
      return {
        usage: new Usage(),
        responseId: 'resp_2',
        output: [{ ...message, content: [{ type: 'output_text', text: ANSWER }] }],
      };
    },
    // biome-ignore lint/correctness/useYield: the snippets never stream
    async *getStreamedResponse() {
      throw new Error('The scripted model does not stream.');
    },
  });
  return { model };
}

/** A LangChain chat model: the refund call for the user's message, then the answer. */
async function langgraph(): Promise<Side> {
  const { BaseChatModel } = await import('@langchain/core/language_models/chat_models');
  const { AIMessage, ToolMessage } = await import('@langchain/core/messages');
  class ScriptedChatModel extends BaseChatModel {
    constructor(private readonly seen: Seen) {
      super({});
    }
    _llmType() {
      return 'scripted';
    }
    // A real chat model sends the tools' schemas to its provider; the script knows them already.
    override bindTools() {
      return this;
    }
    async _generate(messages: BaseMessage[]): Promise<ChatResult> {
      this.seen.calls += 1;
      const result = messages.find((m) => ToolMessage.isInstance(m));
      if (result !== undefined) this.seen.read = JSON.parse(String(result.content));
      const reply =
        result === undefined
          ? new AIMessage({ content: '', tool_calls: [{ id: CALL.toolCallId, name: CALL.toolName, args: CALL.input }] })
          : new AIMessage(ANSWER);
      return { generations: [{ message: reply, text: String(reply.content) }] };
    }
  }
  return { model: (seen) => new ScriptedChatModel(seen) };
}

/** A Strands `Model` streaming the refund call for the user's message, then, once the result came back, the answer. */
async function strands(): Promise<Side> {
  const { Model: StrandsModel } = await import('@strands-agents/sdk');
  class ScriptedModel extends StrandsModel {
    constructor(private readonly seen: Seen) {
      super();
    }
    updateConfig(): void {}
    getConfig() {
      return { modelId: 'scripted' };
    }
    async *stream(messages: Message[]): AsyncGenerator<ModelStreamEvent> {
      this.seen.calls += 1;
      const blocks = messages.flatMap((message) => message.toJSON().content);
      const result = blocks.flatMap((block) => ('toolResult' in block ? [block.toolResult] : [])).at(-1);
      yield { type: 'modelMessageStartEvent', role: 'assistant' };
      if (result === undefined) {
        const start = { type: 'toolUseStart', name: CALL.toolName, toolUseId: CALL.toolCallId } as const;
        yield { type: 'modelContentBlockStartEvent', start };
        yield {
          type: 'modelContentBlockDeltaEvent',
          delta: { type: 'toolUseInputDelta', input: JSON.stringify(CALL.input) },
        };
        yield { type: 'modelContentBlockStopEvent' };
        yield { type: 'modelMessageStopEvent', stopReason: 'toolUse' };
        return;
      }
      // A tool's object result reaches the model as a `json` block; anything else as text.
      const [content] = result.content;
      this.seen.read = content !== undefined && 'json' in content ? content.json : content;
      yield { type: 'modelContentBlockStartEvent' };
      yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: ANSWER } };
      yield { type: 'modelContentBlockStopEvent' };
      yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' };
    }
  }
  return { model: (seen) => new ScriptedModel(seen) };
}

/** Each framework's side, loaded only for its own snippets (loading all four takes seconds). */
export const frameworks = { 'ai-sdk': aiSdk, 'openai-agents': openaiAgents, langgraph, strands };

export type Framework = keyof typeof frameworks;
