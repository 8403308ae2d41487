import { startLocalService } from '../functions/local/service.ts';

/**
 * `npx tsx bench/wide-round.ts [calls…]`: a gemini round of id-less calls (each `{functionCall: {name: 't'}}`, about
 * 30 bytes, so 190,000 calls make a 5.7 MB pause body) paused, resumed and read back through the local service over
 * HTTP, timed end to end. Every check and rebuild is linear in the round (tested by counting in
 * test/rehydrate/linearity.test.ts); this shows it at the size that used to take 24–37 s per step.
 */

const sizes = process.argv.slice(2).map(Number);
const service = await startLocalService({ ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'ERROR' });
try {
  for (const calls of sizes.length > 0 ? sizes : [47_500, 95_000, 190_000]) {
    const parts = Array.from({ length: calls }, () => ({ functionCall: { name: 't' } }));
    const messages = [
      { role: 'user', parts: [{ text: 'go' }] },
      { role: 'model', parts },
    ];
    const body = JSON.stringify({ format: 'gemini', messages, toolCallId: '#0' });
    const runId = `wide-${calls}-${Date.now()}`;
    const post = (path: string, json: string) =>
      fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json });
    const started = performance.now();
    const paused = await post(`/runs/${runId}/pauses`, body);
    const { interruptId } = (await paused.json()) as { interruptId: string };
    const afterPause = performance.now();
    const resumed = await post(`/runs/${runId}/resume`, JSON.stringify({ interruptId, answer: 'yes' }));
    const { continuationId } = (await resumed.json()) as { continuationId: string };
    const afterResume = performance.now();
    const read = await fetch(`${service.url}/runs/${runId}/continuations/${continuationId}?from=0&limit=1`);
    await read.json();
    const afterRead = performance.now();
    console.log(
      `${String(calls).padStart(7)} calls, ${(body.length / 1e6).toFixed(2)} MB: pause ${paused.status} in ${Math.round(afterPause - started)} ms, resume ${resumed.status} in ${Math.round(afterResume - afterPause)} ms, continuation read ${read.status} in ${Math.round(afterRead - afterResume)} ms`,
    );
  }
} finally {
  await service.close();
}
