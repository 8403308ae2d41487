import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeVersion } from './claude.ts';
import { type MessagesStandIn, resultText, startMessagesStandIn, toolResults } from './messages-stand-in.ts';
import { modelByPrompt } from './sessions.ts';
import { interactiveSandbox, requireTmux, startInteractive, writtenFile } from './terminal.ts';

/**
 * What the pinned Claude Code CLI tells a channel server about its permission prompts, and when (§22): an interactive
 * session, offline against the Messages API stand-in, with a channel that only records (recording-channel.ts). These
 * are the CLI's facts Handback's channel (`handback channel`) is built on; docs/claude-code.md says them in words.
 * When a new CLI changes one, this file says which.
 */

const here = fileURLToPath(new URL('.', import.meta.url));
/** tsx's loader by path: the CLI starts the channel in the sandbox, where `--import tsx` would not resolve. */
const tsx = fileURLToPath(new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** One interactive session with the recording channel; what it recorded, and a way to send it notifications. */
async function recordedSession(standIn: MessagesStandIn) {
  const dir = mkdtempSync(join(tmpdir(), 'handback-recording-channel-'));
  const recordFile = join(dir, 'record.jsonl');
  writeFileSync(recordFile, '');
  const sandbox = interactiveSandbox(standIn.url, {
    servers: {
      recorder: {
        command: process.execPath,
        args: ['--import', tsx, join(here, 'recording-channel.ts')],
        env: { RECORD_FILE: recordFile, REPLY_DIR: dir },
      },
    },
    channels: ['recorder'],
  });
  const terminal = await startInteractive(sandbox);
  let replies = 0;
  return {
    sandbox,
    terminal,
    /** Every entry the channel recorded so far. */
    // biome-ignore lint/suspicious/noExplicitAny: recorded JSON, read loosely
    recorded: (): Array<Record<string, any>> =>
      readFileSync(recordFile, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line)),
    /** The channel sends `notifications/claude/channel/permission` with these params. */
    reply(params: { request_id: string; behavior: 'allow' | 'deny' }) {
      writeFileSync(
        join(dir, `${++replies}.json`),
        JSON.stringify({ method: 'notifications/claude/channel/permission', params }),
      );
    },
  };
}

type Session = Awaited<ReturnType<typeof recordedSession>>;

/** The permission requests recorded so far. */
const requests = (session: Session) =>
  session.recorded().filter((entry) => entry.method === 'notifications/claude/channel/permission_request');

