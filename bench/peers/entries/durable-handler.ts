import { type DurableContext, withDurableExecution } from '@aws/durable-execution-sdk-js';

/** Cold-start peer: a Lambda durable function that waits for a person with `waitForCallback`. */
export const handler = withDurableExecution(async (event: { steps: number }, context: DurableContext) => {
  const transcript: string[] = [];
  for (let i = 0; i < event.steps; i++) transcript.push(await context.step(`step-${i}`, async () => `message ${i}`));
  const answer = await context.waitForCallback('approval', async () => {});
  return { transcript, answer };
});
