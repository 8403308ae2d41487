import { Agent, RunState, run, tool } from '@openai/agents';
import { z } from 'zod';

/** Cold-start peer: a Lambda resuming an OpenAI Agents run from `RunState.fromString`. */
const agent = new Agent({
  name: 'Support',
  instructions: 'You are a support agent.',
  tools: [
    tool({
      name: 'ask_human',
      description: 'Ask a person.',
      parameters: z.object({ question: z.string() }),
      needsApproval: true,
      execute: async () => 'approved',
    }),
  ],
});

export const handler = async (event: { state: string }) => {
  const state = await RunState.fromString(agent, event.state);
  for (const interruption of state.getInterruptions()) state.approve(interruption);
  return (await run(agent, state)).finalOutput;
};
