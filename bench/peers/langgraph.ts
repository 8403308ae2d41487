import {
  type AIMessage,
  type BaseMessage,
  mapStoredMessagesToChatMessages,
  type StoredMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { Command, END, interrupt, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import type { PeerInput, PreparedResume } from './peer.ts';

/**
 * LangGraph's human-in-the-loop resume: a messages graph whose `human` node calls `interrupt()` on the paused round
 * and, on resume, appends one tool message per call (the answer to the answered call, a not-dispatched text to the
 * others), checkpointed by a MemorySaver. Pause = `invoke({messages})` up to the interrupt (untimed); resume =
 * `invoke(new Command({resume: answer}))` on the same thread (timed): load the checkpoint, re-run the node, reduce
 * the messages channel, write the next checkpoint.
 */

const NOT_DISPATCHED = 'Not run: this turn paused for a person to answer another tool call.';

function buildGraph(checkpointer: MemorySaver, toolCallId: string) {
  return new StateGraph(MessagesAnnotation)
    .addNode('human', (state) => {
      const last = state.messages.at(-1) as AIMessage;
      const answer = interrupt({ toolCallId, question: 'Approve?' });
      const calls = last.tool_calls ?? [];
      const ordered = [...calls.filter((c) => c.id === toolCallId), ...calls.filter((c) => c.id !== toolCallId)];
      return {
        messages: ordered.map(
          (c) =>
            new ToolMessage({
              tool_call_id: c.id ?? '',
              content: c.id === toolCallId ? JSON.stringify(answer) : NOT_DISPATCHED,
              status: c.id === toolCallId ? 'success' : 'error',
            }),
        ),
      };
    })
    .addEdge(START, 'human')
    .addEdge('human', END)
    .compile({ checkpointer });
}

function byteSize(value: unknown, seen = new Set<unknown>()): number {
  if (value instanceof Uint8Array) return value.byteLength;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (value === null || typeof value !== 'object' || seen.has(value)) return 0;
  seen.add(value);
  let total = 0;
  for (const item of Object.values(value as Record<string, unknown>)) total += byteSize(item, seen);
  return total;
}

let threads = 0;

/** A paused LangGraph thread holding `input.messages` (LangChain StoredMessages), ready to resume. */
export async function prepare(input: PeerInput): Promise<PreparedResume> {
  const checkpointer = new MemorySaver();
  const graph = buildGraph(checkpointer, input.toolCallId);
  const config = { configurable: { thread_id: `bench-${++threads}` } };
  const messages: BaseMessage[] = mapStoredMessagesToChatMessages(input.messages as StoredMessage[]);
  await graph.invoke({ messages }, config);
  // MemorySaver keeps serialized checkpoints (`storage`) and pending writes (`writes`) as bytes.
  const storedBytes =
    byteSize((checkpointer as unknown as { storage: unknown }).storage) +
    byteSize((checkpointer as unknown as { writes: unknown }).writes);
  return {
    storedBytes,
    async resume() {
      const out = await graph.invoke(new Command({ resume: input.answer }), config);
      if (out.messages.length !== messages.length + 3)
        throw new Error(`LangGraph resume returned ${out.messages.length} messages`);
      return out;
    },
  };
}
