import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Codec,
  decodeTranscript,
  encodeTranscript,
  serializeTranscript,
  sha256,
  UndecodableTranscript,
} from '../../functions/checkpoints/codec.ts';
import { canonicalJson } from '../../functions/json.ts';
import { chatTranscript } from './support.ts';

describe('the transcript codec', () => {
  it.each(Object.values(Codec))('round-trips a transcript through %s, as one run of bytes', async (codec) => {
    const messages = chatTranscript(600_000);
    const { header, bytes } = await encodeTranscript(serializeTranscript(messages), { codec });
    expect(header).toMatchObject({ codec, byteLength: bytes.length, sha256: sha256(bytes) });
    expect(await decodeTranscript(header, bytes)).toEqual(messages);
  });

  it('round-trips any JSON array of messages (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.jsonValue(), { minLength: 1, maxLength: 20 }), async (value) => {
        const messages = JSON.parse(JSON.stringify(value)) as unknown[];
        const { header, bytes } = await encodeTranscript(serializeTranscript(messages));
        expect(await decodeTranscript(header, bytes)).toEqual(messages);
      }),
      { numRuns: 50 },
    );
  });

  it.each([
    ['truncated bytes', (b: Uint8Array) => b.subarray(1), /bytes are \d+ where/],
    ['an extra byte', (b: Uint8Array) => Buffer.concat([b, new Uint8Array(1)]), /bytes are \d+ where/],
    ['a flipped byte', (b: Uint8Array) => Uint8Array.from(b, (x, i) => (i === 7 ? x ^ 0xff : x)), /sha256/],
    [
      'swapped halves',
      (b: Uint8Array) => Buffer.concat([b.subarray(b.length >> 1), b.subarray(0, b.length >> 1)]),
      /sha256/,
    ],
  ])('refuses %s', async (_, damage, reason) => {
    const { header, bytes } = await encodeTranscript(serializeTranscript(chatTranscript(50_000)));
    const error = await decodeTranscript(header, damage(bytes)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UndecodableTranscript);
    expect((error as Error).message).toMatch(reason);
  });

  it('refuses bytes that decompress to another length than recorded', async () => {
    const { header, bytes } = await encodeTranscript(serializeTranscript(chatTranscript()));
    await expect(decodeTranscript({ ...header, rawLength: header.rawLength - 1 }, bytes)).rejects.toThrow(
      UndecodableTranscript,
    );
  });

  it('refuses an unknown codec', async () => {
    const { header, bytes } = await encodeTranscript(serializeTranscript(chatTranscript()));
    await expect(decodeTranscript({ ...header, codec: 'zstd' as Codec }, bytes)).rejects.toThrow(/zstd/);
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

  it.each([10, 1_000, 100_000])(
    'writes a value nested %i levels deep as JSON.stringify would, without recursion',
    (depth) => {
      const text = `${'[{"a":'.repeat(depth)}1${'}]'.repeat(depth)}`;
      expect(canonicalJson(JSON.parse(text))).toBe(text);
    },
  );
});
