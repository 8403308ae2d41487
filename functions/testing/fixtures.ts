import { randomBytes, randomUUID } from 'node:crypto';
import type { PauseInput } from '../checkpoints/checkpoint-store.ts';

/** Inputs the spec suites pause with: transcripts, pause inputs, a clock the test moves. */

/** An openai-chat transcript paused on `call_1` (ask_human) beside `call_2`; `padding` bytes of random base64 text. */
export function chatTranscript(padding = 0): unknown[] {
  const messages: unknown[] = [{ role: 'system', content: 'You are a careful assistant.' }];
  // Random base64 in pieces of at most 1 MB: JSON-incompressible beyond base64's own 6 bits a character.
  for (let left = padding; left > 0; left -= 1_000_000) {
    const size = Math.min(left, 1_000_000);
    messages.push({
      role: 'user',
      content: randomBytes(Math.ceil((size * 3) / 4))
        .toString('base64')
        .slice(0, size),
    });
    messages.push({ role: 'assistant', content: 'Noted.' });
  }
  messages.push({ role: 'user', content: 'hi' });
  messages.push({
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'ask_human', arguments: '{"question":"Ship it?"}' } },
      { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ],
  });
  return messages;
}

/** A pause input for a fresh run of `tenant`; `overrides` replace fields. */
export function pauseInput(overrides: Partial<PauseInput> = {}): PauseInput {
  return {
    tenant: 'acme',
    runId: `run-${randomUUID()}`,
    format: 'openai-chat',
    messages: chatTranscript(),
    toolCallId: 'call_1',
    prompt: 'Ship it?',
    ...overrides,
  };
}

/** A clock the test moves: starts at `start`, `advance(seconds)` moves it on. */
export function testClock(start = '2026-01-01T00:00:00.000Z'): { now: () => Date; advance(seconds: number): void } {
  let time = Date.parse(start);
  return {
    now: () => new Date(time),
    advance(seconds: number) {
      time += seconds * 1000;
    },
  };
}

/** An openai-chat round of the given calls: `[id, tool, args]`. */
export function policyTranscript(calls: ReadonlyArray<readonly [string, string, unknown]>): unknown[] {
  return [
    { role: 'user', content: 'Sort out order A-1042.' },
    {
      role: 'assistant',
      content: 'On it.',
      tool_calls: calls.map(([id, name, args]) => ({
        id,
        type: 'function',
        function: { name, arguments: JSON.stringify(args) },
      })),
    },
  ];
}
