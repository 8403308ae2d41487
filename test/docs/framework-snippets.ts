import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { LanguageModelV3CallOptions, LanguageModelV3Content } from '@ai-sdk/provider';
import type { BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { AgentInputItem, Model, ModelRequest } from '@openai/agents';
import type { Message, ModelStreamEvent } from '@strands-agents/sdk';
import type { HandbackStore } from '../../functions/adapters/shared.ts';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { createHandbackClient, type HandbackOperations, storeOperations } from '../../functions/client/index.ts';
import { startLocalStore } from '../../functions/local/public.ts';

/**
 * Runs one framework snippet of the README or a docs page (a fenced block with `given=<framework>`) as written, in
 * this process: `node --import tsx test/docs/framework-snippets.ts <framework> <file>`. The snippet declares what it
 * is given (`declare const model, store, refund`, or `handback` for `store`; erased when it runs) and exports
 * `onMessage(runId, text)` and `onContinuation(runId, continuationId)`; this harness puts the givens on `globalThis`
 * before importing it, so the snippet's names resolve to them, and drives one story through each way the snippet can
 * reach Handback — the library's store on `handback/local`, and `handback/client` against `npm start`'s service at
 * `HANDBACK_URL`:
 *
 * the model calls refund_order for 120; the snippet pauses; a person edits the amount to 60; the hand-off delivers
 * the continuation twice. It prints one JSON line: per backend, what was asked, what the refund API received while
 * paused and after, and what the model read and answered. `test/docs/snippets.slow.test.ts` asserts on it.
 */

/** The call every scripted model makes first. */
const CALL = { toolCallId: 'call_refund', toolName: 'refund_order', input: { orderId: '42', amount: 120 } };
const ANSWER = 'Refunded.';

/** What the model was sent as the refund's result, its last request. */
interface Seen {
  read?: unknown;
}

/** A framework's side of the story: the model the snippet is given, and the answer its `onContinuation` returns. */
interface Side {
  model(seen: Seen): unknown;
  answer(done: unknown): unknown;
}

/** The AI SDK's own mock model: the refund call, then, once the result came back, the answer. */
async function aiSdk(): Promise<Side> {
  const { MockLanguageModelV3 } = await import('ai/test');
  const usage = {
    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 0, text: 0, reasoning: 0 },
  };
  const model = (seen: Seen) =>
    new MockLanguageModelV3({
      async doGenerate({ prompt }: LanguageModelV3CallOptions) {
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
  return { model, answer: (done) => (done as { text: string }).text };
}

/** A `Model` of the Agents SDK: the refund call for the user's message, then the answer. */
async function openaiAgents(): Promise<Side> {
  const { setTracingDisabled, Usage } = await import('@openai/agents');
  setTracingDisabled(true);
  const model = (seen: Seen): Model => ({
    async getResponse(request: ModelRequest) {
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
  return { model, answer: (done) => (done as { result: { finalOutput: unknown } }).result.finalOutput };
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
      const result = messages.find((m) => ToolMessage.isInstance(m));
      if (result !== undefined) this.seen.read = JSON.parse(String(result.content));
      const reply =
        result === undefined
          ? new AIMessage({ content: '', tool_calls: [{ id: CALL.toolCallId, name: CALL.toolName, args: CALL.input }] })
          : new AIMessage(ANSWER);
      return { generations: [{ message: reply, text: String(reply.content) }] };
    }
  }
  return {
    model: (seen) => new ScriptedChatModel(seen),
    answer: (done) => (done as { values: { messages: BaseMessage[] } }).values.messages.at(-1)?.content,
  };
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
  // `resume` returns `{ continuation, responses, result }`; the SDK's `AgentResult` reads as its last text.
  return { model: (seen) => new ScriptedModel(seen), answer: (done) => String((done as { result: unknown }).result) };
}

/** Each framework's side, loaded only for its own snippets (loading all four takes seconds). */
const frameworks = { 'ai-sdk': aiSdk, 'openai-agents': openaiAgents, langgraph, strands };

type Framework = keyof typeof frameworks;

/** A way to Handback: what the snippet is given (`handback` for the AI SDK and Strands, `store` for the others). */
interface Backend {
  name: string;
  handback: HandbackOperations;
  store: HandbackStore;
  person: HandbackOperations;
  close(): Promise<void>;
}

async function localStore(): Promise<Backend> {
  const local = await startLocalStore();
  const store = createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName });
  const ada = { kind: 'person', subject: 'ada', via: 'library' } as const;
  return {
    name: 'the local store',
    handback: storeOperations(store, { tenant: 'acme' }),
    store,
    person: storeOperations(store, { tenant: 'acme', by: ada }),
    close: () => local.close(),
  };
}

async function client(): Promise<Backend> {
  const baseUrl = process.env.HANDBACK_URL;
  if (baseUrl === undefined) throw new Error('HANDBACK_URL names the local service to run the snippet against.');
  const client = createHandbackClient({ baseUrl });
  return { name: 'the client', handback: client, store: client, person: client, close: async () => {} };
}

/** One story through one backend: pause, a person edits, the continuation delivered twice. */
async function story(side: Side, file: string, backend: Backend) {
  const seen: Seen = {};
  const refunds: unknown[] = [];
  const refund = async (order: object) => {
    refunds.push(order);
    return { refundId: `rf_${refunds.length}`, ...order };
  };
  const given = { model: side.model(seen), handback: backend.handback, store: backend.store };
  Object.assign(globalThis, given, { refund });
  // A module is evaluated once per URL: a query of its own gives each backend a fresh instance, reading its givens.
  const snippet = await import(`${pathToFileURL(file).href}?${encodeURIComponent(backend.name)}`);
  const runId = `snippet-${randomUUID()}`;
  const paused = await snippet.onMessage(runId, 'Order 42 arrived broken. Refund it.');
  const ranWhilePaused = [...refunds];
  const decided = await backend.person.decide({
    runId,
    interruptId: paused.interruptId,
    decisions: [{ toolCallId: CALL.toolCallId, decision: 'edit', args: { orderId: '42', amount: 60 } }],
  });
  if (decided.kind !== 'closed') throw new Error(`The pause is still waiting for ${decided.pending.join(', ')}.`);
  // The hand-off delivers at least once (§6): the second delivery must not refund again.
  const first = await snippet.onContinuation(runId, decided.continuationId);
  await snippet.onContinuation(runId, decided.continuationId);
  return {
    asked: paused.asks,
    ranWhilePaused,
    dispatch: decided.dispatch,
    refunds,
    read: seen.read,
    answer: side.answer(first),
  };
}

const [framework, file] = process.argv.slice(2) as [Framework, string];
if (!(framework in frameworks) || file === undefined) {
  throw new Error(`Usage: framework-snippets.ts <${Object.keys(frameworks).join('|')}> <snippet file>`);
}
const side = await frameworks[framework]();
const report: Record<string, unknown> = {};
for (const start of [localStore, client]) {
  const backend = await start();
  try {
    report[backend.name] = await story(side, file, backend);
  } finally {
    await backend.close();
  }
}
console.log(JSON.stringify(report));
