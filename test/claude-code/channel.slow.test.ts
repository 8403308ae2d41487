import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PauseView } from '../../functions/wire.ts';
import { request, stopAll } from '../black-box/service.ts';
import { type Handback, startHandback } from '../mcp/support.ts';
import { claudeBinary, HANDBACK_BIN } from './claude.ts';
import { type MessagesStandIn, resultText, startMessagesStandIn, toolResults } from './messages-stand-in.ts';
import { modelByPrompt } from './sessions.ts';
import {
  eventually,
  interactiveSandbox,
  requireTmux,
  startInteractive,
  type Terminal,
  writtenFile,
} from './terminal.ts';

/**
 * `handback channel` with the real Claude Code CLI (§22): an interactive session in a tmux terminal, offline against
 * the Messages API stand-in, its channel the built bin reaching `npm start`'s service with an agent token. A person
 * decides over the HTTP API as the inbox does; the terminal can answer first; a forged or late decision sends nothing.
 * What the CLI itself sends a channel is pinned in channel-protocol.slow.test.ts.
 */

let handback: Handback;
let standIn: MessagesStandIn;
let terminal: Terminal;
let work: string;

const write = (name: string) => ({ name: 'Write', input: { file_path: join(work, name), content: `${name}\n` } });

/** The open pause of this session whose call writes `name`. */
async function waitingPauseFor(name: string): Promise<PauseView> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const page = await request(`${handback.url}/pauses?status=paused&limit=100`, 'GET', undefined, {
      authorization: `Bearer ${handback.personToken}`,
    });
    const found = (page.body.items as PauseView[]).find(
      (item) =>
        item.runId.startsWith('claude-') &&
        (item.asks[0]?.args as { file_path?: string })?.file_path === join(work, name),
    );
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`No open pause writing ${name}:\n${terminal.screen()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The pause as a person reads it now. */
const read = (view: PauseView) => handback.person.read(view.runId, view.interruptId);

/** What Claude Code's debug log says it did with the channel's answers, for `requestId`. */
const repliesFor = (requestId: string) =>
  terminal
    .debug()
    .split('\n')
    .filter((line) => line.includes(`notifications/claude/channel/permission: ${requestId}`));

beforeAll(async () => {
  requireTmux();
  claudeBinary();
  handback = await startHandback();
  standIn = await startMessagesStandIn(() => []);
  const sandbox = interactiveSandbox(standIn.url, {
    servers: {
      handback: {
        command: process.execPath,
        args: [HANDBACK_BIN, 'channel'],
        env: { HANDBACK_URL: handback.url, HANDBACK_TOKEN: handback.agentToken },
      },
    },
    channels: ['handback'],
  });
  work = sandbox.cwd;
  standIn.setScript(
    modelByPrompt({
      'write alpha': write('alpha.txt'),
      'write beta': write('beta.txt'),
      'write gamma': write('gamma.txt'),
      'write delta': write('delta.txt'),
      'write omega': write('omega.txt'),
    }),
  );
  terminal = await startInteractive(sandbox);
}, 600_000);

afterAll(async () => {
  terminal?.close();
  await standIn?.close();
  await stopAll();
});

describe('Claude Code in an interactive session with handback channel', () => {
  it("runs the call once a person approves it in Handback, the pause in the session's run, not editable", async () => {
    await terminal.submit('write alpha');
    const pause = await waitingPauseFor('alpha.txt');
    expect(pause.runId).toMatch(/^claude-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(pause).toMatchObject({
      asks: [{ kind: 'approval', name: 'Write', editable: false }],
      metadata: { source: 'claude-code', via: 'channel', cwd: work, sessionId: pause.runId.slice('claude-'.length) },
    });
    // The prompt waits on the terminal too.
    await terminal.waitFor('Do you want to create alpha.txt?');
    expect((await handback.person.decide(pause, { decision: 'approve' })).status).toBe(200);
    expect(await writtenFile(join(work, 'alpha.txt'))).toBe('alpha.txt\n');
    const requestId = pause.metadata?.requestId as string;
    expect(repliesFor(requestId)).toEqual([expect.stringContaining('allow (matched pending)')]);
  });

  it('runs nothing when the person rejects, and the model reads that the channel denied it', async () => {
    await terminal.submit('write beta');
    const pause = await waitingPauseFor('beta.txt');
    expect((await handback.person.decide(pause, { decision: 'reject', reason: 'Not today.' })).status).toBe(200);
    await eventually(() => expect(repliesFor(pause.metadata?.requestId as string)).toHaveLength(1));
    await terminal.waitFor('Denied via channel handback');
    const denied = standIn.requests.flatMap(toolResults).map(resultText).at(-1);
    expect(denied).toContain('Denied via channel handback');
    expect(existsSync(join(work, 'beta.txt'))).toBe(false);
  });

  it('sends nothing for a forged decision: a token that may not decide is refused, and the prompt still waits', async () => {
    await terminal.submit('write gamma');
    const pause = await waitingPauseFor('gamma.txt');
    const ask = pause.asks[0] as PauseView['asks'][number];
    const decision = {
      interruptId: pause.interruptId,
      decisions: [{ toolCallId: ask.toolCallId, decision: 'approve' }],
    };
    const forged = [handback.unscopedToken, handback.agentToken].map((token) =>
      request(`${handback.url}/runs/${pause.runId}/resume`, 'POST', decision, { authorization: `Bearer ${token}` }),
    );
    for (const refused of await Promise.all(forged)) expect(refused.status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(repliesFor(pause.metadata?.requestId as string)).toEqual([]);
    expect((await read(pause)).status).toBe('paused');
    expect(terminal.screen()).toContain('Do you want to create gamma.txt?');
    expect(existsSync(join(work, 'gamma.txt'))).toBe(false);
  });

  it('lets the terminal answer first: the pause is cancelled as answered there, and a late decision sends nothing', async () => {
    // gamma's prompt still waits: the developer answers it at the terminal.
    const gamma = await waitingPauseFor('gamma.txt');
    await terminal.choose('Do you want to create gamma.txt?', 'Enter');
    expect(await writtenFile(join(work, 'gamma.txt'))).toBe('gamma.txt\n');
    // Claude Code tells the channel nothing of it; its next prompt shows it was answered.
    await terminal.submit('write delta');
    const delta = await waitingPauseFor('delta.txt');
    expect(await read(gamma)).toMatchObject({ status: 'cancelled', cancelledBy: { subject: 'claude-code-agent' } });
    const late = await handback.person.decide(gamma, { decision: 'reject', reason: 'Too late.' });
    expect(late.status).toBe(410);
    expect(repliesFor(gamma.metadata?.requestId as string)).toEqual([]);
    expect((await handback.person.decide(delta, { decision: 'approve' })).status).toBe(200);
    expect(await writtenFile(join(work, 'delta.txt'))).toBe('delta.txt\n');
  });

  it('cancels the request still waiting when the session ends, "answered at the terminal or closed"', async () => {
    await terminal.submit('write omega');
    const omega = await waitingPauseFor('omega.txt');
    // The developer closes the terminal with the prompt open.
    terminal.close();
    const closed = await eventually(async () => {
      const view = await read(omega);
      if (view.status !== 'cancelled') throw new Error(`still ${view.status}`);
      return view;
    });
    const body = await request(
      `${handback.url}/runs/${omega.runId}/continuations/${closed.continuationId}`,
      'GET',
      undefined,
      { authorization: `Bearer ${handback.personToken}` },
    );
    expect(JSON.stringify(body.body.messages)).toContain('answered at the terminal or closed');
    expect(existsSync(join(work, 'omega.txt'))).toBe(false);
  });
});