/** Waits for the `count`th permission request and returns its params. */
async function nthRequest(session: Session, count: number) {
  const deadline = Date.now() + 30_000;
  while (requests(session).length < count) {
    if (Date.now() > deadline) throw new Error(`No permission request ${count}:\n${session.terminal.screen()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return requests(session)[count - 1]?.params as Record<string, string>;
}

/** Waits until the CLI's debug log says what it made of a reply for `id`. */
function replyLine(session: Session, id: string): Promise<string> {
  return session.terminal.waitForDebug(`notifications/claude/channel/permission: ${id}`);
}

let standIn: MessagesStandIn;
let session: Session;
let work: string;

beforeAll(async () => {
  requireTmux();
  standIn = await startMessagesStandIn(() => []);
  session = await recordedSession(standIn);
  work = session.sandbox.cwd;
  const write = (name: string) => ({ name: 'Write', input: { file_path: join(work, name), content: `${name}\n` } });
  standIn.setScript(
    modelByPrompt({
      'write alpha': write('alpha.txt'),
      'write beta': write('beta.txt'),
      'write gamma': write('gamma.txt'),
      'write two': [write('one.txt'), write('two.txt')],
      'run delta': { name: 'Bash', input: { command: 'echo delta > delta.out', description: 'Save delta to a file' } },
    }),
  );
}, 120_000);

afterAll(async () => {
  session?.terminal.close();
  await standIn?.close();
});

describe(`Claude Code ${claudeCodeVersion()} with a channel declaring claude/channel/permission`, () => {
  it('starts the channel with the session id (a UUID) and the project directory in its environment, on a classic revision', () => {
    const started = session.recorded().find((entry) => entry.event === 'started');
    expect(started).toMatchObject({ projectDir: work, cwd: work });
    expect(started?.sessionId).toMatch(UUID);
    // It relays only on a connection of the classic revisions, which the SDK's server negotiates.
    expect(session.terminal.debug()).toContain('"protocolEra":"legacy"');
  });

  it('relays a permission prompt as permission_request {request_id, tool_name, description, input_preview}, and runs the call on allow', async () => {
    await session.terminal.submit('write alpha');
    const request = await nthRequest(session, 1);
    expect(Object.keys(request).sort()).toEqual(['description', 'input_preview', 'request_id', 'tool_name']);
    expect(request).toMatchObject({
      request_id: expect.stringMatching(/^[a-z]{5}$/),
      tool_name: 'Write',
      description: 'Write a file to the local filesystem.',
    });
    expect(JSON.parse(request.input_preview as string)).toEqual({
      file_path: join(work, 'alpha.txt'),
      content: 'alpha.txt\n',
    });
    // The prompt is on the terminal too: whoever answers first wins.
    await session.terminal.waitFor('Do you want to create alpha.txt?');
    session.reply({ request_id: request.request_id as string, behavior: 'allow' });
    expect(await replyLine(session, request.request_id as string)).toContain('allow (matched pending)');
    await session.terminal.waitFor('The tool answered: File created successfully');
    expect(readFileSync(join(work, 'alpha.txt'), 'utf8')).toBe('alpha.txt\n');
  });

  it("gives a Bash command's own description as the request's description", async () => {
    await session.terminal.submit('run delta');
    const request = await nthRequest(session, 2);
    expect(request).toMatchObject({ tool_name: 'Bash', description: 'Save delta to a file' });
    session.reply({ request_id: request.request_id as string, behavior: 'allow' });
    expect(await writtenFile(join(work, 'delta.out'))).toBe('delta\n');
  });

  it('runs nothing on deny, and the model reads "Denied via channel <name>"', async () => {
    await session.terminal.submit('write beta');
    const request = await nthRequest(session, 3);
    session.reply({ request_id: request.request_id as string, behavior: 'deny' });
    expect(await replyLine(session, request.request_id as string)).toContain('deny (matched pending)');
    await session.terminal.waitFor(/The tool answered: .*Denied via channel recorder/s);
    expect(existsSync(join(work, 'beta.txt'))).toBe(false);
    const denied = standIn.requests.flatMap(toolResults).map(resultText).at(-1);
    expect(denied).toContain('Denied via channel recorder');
  });

  it('tells the channel nothing when the terminal answers first, and ignores a late reply and an unknown id', async () => {
    await session.terminal.submit('write gamma');
    const request = await nthRequest(session, 4);
    await session.terminal.choose('Do you want to create gamma.txt?', 'Enter');
    expect(await writtenFile(join(work, 'gamma.txt'))).toBe('gamma.txt\n');
    const id = request.request_id as string;
    session.reply({ request_id: id, behavior: 'deny' });
    expect(await replyLine(session, id)).toContain('no pending entry');
    session.reply({ request_id: 'zzzzz', behavior: 'allow' });
    expect(await replyLine(session, 'zzzzz')).toContain('no pending entry');
    // Four prompts, four requests, and nothing else: no word of the terminal's answer.
    const told = session.recorded().filter((entry) => entry.event === 'notification');
    expect(told.map((entry) => entry.method)).toEqual(Array(4).fill('notifications/claude/channel/permission_request'));
  });

  it('relays the prompts of one turn one at a time: the next once the one before is answered', async () => {
    await session.terminal.submit('write two');
    const first = await nthRequest(session, 5);
    await session.terminal.waitFor('Do you want to create one.txt?');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(requests(session)).toHaveLength(5);
    session.reply({ request_id: first.request_id as string, behavior: 'allow' });
    const second = await nthRequest(session, 6);
    expect(JSON.parse(second.input_preview as string)).toMatchObject({ file_path: join(work, 'two.txt') });
    await session.terminal.choose('Do you want to create two.txt?', 'Enter');
    expect(await writtenFile(join(work, 'two.txt'))).toBe('two.txt\n');
  });

  it('ends the channel at /exit with SIGINT, then SIGTERM, its stdin still open, and kills it within a second', async () => {
    await session.terminal.exit();
    expect(await ending(session, 'SIGTERM')).toEqual(['SIGINT', 'SIGTERM']);
    const { pid } = session.recorded().find((entry) => entry.event === 'started') ?? {};
    // The recording channel ignores the signals: it is gone all the same.
    expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe('Claude Code closing with its terminal', () => {
  it('ends the channel with SIGHUP, SIGINT, then SIGTERM, its stdin still open', async () => {
    const closing = await recordedSession(standIn);
    try {
      closing.terminal.close();
      expect(await ending(closing, 'SIGTERM')).toEqual(['SIGHUP', 'SIGINT', 'SIGTERM']);
    } finally {
      closing.terminal.close();
    }
  });
});

/** The signals (and a closed stdin) the channel saw, once `last` is among them. */
async function ending(recorded: Session, last: string): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  while (!recorded.recorded().some((entry) => entry.signal === last) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // What it still records in the half second before the CLI kills it.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return recorded
    .recorded()
    .filter((entry) => entry.event === 'signal' || entry.event === 'stdin closed')
    .map((entry) => entry.signal ?? entry.event);
}
