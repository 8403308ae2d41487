/**
 * A `fetch` standing in for OpenAI's API in the provider-request tests: it records each request body and answers as
 * the API documents, for the frameworks' own provider packages (`@ai-sdk/openai`, `@langchain/openai`).
 */

export type Body = Record<string, unknown> & { input?: unknown[]; messages?: unknown[] };

/** A `fetch` that records each request body and answers with the next of `replies`. */
export function recordingFetch(replies: Array<(body: Body) => unknown>) {
  const bodies: Body[] = [];
  const fetch = async (_url: unknown, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as Body;
    bodies.push(body);
    const reply = replies[Math.min(bodies.length, replies.length) - 1];
    if (reply === undefined) throw new Error('no reply scripted');
    return Response.json(reply(body));
  };
  return { bodies, fetch: fetch as typeof globalThis.fetch };
}

const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };

/** A Responses API reply: the given output items, completed. */
export const response = (id: string, output: unknown[]) => () => ({
  id,
  object: 'response',
  created_at: 1_780_000_000,
  status: 'completed',
  model: 'gpt-4.1',
  output,
  usage: { ...usage, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
});

export const functionCall = (callId: string, name: string, args: unknown) => ({
  type: 'function_call',
  id: `fc_${callId}`,
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
  status: 'completed',
});

export const assistantText = (text: string) => ({
  type: 'message',
  id: 'msg_1',
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text, annotations: [] }],
});
