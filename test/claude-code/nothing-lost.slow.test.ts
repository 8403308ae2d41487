import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, stopAll } from '../black-box/service.ts';
import { type Handback, startHandback } from '../mcp/support.ts';
import { claudeBinary, runClaude } from './claude.ts';
import { deferredGreeting } from './sessions.ts';

/**
 * Nothing lost between the decision and the tool (§19), with the real Claude Code CLI offline: an approved call
 * whose resume cannot ask Handback — its token refused, or the service unreachable — is deferred again by the hook,
 * never denied, and the next resume that can ask runs it, once, claiming its execution.
 */

let handback: Handback;

beforeAll(async () => {
  claudeBinary();
  handback = await startHandback();
}, 600_000);

afterAll(async () => {
  await stopAll();
});

describe('an approved call whose resume cannot ask Handback', () => {
  it.each([
    ['its token refused', async () => ({ HANDBACK_TOKEN: handback.unscopedToken })],
    ['Handback unreachable', async () => ({ HANDBACK_URL: `http://127.0.0.1:${await freePort()}` })],
  ])('is deferred again (%s), nothing written, and the next resume writes it once', async (_what, broken) => {
    const { standIn, sandbox, target, sessionId } = await deferredGreeting(handback);
    const pause = await handback.person.waitingPause(`claude-${sessionId}`);
    expect((await handback.person.decide(pause, { decision: 'approve' })).status).toBe(200);

    const cut = { ...sandbox, env: { ...sandbox.env, ...(await broken()) } };
    const again = await runClaude(cut, ['-p', '--resume', sessionId]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.result).toMatchObject({ stop_reason: 'tool_deferred', deferred_tool_use: { name: 'Write' } });
    expect(existsSync(target)).toBe(false);
    const waiting = await handback.person.read(pause.runId, pause.interruptId);
    expect(waiting.asks[0]?.execution).toMatchObject({ status: 'waiting' });

    // The control: a resume that can ask Handback runs it, claiming its execution.
    const ran = await runClaude(sandbox, ['-p', '--resume', sessionId]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('hi\n');
    const claimed = await handback.person.read(pause.runId, pause.interruptId);
    expect(claimed.asks[0]?.execution).toMatchObject({ status: 'claimed' });
    await standIn.close();
  });
});
