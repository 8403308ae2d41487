/**
 * What each framework snippet of the README and the docs (a ```ts block with `given=<framework>`) must do when
 * `framework-snippets.ts` runs it through each backend: the refund runs once for two deliveries, with the model's
 * args, and the model reads its result. The model calls are one for the pause and one per delivery where the framework
 * calls the model again on a redelivery (docs/ai-sdk.md, "Once"); LangGraph's checkpointer records the next step, so
 * its second delivery calls nothing. `test/docs/snippets.slow.test.ts` runs them.
 */

const refundedOnce = (modelCalls: number, printed: string[]) => ({
  refunds: [{ orderId: '42', amount: 120 }],
  modelCalls,
  read: { refundId: 'rf_1', orderId: '42', amount: 120 },
  printed,
});

/** What `framework-snippets.ts` prints for a framework's snippet, per backend. */
export const STORIES: Record<string, ReturnType<typeof refundedOnce>> = {
  'ai-sdk': refundedOnce(3, ['Refunded. Refunded.']),
  'openai-agents': refundedOnce(3, ['Refunded. Refunded.']),
  langgraph: refundedOnce(2, ['resumed already-resumed']),
  strands: refundedOnce(3, ['Refunded. Refunded.']),
};

/** The report of `framework-snippets.ts` for a snippet of `framework`: the same story on the store and the client. */
export function expectedStory(framework: string) {
  const story = STORIES[framework];
  return { 'the local store': story, 'the client': story };
}
