/**
 * Measures gzip against brotli on transcripts like the ones Handback stores; the numbers are recorded in
 * bench/codec.md. Run: `npx tsx bench/codec.ts` (not a test: it asserts nothing).
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';

/** Text from the installed packages: READMEs (prose), sources (code) and package.json files (JSON). */
function corpus(): { prose: string[]; code: string[]; json: string[] } {
  const prose: string[] = [];
  const code: string[] = [];
  const json: string[] = [];
  const root = 'node_modules';
  for (const name of readdirSync(root).sort()) {
    const dirs = name.startsWith('@')
      ? readdirSync(join(root, name)).map((sub) => join(root, name, sub))
      : [join(root, name)];
    for (const dir of dirs) {
      for (const file of safeList(dir)) {
        const path = join(dir, file);
        if (!statSync(path).isFile() || statSync(path).size > 200_000) continue;
        if (/^readme\.md$/i.test(file)) prose.push(readFileSync(path, 'utf8'));
        else if (file === 'package.json') json.push(readFileSync(path, 'utf8'));
        else if (/\.(js|ts)$/.test(file)) code.push(readFileSync(path, 'utf8'));
      }
    }
  }
  return { prose, code, json };
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** An openai-chat transcript of about `bytes` bytes: rounds of a user request, tool calls, results, a reply. */
function realisticTranscript(bytes: number, texts: ReturnType<typeof corpus>): unknown[] {
  const messages: unknown[] = [{ role: 'system', content: 'You are a careful coding assistant. Use the tools.' }];
  let size = 0;
  for (let round = 0; size < bytes; round++) {
    const prose = texts.prose[round % texts.prose.length] ?? '';
    const paragraphs = prose.split(/\n\n+/);
    const user = { role: 'user', content: paragraphs.slice(0, 3).join('\n\n') };
    const calls = [0, 1].map((n) => ({
      id: `call_${round}_${n}`,
      type: 'function',
      function: {
        name: n === 0 ? 'read_file' : 'package_info',
        arguments: JSON.stringify({ path: `src/file${round}.ts`, n }),
      },
    }));
    const results = [
      {
        role: 'tool',
        tool_call_id: `call_${round}_0`,
        content: (texts.code[round % texts.code.length] ?? '').slice(0, 12_000),
      },
      { role: 'tool', tool_call_id: `call_${round}_1`, content: texts.json[round % texts.json.length] ?? '{}' },
    ];
    const reply = { role: 'assistant', content: paragraphs.slice(3, 8).join('\n\n') || 'Done.' };
    const batch = [user, { role: 'assistant', content: null, tool_calls: calls }, ...results, reply];
    messages.push(...batch);
    size += JSON.stringify(batch).length;
  }
  return messages;
}

function randomTranscript(bytes: number): unknown[] {
  return [{ role: 'user', content: randomBytes(Math.ceil((bytes * 3) / 4)).toString('base64') }];
}

const codecs = {
  'gzip-6': { in: (b: Buffer) => gzipSync(b, { level: 6 }), out: (b: Buffer) => gunzipSync(b) },
  'gzip-9': { in: (b: Buffer) => gzipSync(b, { level: 9 }), out: (b: Buffer) => gunzipSync(b) },
  ...Object.fromEntries(
    [4, 5, 6, 9, 11].map((quality) => [
      `brotli-q${quality}`,
      {
        in: (b: Buffer) =>
          brotliCompressSync(b, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: quality,
              [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
              [constants.BROTLI_PARAM_SIZE_HINT]: b.length,
            },
          }),
        out: (b: Buffer) => brotliDecompressSync(b),
      },
    ]),
  ),
} as Record<string, { in: (b: Buffer) => Buffer; out: (b: Buffer) => Buffer }>;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const texts = corpus();
const cases: Array<[string, unknown[]]> = [
  ['realistic 100 KB', realisticTranscript(100_000, texts)],
  ['realistic 1 MB', realisticTranscript(1_000_000, texts)],
  ['realistic 5 MB', realisticTranscript(5_000_000, texts)],
  ['random base64 5 MB', randomTranscript(5_000_000)],
];
const runs = Number(process.env.RUNS ?? 5);
console.log(`corpus: ${texts.prose.length} READMEs, ${texts.code.length} sources, ${texts.json.length} package.json`);
for (const [label, messages] of cases) {
  const json = Buffer.from(JSON.stringify(messages));
  for (const [name, codec] of Object.entries(codecs)) {
    if (name === 'brotli-q11' && json.length > 1_500_000) continue; // ~2 s per MB: not a candidate
    const timesIn: number[] = [];
    const timesOut: number[] = [];
    let size = 0;
    for (let run = 0; run < runs; run++) {
      let start = performance.now();
      const packed = codec.in(json);
      timesIn.push(performance.now() - start);
      start = performance.now();
      codec.out(packed);
      timesOut.push(performance.now() - start);
      size = packed.length;
    }
    console.log(
      `${label.padEnd(20)} ${String(json.length).padStart(9)} B  ${name.padEnd(10)} ratio ${(size / json.length).toFixed(3)}  compress ${median(timesIn).toFixed(1)} ms  decompress ${median(timesOut).toFixed(1)} ms`,
    );
  }
}
