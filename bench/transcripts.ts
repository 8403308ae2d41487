import type { FormatName } from '../functions/vocabulary.ts';

/**
 * Benchmark transcripts: the same conversation rendered in each of the seven formats, deterministically (a seeded
 * generator, so every run and every contestant sees the same bytes). A transcript is earlier complete rounds —
 * user text, an assistant call, its result, the assistant's reply: four messages of about 200 bytes of JSON each —
 * then the user's last message and a paused round of three calls, none answered yet; so a resume appends three
 * results, as the floor does. Text is drawn from a fixed vocabulary, which compresses about as well as prose.
 */

/** What every contestant needs of one transcript. */
export interface BenchTranscript {
  format: FormatName;
  messages: unknown[];
  /** `JSON.stringify(messages)`: what a resume reads back from the store. */
  text: string;
  /** The paused round's three call ids, in the order the assistant made them. */
  callIds: [string, string, string];
  /** The call the person answers (the second one, so answered-first reorders). */
  toolCallId: string;
}

/** The answer every benchmark resume gives. */
export const ANSWER = { approved: true, note: 'Approved by the on-call lead; refund up to 40 EUR.' } as const;

const WORDS = (
  'the order refund customer ticket shipped parcel invoice account status payment carrier warehouse address ' +
  'delivery tracking number approve reject escalate manager policy limit amount euro dollar week day hour ' +
  'please check confirm update record note reason because since after before until while with without about ' +
  'agent tool call result lookup search fetch report summary draft email message reply thread channel team ' +
  'queue priority high low normal urgent pending closed open resolved returned damaged missing late early ' +
  'product item quantity price discount coupon credit balance charge fee tax total subtotal line entry ' +
  'region country city street postal code phone contact name first last date time zone schedule window slot ' +
  'i you we they it this that these those is are was were be been will would can could should may might must'
).split(' ');

/** A small, fast, seeded generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentenceMaker(seed: number): (chars: number) => string {
  const next = random(seed);
  return (chars) => {
    let out = '';
    while (out.length < chars) out += `${out === '' ? '' : ' '}${WORDS[Math.floor(next() * WORDS.length)]}`;
    return `${out[0]?.toUpperCase()}${out.slice(1)}.`;
  };
}

/** One call, format-neutral. */
interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** A format's renderer: the four message kinds a transcript is built of. */
interface Renderer {
  user(text: string): unknown;
  /** An assistant message with text and calls. */
  calls(text: string, calls: Call[]): unknown[];
  /** The results of one earlier round's calls (one per call, or one message holding them all). */
  results(calls: Call[], texts: string[]): unknown[];
  reply(text: string): unknown;
  /** What the floor appends: the three results of the paused round, built as simply as the format allows. */
  floorResults(calls: readonly Call[], texts: readonly string[]): unknown[];
}

