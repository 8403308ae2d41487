import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitMsFromEnv } from '../../functions/mcp/backend.ts';
import { lastUserPrompt } from '../../functions/mcp/claude-transcript.ts';
import { decidedOf, pauseUrl, permissionPause, resultText, stillWaiting } from '../../functions/mcp/permission.ts';
import { SERVER_INFO } from '../../functions/mcp/server.ts';
import { waitForClose } from '../../functions/mcp/wait.ts';
import { checkTranscript } from '../../functions/rehydrate/check-transcript.ts';
import { REJECTED, rejectionText } from '../../functions/rehydrate/texts.ts';
import type { PauseView } from '../../functions/wire.ts';
import packageJson from '../../package.json' with { type: 'json' };

const call = { toolUseId: 'toolu_01A', name: 'Write', input: { file_path: 'a.txt', content: 'hi' } };
const closed = { status: 'resumed', expiresAt: '2030-01-01T00:00:00.000Z' } as const;

describe('permissionPause', () => {
  it('is one approval ask on the call, after the context, in a transcript the anthropic check takes', () => {
    const pause = permissionPause(call, { runId: 'mcp-toolu_01A', context: 'Write it', prompt: 'Allow Write?' });
    expect(pause).toMatchObject({
      runId: 'mcp-toolu_01A',
      format: 'anthropic',
      asks: [{ toolCallId: 'toolu_01A', kind: 'approval', prompt: 'Allow Write?' }],
      idempotencyKey: 'toolu_01A',
    });
    // The call's result is what the pause waits for: the only violation is its missing result.
    expect(checkTranscript('anthropic', pause.messages).map((violation) => violation.rule)).toEqual([
      expect.stringMatching(/result/),
    ]);
  });
});

describe('decidedOf', () => {
  it('allows with the dispatched arguments: the original ones approved, or the edited ones', () => {
    const edited = { file_path: 'a.txt', content: 'edited' };
    const continuation = {
      outcome: 'resumed' as const,
      dispatch: [{ toolCallId: 'toolu_01A', name: 'Write', args: edited }],
      messages: [],
    };
    expect(decidedOf(closed, 'toolu_01A', continuation)).toEqual({ behavior: 'allow', updatedInput: edited });
  });

  it.each([
    ['resumed', 'Not here.', rejectionText('Not here.')],
    ['cancelled', 'Withdrawn.', `cancelled: ${rejectionText('Withdrawn.')}`],
    ['expired', 'No one decided before 2030', `expired: ${rejectionText('No one decided before 2030')}`],
  ] as const)('denies a %s pause with the result text the call got', (outcome, reason, message) => {
    const messages = [
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: rejectionText(reason) }] },
    ];
    expect(decidedOf({ ...closed, status: outcome }, 'toolu_01A', { outcome, dispatch: [], messages })).toEqual({
      behavior: 'deny',
      message,
    });
  });

  it('denies an expired pause without a continuation, naming its expiry', () => {
    expect(decidedOf({ status: 'expired', expiresAt: '2030-01-01T00:00:00.000Z' }, 'toolu_01A', undefined)).toEqual({
      behavior: 'deny',
      message: 'expired: no one decided before 2030-01-01T00:00:00.000Z',
    });
  });

  it('denies with the rejection text when the continuation holds no result for the call', () => {
    expect(decidedOf(closed, 'toolu_01A', { outcome: 'resumed', dispatch: [], messages: [] })).toEqual({
      behavior: 'deny',
      message: REJECTED,
    });
  });
});

describe('resultText', () => {
  it('reads a string result, a result of text blocks, and nothing for another call', () => {
    const messages = [
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'plain' }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: 'x' }, { text: 'y' }] }],
      },
    ];
    expect(resultText(messages, 'a')).toBe('plain');
    expect(resultText(messages, 'b')).toBe('xy');
    expect(resultText(messages, 'c')).toBeUndefined();
  });
});

describe('the messages of a pause that still waits', () => {
  it('name the pause and its inbox page, and say how to ask again', () => {
    const pause = { runId: 'mcp-toolu_01A', interruptId: '1.1.abc' };
    expect(pauseUrl('https://x.example/inbox', pause)).toBe('https://x.example/inbox?run=mcp-toolu_01A&pause=1.1.abc');
    expect(pauseUrl('https://x.example/inbox?tab=1', pause)).toBe(
      'https://x.example/inbox?tab=1&run=mcp-toolu_01A&pause=1.1.abc',
    );
    const text = stillWaiting(pause, { inboxUrl: 'https://x.example/inbox', askAgain: 'ask again.' });
    expect(text).toContain('pause 1.1.abc of run mcp-toolu_01A');
    expect(text).toContain('https://x.example/inbox?run=mcp-toolu_01A&pause=1.1.abc');
    expect(text).toMatch(/stays open and decidable; ask again\.$/);
  });
});

