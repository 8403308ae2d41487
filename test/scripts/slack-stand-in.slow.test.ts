import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INBOX_PAUSE_QUERY } from '../../functions/vocabulary.ts';
import { freePort, type RunningService, request, startService, stopAll } from '../black-box/service.ts';
import { type SlackCallRecord, STAND_IN_APP, STAND_IN_RECORD_PATH } from '../channels/slack-stand-in.ts';

/**
 * Slack without a workspace, as docs/channels.md tells an operator to try it: `npm run slack:stand-in` in one terminal,
 * `npm start` with the variables it prints in another, a pause, then `npm run slack:click -- <pause> approve` clicking
 * the posted message's own button, signed as Slack signs it. Each click is read back from the service.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
let standIn: ChildProcess;
let standInOutput = '';
let standInUrl = '';
let service: RunningService;

beforeAll(async () => {
  const port = await freePort();
  standIn = spawn('npm', ['run', '-s', 'slack:stand-in', '--', '--port', String(port)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  standIn.stdout?.on('data', (chunk: Buffer) => (standInOutput += chunk.toString()));
  standIn.stderr?.on('data', (chunk: Buffer) => (standInOutput += chunk.toString()));
  await until(() => standInOutput.includes('npm start'), 'the stand-in');
  standInUrl = /at (http:\/\/\S+\/)/.exec(standInOutput)?.[1] ?? '';
  // The variables the stand-in printed, as an operator pastes them.
  const printed = /^ {2}(HANDBACK_SLACK_\S+(?: HANDBACK_SLACK_\S+)*) npm start$/m.exec(standInOutput)?.[1] ?? '';
  const env = Object.fromEntries(printed.split(' ').map((pair) => pair.split('=') as [string, string]));
  expect(Object.keys(env).sort()).toEqual([
    'HANDBACK_SLACK_API_URL',
    'HANDBACK_SLACK_BOT_TOKEN',
    'HANDBACK_SLACK_CHANNEL',
    'HANDBACK_SLACK_SIGNING_SECRET',
  ]);
  service = await startService(env);
});

afterAll(async () => {
  await stopAll();
  try {
    if (standIn?.pid !== undefined) process.kill(-standIn.pid, 'SIGKILL');
  } catch {
    // Stopped already (the SIGTERM test).
  }
});

async function until(probe: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}:\n${standInOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function calls(): Promise<SlackCallRecord[]> {
  const answer = (await (await fetch(new URL(STAND_IN_RECORD_PATH, standInUrl))).json()) as {
    calls: SlackCallRecord[];
  };
  return answer.calls;
}

function click(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '-s', 'slack:click', '--', ...args],
      { cwd: root, env: { ...process.env, SLACK_STAND_IN_URL: standInUrl, HANDBACK_URL: service.url } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
    );
  });
}

async function pause(runId: string, ask: object = { toolCallId: 'call_refund', kind: 'approval' }): Promise<string> {
  const refund = { name: 'refund_order', arguments: '{"amount":30}' };
  const created = await request(`${service.url}/runs/${runId}/pauses`, 'POST', {
    format: 'openai-chat',
    messages: [
      { role: 'user', content: 'Refund order-42.' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_refund', type: 'function', function: refund }] },
    ],
    asks: [ask],
  });
  expect(created.status).toBe(201);
  const { interruptId } = created.body as { interruptId: string };
  await until(() => standInOutput.includes(`— ${runId}"`), `the message of ${runId}`);
  return interruptId;
}

async function askOf(runId: string, interruptId: string) {
  const view = (await (await fetch(`${service.url}/runs/${runId}/pauses/${interruptId}`)).json()) as {
    status: string;
    asks: Array<{
      decision?: { decision?: string; reason?: string; args?: object; answer?: unknown; by: { subject: string } };
    }>;
  };
  return { status: view.status, decision: view.asks[0]?.decision };
}

describe('npm run slack:stand-in and slack:click', () => {
  it('posts a pause to the default channel, linked to that pause in the service’s own inbox', async () => {
    const interruptId = await pause('stand-in-link');
    const post = (await calls()).find(
      (call) => call.method === 'chat.postMessage' && JSON.stringify(call.body).includes('stand-in-link'),
    );
    expect(post?.body.channel).toBe(STAND_IN_APP.channel);
    const link = /<([^|>]+)\|Open in the inbox>/.exec(JSON.stringify(post?.body.blocks))?.[1] ?? '';
    const url = new URL(link.replaceAll('&amp;', '&'));
    expect(url.origin + url.pathname).toBe(`${service.url}/inbox`);
    expect(url.searchParams.get(INBOX_PAUSE_QUERY.interruptId)).toBe(interruptId);
  });

  it('approves as Alice with the message’s own Approve button, and prints the updated message', async () => {
    const interruptId = await pause('stand-in-approve');
    const clicked = await click(interruptId, 'approve');
    expect(clicked).toMatchObject({ code: 0 });
    expect(clicked.stdout).toContain('Approve clicked as U0ALICE01: 200');
    expect(clicked.stdout).toContain('refund_order: Approved by Alice Approver');
    expect(await askOf('stand-in-approve', interruptId)).toEqual({
      status: 'resumed',
      decision: expect.objectContaining({
        decision: 'approve',
        by: expect.objectContaining({ subject: `slack:${STAND_IN_APP.teamId}:U0ALICE01`, via: 'slack' }),
      }),
    });
  });

  it('rejects through the Reject… modal with a reason', async () => {
    const interruptId = await pause('stand-in-reject');
    const clicked = await click(interruptId, 'reject', 'Too much for a broken mug.', '--user', 'U0BOB0002');
    expect(clicked).toMatchObject({ code: 0 });
    expect(clicked.stdout).toContain('Modal handback.reject submitted: 200');
    expect((await askOf('stand-in-reject', interruptId)).decision).toMatchObject({
      decision: 'reject',
      reason: 'Too much for a broken mug.',
      by: { subject: `slack:${STAND_IN_APP.teamId}:U0BOB0002` },
    });
  });

  it('edits through the Edit… modal with the arguments given as JSON', async () => {
    const interruptId = await pause('stand-in-edit');
    expect(await click(interruptId, 'edit', '{"amount": 20}', '--ask', '0')).toMatchObject({ code: 0 });
    expect((await askOf('stand-in-edit', interruptId)).decision).toMatchObject({
      decision: 'edit',
      args: { amount: 20 },
    });
  });

  it('chooses an enum answer by its button', async () => {
    const interruptId = await pause('stand-in-choose', {
      toolCallId: 'call_refund',
      kind: 'answer',
      answerSchema: { enum: ['full', 'partial'] },
    });
    const clicked = await click(interruptId, 'choose', 'partial');
    expect(clicked).toMatchObject({ code: 0 });
    expect((await askOf('stand-in-choose', interruptId)).decision).toMatchObject({ answer: 'partial' });
  });

  it('exits 1 with what Slack showed a clicker it cannot describe, and nothing is recorded', async () => {
    const interruptId = await pause('stand-in-nobody');
    const clicked = await click(interruptId, 'approve', '--user', 'U0NOBODY1');
    expect(clicked.code).toBe(1);
    expect(clicked.stderr).toContain('Told U0NOBODY1: Not recorded: Handback could not identify you in Slack');
    expect(await askOf('stand-in-nobody', interruptId)).toEqual({ status: 'paused', decision: undefined });
  });

  it('exits 1 naming the pauses it knows when it holds no message of the one asked for', async () => {
    const clicked = await click('no-such-pause', 'approve');
    expect(clicked.code).toBe(1);
    expect(clicked.stderr).toContain('The stand-in holds no message of pause "no-such-pause"');
  });

  it('stops on SIGTERM', async () => {
    const exited = new Promise((resolve) => standIn.once('exit', resolve));
    standIn.kill('SIGTERM');
    await exited;
    expect(standInOutput).toContain('Slack stand-in stopping (SIGTERM)');
  });
});
