import {
  Agent,
  type AgentInputItem,
  type AgentOutputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  RunState,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { z } from 'zod';
import type { PeerInput, PreparedResume } from './peer.ts';

/**
 * OpenAI Agents JS's human-in-the-loop resume: an agent whose tools need approval; a fake model (no network) that
 * answers the transcript with the paused round's three calls, and after their results with a final message. Pause =
 * `run(agent, items)` up to the interruptions, then `state.toString()` (untimed); resume (timed) =
 * `RunState.fromString(agent, text)`, approve the answered call and reject the other two, `run(agent, state)` to the
 * final output. `fromString` alone is timed too.
 */

setTracingDisabled(true);

type Item = Record<string, unknown>;

/** Responses API items (what Handback's openai-responses format holds) as the Agents SDK's protocol items. */
export function toAgentItems(items: readonly unknown[]): AgentInputItem[] {
  const names = new Map<string, string>();
  return (items as Item[]).map((item): AgentInputItem => {
    switch (item.type) {
      case 'function_call':
        names.set(String(item.call_id), String(item.name));
        return {
          type: 'function_call',
          callId: String(item.call_id),
          name: String(item.name),
          arguments: String(item.arguments),
          status: 'completed',
        };
      case 'function_call_output':
        return {
          type: 'function_call_result',
          callId: String(item.call_id),
          name: names.get(String(item.call_id)) ?? 'tool',
          status: 'completed',
          output: { type: 'text', text: String(item.output) },
        };
      default: {
        const content = item.content as Item[];
        if (item.role === 'assistant') {
          return {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: content.map((c) => ({ type: 'output_text' as const, text: String(c.text) })),
          };
        }
        return {
          type: 'message',
          role: 'user',
          content: content.map((c) => ({ type: 'input_text' as const, text: String(c.text) })),
        };
      }
    }
  });
}

class FakeModel implements Model {
  constructor(private readonly pausedRound: AgentOutputItem[]) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = typeof request.input === 'string' ? [] : request.input;
    const answered = input.some(
      (i) =>
        (i as Item).type === 'function_call_result' &&
        this.pausedRound.some((p) => (p as Item).callId === (i as Item).callId),
    );
    const output: AgentOutputItem[] = answered
      ? [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done.' }] }]
      : this.pausedRound;
    return { usage: new Usage(), output, responseId: 'resp_fake' };
  }
  // biome-ignore lint/correctness/useYield: the benchmark never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not used');
  }
}

const TOOL_NAMES = ['lookup_order', 'search_tickets', 'fetch_invoice', 'check_policy'];

function buildAgent(model: Model, answer: unknown) {
  return new Agent({
    name: 'Support',
    instructions: 'You are a support agent.',
    model,
    tools: TOOL_NAMES.map((name) =>
      tool({
        name,
        description: `The ${name} tool.`,
        parameters: z.object({ query: z.string() }),
        needsApproval: true,
        execute: async () => JSON.stringify(answer),
      }),
    ),
  });
}

/** A paused Agents run over `input.messages` (openai-responses items), serialized as `RunState.toString()`. */
export async function prepare(input: PeerInput): Promise<PreparedResume & { fromStringOnly(): Promise<unknown> }> {
  const items = toAgentItems(input.messages);
  const firstPaused = items.findIndex(
    (i) =>
      (i as Item).role === 'assistant' &&
      items.slice(items.indexOf(i) + 1).every((j) => (j as Item).type === 'function_call'),
  );
  const history = items.slice(0, firstPaused);
  const pausedRound = items.slice(firstPaused) as AgentOutputItem[];
  const agent = buildAgent(new FakeModel(pausedRound), input.answer);
  const runner = new Runner({ tracingDisabled: true });
  const paused = await runner.run(agent, history);
  if (paused.interruptions.length !== 3)
    throw new Error(`expected 3 interruptions, got ${paused.interruptions.length}`);
  const text = paused.state.toString();
  return {
    storedBytes: Buffer.byteLength(text),
    async fromStringOnly() {
      return RunState.fromString(agent, text);
    },
    async resume() {
      const state = await RunState.fromString(agent, text);
      for (const interruption of state.getInterruptions()) {
        if ((interruption.rawItem as Item).callId === input.toolCallId) state.approve(interruption);
        else state.reject(interruption);
      }
      const done = await runner.run(agent, state);
      if (done.finalOutput !== 'Done.') throw new Error(`unexpected final output ${String(done.finalOutput)}`);
      return done;
    },
  };
}
