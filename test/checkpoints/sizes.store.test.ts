import { describe, expect, it } from 'vitest';
import { PART_BYTES } from '../../functions/checkpoints/dynamodb/parts.ts';
import { NOT_DISPATCHED } from '../../functions/rehydrate/rehydrate.ts';
import { useTestTable } from '../support/dynamodb.ts';
import { chatTranscript, expectedContinuation, pauseInput, runItems, storeOn } from './support.ts';

const table = useTestTable();

describe('transcript sizes', () => {
  // Random base64 text: brotli keeps ~75 % of it, so the larger ones really are split across chunk items.
  it.each([
    ['1 KB', 1_000, 1],
    ['390 KB', 390_000, 2],
    ['410 KB', 410_000, 2],
    ['5 MB', 5_000_000, 14],
    ['16 MB', 16 * 1024 * 1024 - 2_000, 45],
  ])(
    'stores a %s transcript in parts under the item limit and reads it back byte-identical',
    async (_, padding, chunks) => {
      const store = storeOn(table);
      const messages = chatTranscript(padding);
      const json = JSON.stringify(messages);
      expect(json.length).toBeGreaterThanOrEqual(padding);
      const input = pauseInput({ messages });
      const { interruptId } = await store.pause(input);

      const items = await runItems(table, 'acme', input.runId);
      const chunkItems = items.filter((item) => item.kind === 'part');
      const pauseItem = items.find((item) => item.kind === 'pause');
      expect(chunkItems).toHaveLength(pauseItem?.chunkCount as number);
      expect(chunkItems.length).toBeGreaterThanOrEqual(chunks);
      for (const item of chunkItems) expect((item.data as Uint8Array).length).toBeLessThanOrEqual(PART_BYTES);

      // One read serves both checks: the continuation is the stored transcript, byte for byte, plus the results.
      const result = await store.resume({ tenant: 'acme', runId: input.runId, interruptId, answer: 'yes' });
      expect(JSON.stringify(result.messages.slice(0, -2))).toBe(json);
      expect(JSON.stringify(result.messages)).toBe(
        JSON.stringify(expectedContinuation(messages, 'yes', NOT_DISPATCHED)),
      );
    },
  );
});
