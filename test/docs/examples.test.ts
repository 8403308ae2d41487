import { describe, expect, it } from 'vitest';
import {
  appendResults,
  applyDecisions,
  checkTranscript,
  type DecidablePause,
  type Decision,
  type PauseLike,
  rehydrate,
  type ToolResult,
} from '../../functions/index.ts';
import { fencedBlocks, readPage } from './markdown.ts';

/**
 * The examples of docs/formats.md are what the library does. Each is a run of ```json blocks named `<example>:<role>`:
 * a `pause`; an `answer` (run through `rehydrate`) or `decisions` (through `applyDecisions`); then `tail` blocks, each
 * the end of the messages so far — every message before it unchanged — with `dispatch` and `results` (run through
 * `appendResults` on the messages so far) between them.
 */

type Step = { role: string; value: unknown; line: number };

function examples(): Map<string, Step[]> {
  const found = new Map<string, Step[]>();
  for (const block of fencedBlocks(readPage('docs/formats.md'))) {
    if (block.lang !== 'json') continue;
    const name = block.words.find((word) => word.includes(':'));
    if (name === undefined) continue;
    const [example = '', role = ''] = name.split(':');
    found.set(example, [...(found.get(example) ?? []), { role, value: JSON.parse(block.code), line: block.line }]);
  }
  return found;
}

const all = examples();

describe('the examples of docs/formats.md', () => {
  it('cover every format', () => {
    const formats = new Set(
      [...all.values()].map((steps) => (steps[0]?.value as { format?: string } | undefined)?.format),
    );
    expect([...formats].sort()).toEqual(
      ['ai-sdk', 'anthropic', 'bedrock-converse', 'gemini', 'langchain', 'openai-chat', 'openai-responses'].sort(),
    );
  });

  it.each([...all])('%s: the library returns what the page shows', (_, steps) => {
    const [first, ...rest] = steps;
    expect(first?.role).toBe('pause');
    const pause = first?.value as PauseLike & DecidablePause & { messages: unknown[] };
    let before: unknown[] = pause.messages;
    let messages: unknown[] = before;
    let dispatch: unknown;
    let tails = 0;
    for (const step of rest) {
      switch (step.role) {
        case 'answer':
          messages = rehydrate(pause, step.value);
          break;
        case 'decisions':
          ({ messages, dispatch } = applyDecisions(pause, step.value as Decision[]));
          break;
        case 'results':
          before = messages;
          messages = appendResults(pause.format, messages, step.value as ToolResult[]);
          break;
        case 'dispatch':
          expect(dispatch, `line ${step.line}`).toEqual(step.value);
          break;
        case 'tail': {
          const tail = step.value as unknown[];
          const kept = messages.length - tail.length;
          expect(messages.slice(0, kept), `line ${step.line}: the messages before the tail`).toEqual(
            before.slice(0, kept),
          );
          expect(messages.slice(kept), `line ${step.line}`).toEqual(tail);
          tails++;
          break;
        }
        default:
          throw new Error(`line ${step.line}: unknown role ${step.role}`);
      }
    }
    expect(tails).toBeGreaterThan(0);
    // Whatever the example ends with passes the strict check, but for calls still waiting in dispatch.
    if (dispatch === undefined || rest.some((step) => step.role === 'results')) {
      expect(checkTranscript(pause.format, messages)).toEqual([]);
    }
  });
});