describe('waitMsFromEnv', () => {
  it('waits 240 s by default, what HANDBACK_MCP_WAIT_SECONDS says, and at most 25 s over Streamable HTTP', () => {
    expect(waitMsFromEnv({})).toBe(240_000);
    expect(waitMsFromEnv({ HANDBACK_MCP_WAIT_SECONDS: '90' })).toBe(90_000);
    expect(waitMsFromEnv({}, 25)).toBe(25_000);
    expect(waitMsFromEnv({ HANDBACK_MCP_WAIT_SECONDS: '600' }, 25)).toBe(25_000);
    expect(waitMsFromEnv({ HANDBACK_MCP_WAIT_SECONDS: '2' }, 25)).toBe(2_000);
  });

  it.each(['0', '-1', 'soon', 'Infinity'])('refuses HANDBACK_MCP_WAIT_SECONDS=%s, naming it', (value) => {
    expect(() => waitMsFromEnv({ HANDBACK_MCP_WAIT_SECONDS: value })).toThrow(/HANDBACK_MCP_WAIT_SECONDS/);
  });
});

describe('waitForClose', () => {
  const view = (status: string) => ({ status }) as PauseView;

  it('reads until the pause closes, beating while it waits', async () => {
    const statuses = ['paused', 'paused', 'paused', 'resumed'];
    let beats = 0;
    const last = await waitForClose(async () => view(statuses.shift() as string), {
      waitMs: 10_000,
      pollMs: 20,
      beatMs: 10,
      onBeat: () => beats++,
    });
    expect(last.status).toBe('resumed');
    expect(statuses).toEqual([]);
    expect(beats).toBeGreaterThan(0);
  });

  it('gives up past its wait with the pause still paused, and a failing beat ends nothing', async () => {
    let reads = 0;
    const started = Date.now();
    const last = await waitForClose(
      async () => {
        reads++;
        return view('paused');
      },
      {
        waitMs: 100,
        pollMs: 20,
        beatMs: 10,
        onBeat: () => {
          throw new Error('the client went away');
        },
      },
    );
    expect(last.status).toBe('paused');
    expect(reads).toBeGreaterThan(2);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('stops at once when the caller goes away', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const started = Date.now();
    await waitForClose(async () => view('paused'), { waitMs: 60_000, pollMs: 10_000, signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('lastUserPrompt', () => {
  const transcript = (lines: unknown[]) => {
    const path = join(mkdtempSync(join(tmpdir(), 'handback-transcript-')), 'session.jsonl');
    writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    return path;
  };

  it("is the user's last prompt: not Claude Code's own meta entries, not tool results", async () => {
    const path = transcript([
      { type: 'user', message: { role: 'user', content: 'First ask' } },
      { type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'Write the greeting file' }] } },
      { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Write' }] } },
      { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'no' }] } },
      { type: 'user', isMeta: true, message: { role: 'user', content: 'Continue from where you left off.' } },
      'not json {',
    ]);
    expect(await lastUserPrompt(path)).toBe('Write the greeting file');
  });

  it('reads only the end of a long transcript, and is undefined when there is none or no prompt', async () => {
    const filler = Array.from({ length: 3000 }, (_, index) => ({ type: 'attachment', pad: 'x'.repeat(500), index }));
    const path = transcript([{ type: 'user', message: { role: 'user', content: 'Lost in the past' } }, ...filler]);
    expect(await lastUserPrompt(path)).toBeUndefined();
    const tail = transcript([...filler, { type: 'user', message: { role: 'user', content: 'Recent' } }]);
    expect(await lastUserPrompt(tail)).toBe('Recent');
    expect(await lastUserPrompt(join(tmpdir(), 'no-such-transcript.jsonl'))).toBeUndefined();
    expect(await lastUserPrompt(undefined)).toBeUndefined();
  });

  it('cuts a prompt to a prompt’s length', async () => {
    const prompt = await lastUserPrompt(
      transcript([{ type: 'user', message: { role: 'user', content: 'y'.repeat(9000) } }]),
    );
    expect(prompt).toHaveLength(4096);
    expect(prompt?.endsWith('…')).toBe(true);
  });
});

describe('the MCP server', () => {
  it("names itself handback with the package's version", () => {
    expect(SERVER_INFO).toEqual({ name: 'handback', version: packageJson.version });
  });
});
