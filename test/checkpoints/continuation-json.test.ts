import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResumeResult } from '../../functions/checkpoints/checkpoint-store.ts';
import { messageCount, messagesJsonOf, stringifyWithMessages } from '../../functions/checkpoints/continuation-json.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { handoffPointer } from '../../functions/handoff/handoff.ts';
import { HTTP_MESSAGES_LIMIT_BYTES, resumeBody } from '../../functions/resume/fit.ts';
import { fixtures } from '../fixtures/formats/index.ts';
import { addressOf, transcriptSpecs } from '../fixtures/transcript-spec.ts';

/** What a handler writes of a result, first with its messages unparsed, then with them parsed and written again. */
function written(result: ResumeResult) {
  const spliced = {
    body: stringifyWithMessages(resumeBody(result, HTTP_MESSAGES_LIMIT_BYTES)),
    pointer: stringifyWithMessages(handoffPointer(result)),
    count: messageCount(result),
    unread: messagesJsonOf(result) !== undefined,
  };
  const messages = result.messages;
  return {
    spliced,
    parsed: {
      body: JSON.stringify(resumeBody({ ...result, messages }, HTTP_MESSAGES_LIMIT_BYTES)),
      pointer: JSON.stringify(handoffPointer({ ...result, messages })),
      count: messages.length,
    },
  };
}

describe.each(fixtures)('a continuation handed on as JSON ($format)', (fixture) => {
  it('is written byte for byte as parsing and writing its messages again would write it', async () => {
    const specs = transcriptSpecs(fixture.callId, { idless: fixture.format === 'gemini' }).filter(
      (spec) => spec.paused.answered.length < spec.paused.calls.length,
    );
    await fc.assert(
      fc.asyncProperty(specs, fc.string({ unit: 'grapheme', maxLength: 20 }), async (spec, answer) => {
        const store = createMemoryCheckpointStore();
        const open = spec.paused.calls.findIndex((_, k) => !spec.paused.answered.includes(k));
        const toolCallId = addressOf(spec, open);
        const messages = fixture.render(spec);
        const runId = 'run-1';
        const { interruptId } = await store.pause({ tenant: 't', runId, format: fixture.format, messages, toolCallId });
        const request = {
          tenant: 't',
          runId,
          interruptId,
          answer: fixture.refusesEmptyAnswer && answer === '' ? 'x' : answer,
        };
        const result = await store.resume(request);
        const { spliced, parsed } = written(result);
        expect(spliced.unread).toBe(true);
        expect(spliced.body).toBe(parsed.body);
        expect(spliced.pointer).toBe(parsed.pointer);
        expect(spliced.count).toBe(parsed.count);
        // A replay rebuilds the same text.
        const again = await store.resume(request);
        expect(stringifyWithMessages(resumeBody(again, HTTP_MESSAGES_LIMIT_BYTES))).toBe(parsed.body);
      }),
      { numRuns: 40 },
    );
  });
});
