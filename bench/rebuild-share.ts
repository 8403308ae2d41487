import { formatOf } from '../functions/rehydrate/formats/index.ts';
import { rebuildTranscript } from '../functions/rehydrate/rehydrate.ts';
import { FORMAT_NAMES } from '../functions/vocabulary.ts';
import { quantile } from './measure.ts';
import { ANSWER, floorResume, transcript } from './transcripts.ts';

/**
 * Where the trusted resume path's time goes at 10,000 messages: `JSON.parse` of the stored text, and
 * `rebuildTranscript` on the parsed messages alone, beside the floor (parse + appending the results). Medians of 60
 * runs each. Run: `npx tsx bench/rebuild-share.ts`.
 */
const median = (run: () => unknown) => {
  const samples: number[] = [];
  for (let i = 0; i < 60; i++) {
    const start = performance.now();
    run();
    samples.push(performance.now() - start);
  }
  return quantile(samples, 0.5);
};

for (const format of FORMAT_NAMES) {
  const t = transcript(format, 10_000);
  const parsed = JSON.parse(t.text) as unknown[];
  const parse = median(() => JSON.parse(t.text));
  const rebuild = median(() => rebuildTranscript(formatOf(format), parsed, t.toolCallId, ANSWER));
  const floor = median(() => floorResume(t));
  console.log(
    `${format.padEnd(16)} parse ${parse.toFixed(2)} ms, rebuild alone ${rebuild.toFixed(3)} ms, floor ${floor.toFixed(2)} ms`,
  );
}
