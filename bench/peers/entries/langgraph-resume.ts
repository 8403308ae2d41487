import { type AIMessage, ToolMessage } from '@langchain/core/messages';
import { Command, END, interrupt, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';

/** Cold-start peer: a Lambda resuming a LangGraph human-in-the-loop graph with `invoke(new Command({resume}))`. */
const graph = new StateGraph(MessagesAnnotation)
  .addNode('human', (state) => {
    const last = state.messages.at(-1) as AIMessage;
    const answer = interrupt({ question: 'Approve?' });
    return {
      messages: (last.tool_calls ?? []).map(
        (c) => new ToolMessage({ tool_call_id: c.id ?? '', content: JSON.stringify(answer) }),
      ),
    };
  })
  .addEdge(START, 'human')
  .addEdge('human', END)
  .compile({ checkpointer: new MemorySaver() });

export const handler = async (event: { threadId: string; answer: unknown }) =>
  graph.invoke(new Command({ resume: event.answer }), { configurable: { thread_id: event.threadId } });
