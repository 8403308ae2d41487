import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHUNK_BYTES,
  Codec,
  canonicalJson,
  decodeTranscript,
  encodeTranscript,
  serializeTranscript,
  UndecodableTranscript,
} from '../../functions/checkpoints/codec.ts';
import { chatTranscript } from './support.ts';

describe('the transcript codec', () => {
  it.each(Object.values(Codec))('round-trips a transcript through %s and chunks', async (codec) => {
    const messages = chatTranscript(600_000);
    const encoded = await encodeTranscript(serializeTranscript(messages), { codec, chunkBytes: 100_000 });
    expect(encoded.chunks.length).toBe(encoded.chunkCount);
    expect(encoded.chunkCount).toBeGreaterThan(4);
    for (const chunk of encoded.chunks) expect(chunk.length).toBeLessThanOrEqual(100_000);
    expect(await decodeTranscript(encoded, encoded.chunks)).toEqual(messages);
  });

  it('keeps chunks well under the 400 KB item limit', () => {
    expect(CHUNK_BYTES).toBeLessThanOrEqual(300 * 1024);
  });

  it('round-trips any JSON array of messages (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue(), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 64 }),
        async (value, chunkBytes) => {
          const messages = JSON.parse(JSON.stringify(value)) as unknown[];
          const encoded = await encodeTranscript(serializeTranscript(messages), { chunkBytes });
          expect(await decodeTranscript(encoded, encoded.chunks)).toEqual(messages);
        },
      ),
      { numRuns: 50 },
    );
  });

  it.each([
    ['a missing chunk', (c: Uint8Array[]) => [c[0], undefined, ...c.slice(2)], /chunk 1 of \d+ is missing/],
    ['an extra chunk', (c: Uint8Array[]) => [...c, new Uint8Array(3)], /chunks where/],
    ['a truncated chunk', (c: Uint8Array[]) => [c[0]?.subarray(1), ...c.slice(1)], /bytes where/],
    [
      'a flipped byte',
      (c: Uint8Array[]) => [Uint8Array.from(c[0] ?? [], (b, i) => (i === 7 ? b ^ 0xff : b)), ...c.slice(1)],
      /sha256/,
    ],
    ['swapped chunks', (c: Uint8Array[]) => [c[1], c[0], ...c.slice(2)], /sha256/],
  ])('refuses %s', async (_, damage, reason) => {
    const encoded = await encodeTranscript(serializeTranscript(chatTranscript(50_000)), { chunkBytes: 10_000 });
    const error = await decodeTranscript(encoded, damage(encoded.chunks) as Uint8Array[]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UndecodableTranscript);
    expect((error as Error).message).toMatch(reason);
  });

  it('refuses bytes that decompress to another length than recorded', async () => {
    const encoded = await encodeTranscript(serializeTranscript(chatTranscript()));
    await expect(decodeTranscript({ ...encoded, rawLength: encoded.rawLength - 1 }, encoded.chunks)).rejects.toThrow(
      UndecodableTranscript,
    );
  });

  it('refuses an unknown codec', async () => {
    const encoded = await encodeTranscript(serializeTranscript(chatTranscript()));
    await expect(decodeTranscript({ ...encoded, codec: 'zstd' as Codec }, encoded.chunks)).rejects.toThrow(/zstd/);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('gives equal JSON values the same text whatever their key order (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const reversed = JSON.parse(JSON.stringify(value), (_, v: unknown) =>
          v !== null && typeof v === 'object' && !Array.isArray(v)
            ? Object.fromEntries(Object.entries(v).reverse())
            : v,
        );
        expect(canonicalJson(reversed)).toBe(canonicalJson(value));
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