const renderers: Record<FormatName, Renderer> = {
  'openai-chat': {
    user: (text) => ({ role: 'user', content: text }),
    calls: (text, calls) => [
      {
        role: 'assistant',
        content: text,
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        })),
      },
    ],
    results: (calls, texts) => calls.map((c, i) => ({ role: 'tool', tool_call_id: c.id, content: texts[i] })),
    reply: (text) => ({ role: 'assistant', content: text }),
    floorResults: (calls, texts) => calls.map((c, i) => ({ role: 'tool', tool_call_id: c.id, content: texts[i] })),
  },
  langchain: {
    user: (text) => ({ type: 'human', data: { content: text, additional_kwargs: {}, response_metadata: {} } }),
    calls: (text, calls) => [
      {
        type: 'ai',
        data: {
          content: text,
          tool_calls: calls.map((c) => ({ id: c.id, name: c.name, args: c.args, type: 'tool_call' })),
          invalid_tool_calls: [],
          additional_kwargs: {},
          response_metadata: {},
        },
      },
    ],
    results: (calls, texts) =>
      calls.map((c, i) => ({
        type: 'tool',
        data: {
          content: texts[i],
          tool_call_id: c.id,
          name: c.name,
          status: 'success',
          additional_kwargs: {},
          response_metadata: {},
        },
      })),
    reply: (text) => ({
      type: 'ai',
      data: { content: text, tool_calls: [], invalid_tool_calls: [], additional_kwargs: {}, response_metadata: {} },
    }),
    floorResults: (calls, texts) =>
      calls.map((c, i) => ({ type: 'tool', data: { content: texts[i], tool_call_id: c.id, name: c.name } })),
  },
  'openai-responses': {
    user: (text) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] }),
    calls: (text, calls) => [
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text, annotations: [] }],
      },
      ...calls.map((c) => ({
        type: 'function_call',
        call_id: c.id,
        name: c.name,
        arguments: JSON.stringify(c.args),
        status: 'completed',
      })),
    ],
    results: (calls, texts) => calls.map((c, i) => ({ type: 'function_call_output', call_id: c.id, output: texts[i] })),
    reply: (text) => ({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text, annotations: [] }],
    }),
    floorResults: (calls, texts) =>
      calls.map((c, i) => ({ type: 'function_call_output', call_id: c.id, output: texts[i] })),
  },
  anthropic: {
    user: (text) => ({ role: 'user', content: text }),
    calls: (text, calls) => [
      {
        role: 'assistant',
        content: [
          { type: 'text', text },
          ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args })),
        ],
      },
    ],
    results: (calls, texts) => [
      {
        role: 'user',
        content: calls.map((c, i) => ({ type: 'tool_result', tool_use_id: c.id, content: texts[i] })),
      },
    ],
    reply: (text) => ({ role: 'assistant', content: [{ type: 'text', text }] }),
    floorResults: (calls, texts) => [
      { role: 'user', content: calls.map((c, i) => ({ type: 'tool_result', tool_use_id: c.id, content: texts[i] })) },
    ],
  },
  'bedrock-converse': {
    user: (text) => ({ role: 'user', content: [{ text }] }),
    calls: (text, calls) => [
      {
        role: 'assistant',
        content: [{ text }, ...calls.map((c) => ({ toolUse: { toolUseId: c.id, name: c.name, input: c.args } }))],
      },
    ],
    results: (calls, texts) => [
      {
        role: 'user',
        content: calls.map((c, i) => ({ toolResult: { toolUseId: c.id, content: [{ text: texts[i] }] } })),
      },
    ],
    reply: (text) => ({ role: 'assistant', content: [{ text }] }),
    floorResults: (calls, texts) => [
      {
        role: 'user',
        content: calls.map((c, i) => ({ toolResult: { toolUseId: c.id, content: [{ text: texts[i] }] } })),
      },
    ],
  },
  gemini: {
    user: (text) => ({ role: 'user', parts: [{ text }] }),
    calls: (text, calls) => [
      {
        role: 'model',
        parts: [{ text }, ...calls.map((c) => ({ functionCall: { id: c.id, name: c.name, args: c.args } }))],
      },
    ],
    results: (calls, texts) => [
      {
        role: 'user',
        parts: calls.map((c, i) => ({ functionResponse: { id: c.id, name: c.name, response: { output: texts[i] } } })),
      },
    ],
    reply: (text) => ({ role: 'model', parts: [{ text }] }),
    floorResults: (calls, texts) => [
      {
        role: 'user',
        parts: calls.map((c, i) => ({ functionResponse: { id: c.id, name: c.name, response: { output: texts[i] } } })),
      },
    ],
  },
  'ai-sdk': {
    user: (text) => ({ role: 'user', content: text }),
    calls: (text, calls) => [
      {
        role: 'assistant',
        content: [
          { type: 'text', text },
          ...calls.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.args })),
        ],
      },
    ],
    results: (calls, texts) => [
      {
        role: 'tool',
        content: calls.map((c, i) => ({
          type: 'tool-result',
          toolCallId: c.id,
          toolName: c.name,
          output: { type: 'text', value: texts[i] },
        })),
      },
    ],
    reply: (text) => ({ role: 'assistant', content: text }),
    floorResults: (calls, texts) => [
      {
        role: 'tool',
        content: calls.map((c, i) => ({
          type: 'tool-result',
          toolCallId: c.id,
          toolName: c.name,
          output: { type: 'text', value: texts[i] },
        })),
      },
    ],
  },
};

const TOOLS = ['lookup_order', 'search_tickets', 'fetch_invoice', 'check_policy'];

/**
 * A paused transcript of about `messageCount` messages in `format` (exactly that many for counts of the form
 * 4k + 2 or 4k + 4, which 10, 100, 1,000 and 10,000 are, for the formats with one message per result).
 */
export function transcript(format: FormatName, messageCount: number, seed = 1): BenchTranscript {
  const r = renderers[format];
  const say = sentenceMaker(seed);
  const messages: unknown[] = [];
  const target = Math.max(2, messageCount) - 2; // the last user message and the paused round
  let round = 0;
  const callOf = (k: number): Call => ({
    id: `call_${seed}_${round}_${k}`,
    name: TOOLS[(round + k) % TOOLS.length] ?? 'lookup_order',
    args: { query: say(30) },
  });
  while (messages.length + 4 <= target) {
    const calls = [callOf(0)];
    messages.push(r.user(say(150)));
    messages.push(...r.calls(say(60), calls));
    messages.push(...r.results(calls, [say(150)]));
    messages.push(r.reply(say(150)));
    round++;
  }
  if (messages.length + 2 <= target) {
    messages.push(r.user(say(150)), r.reply(say(150)));
  }
  messages.push(r.user(say(150)));
  const paused = [callOf(0), callOf(1), callOf(2)] as [Call, Call, Call];
  messages.push(...r.calls(say(60), paused));
  const callIds = paused.map((c) => c.id) as [string, string, string];
  return { format, messages, text: JSON.stringify(messages), callIds, toolCallId: callIds[1] };
}

/** A transcript whose JSON is about `bytes` long (never under one paused round). */
export function transcriptOfBytes(format: FormatName, bytes: number, seed = 1): BenchTranscript {
  const probe = transcript(format, 102, seed);
  const perMessage = probe.text.length / probe.messages.length;
  let count = Math.max(2, Math.round(bytes / perMessage));
  if (count > 4) count = count - ((count - 2) % 2);
  return transcript(format, count, seed);
}

/** The floor's three result texts: the answer's JSON text and the not-dispatched text's length in filler. */
const FLOOR_TEXTS = [JSON.stringify(ANSWER), 'x'.repeat(150), 'x'.repeat(150)] as const;

/**
 * The floor of a resume's CPU: parse the stored transcript text and append three results — the least any resume
 * can do. Returns the new array so the work cannot be optimised away.
 */
export function floorResume(t: BenchTranscript): unknown[] {
  const messages = JSON.parse(t.text) as unknown[];
  const calls = t.callIds.map((id) => ({ id, name: 'lookup_order', args: {} }));
  messages.push(...renderers[t.format].floorResults(calls, FLOOR_TEXTS));
  return messages;
}
