import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferredDir } from '../../functions/mcp/claude-deferred.ts';
import { freePort, request, stopAll } from '../black-box/service.ts';
import { type Handback, startHandback } from '../mcp/support.ts';
import { claudeBinary, HANDBACK_BIN, runClaude } from './claude.ts';
import { startMessagesStandIn, toolResults } from './messages-stand-in.ts';
import {
  deferredGreeting,
  greetingSession,
  hookSandbox,
  modelCalling,
  overHttp,
  permissionSandbox,
  resultsSeen,
  toolUseId,
} from './sessions.ts';

/**
 * The real Claude Code CLI, offline against a stand-in of the Messages API, with its permission prompts decided by a
 * person through Handback (§18): the blocking way (`--permission-prompt-tool` on `handback mcp`) and the durable way
 * (`handback claude-hook`: defer, decide, `claude -p --resume`). The person decides over the HTTP API as the inbox
 * does (browser-inbox.slow.test.ts has them decide in the inbox page); the service is `npm start`'s, with tokens.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let handback: Handback;

beforeAll(async () => {
  // Fails here, saying why, when the binary cannot be installed or run: these tests are never skipped.
  claudeBinary();
  handback = await startHandback();
}, 600_000);

afterAll(async () => {
  await stopAll();
});

describe('Claude Code with --permission-prompt-tool mcp__handback__request_permission', () => {
  it('writes the file with the content the person edited in', async () => {
    const { id, standIn, sandbox, args, target } = await greetingSession((standIn) =>
      permissionSandbox(handback, standIn),
    );
    const claude = runClaude(sandbox, ['-p', 'Write the greeting file', ...args]);
    const pause = await handback.person.waitingPause(`mcp-${id}`);
    expect(pause.asks[0]).toMatchObject({
      toolCallId: id,
      name: 'Write',
      args: { file_path: target, content: 'hi\n' },
    });
    const decided = await handback.person.decide(pause, {
      decision: 'edit',
      args: { file_path: target, content: 'Hello from a person.\n' },
    });
    expect(decided.status).toBe(200);
    const result = await claude;
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('Hello from a person.\n');
    expect(result.result).toMatchObject({ is_error: false, stop_reason: 'end_turn' });
    await standIn.close();
  });

  it("writes nothing when the person rejects, and the model's next request carries their reason", async () => {
    const { id, standIn, sandbox, args, target } = await greetingSession((standIn) =>
      permissionSandbox(handback, standIn),
    );
    const claude = runClaude(sandbox, ['-p', 'Write the greeting file', ...args]);
    const pause = await handback.person.waitingPause(`mcp-${id}`);
    expect((await handback.person.decide(pause, { decision: 'reject', reason: 'Not in this folder.' })).status).toBe(
      200,
    );
    const result = await claude;
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(target)).toBe(false);
    const last = standIn.requests.at(-1);
    expect(toolResults(last as never)).toEqual([
      expect.objectContaining({
        tool_use_id: id,
        is_error: true,
        content: expect.stringContaining('Not in this folder.'),
      }),
    ]);
  });

  it('denies and interrupts past HANDBACK_MCP_WAIT_SECONDS, leaving the pause open, and the same call asked again gets the decision', async () => {
    const { id, standIn, sandbox, args, target } = await greetingSession((standIn) =>
      permissionSandbox(handback, standIn, 2),
    );
    const debugLog = join(sandbox.home, 'claude-debug.log');
    const first = await runClaude(sandbox, ['-p', 'Write the greeting file', ...args, '--debug-file', debugLog]);
    // Claude Code stops the turn on interrupt: the call denied, no further model request.
    expect(first.result).toMatchObject({
      is_error: true,
      terminal_reason: 'aborted_tools',
      permission_denials: [expect.objectContaining({ tool_use_id: id, tool_name: 'Write' })],
    });
    expect(existsSync(target)).toBe(false);
    expect(standIn.requests).toHaveLength(1);
    // While it waited, the server offered the pause's inbox page by URL-mode elicitation (§22), which Claude Code
    // declares; in print mode it has no one to show it to. The deny's message is Claude Code's to drop on interrupt.
    const debug = readFileSync(debugLog, 'utf8');
    expect(debug).toContain('Elicitation request received in print mode: mode=url');
    expect(debug).toContain('SDK permission prompt deny+interrupt: tool=Write');
    const pause = await handback.person.waitingPause(`mcp-${id}`);
    expect(pause.status).toBe('paused');
    expect((await handback.person.decide(pause, { decision: 'approve' })).status).toBe(200);
    // The model makes the same call again (the same tool_use_id): the closed pause answers it at once.
    const again = await runClaude(sandbox, ['-p', 'Write the greeting file', ...args]);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('hi\n');
    await standIn.close();
  });
});

describe('Claude Code with the PreToolUse hook handback claude-hook', () => {
  it('defers; the person edits; --resume writes the edited file; a second --resume runs nothing again', async () => {
    const { id, standIn, sandbox, target, sessionId: session } = await deferredGreeting(handback);
    const pause = await handback.person.waitingPause(`claude-${session}`);
    expect(pause).toMatchObject({
      asks: [{ toolCallId: id, kind: 'approval', name: 'Write', args: { file_path: target, content: 'hi\n' } }],
      context: { user: 'Write the greeting file' },
      metadata: { source: 'claude-code', sessionId: session, cwd: sandbox.cwd },
    });

    // Resumed before anyone decided: deferred again, nothing written.
    const early = await runClaude(sandbox, ['-p', '--resume', session]);
    expect(early.result).toMatchObject({ stop_reason: 'tool_deferred' });
    expect(existsSync(target)).toBe(false);

    const edited = { file_path: target, content: 'Hello from a person.\n' };
    expect((await handback.person.decide(pause, { decision: 'edit', args: edited })).status).toBe(200);
    const resumed = await runClaude(sandbox, ['-p', '--resume', session]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.result).toMatchObject({ is_error: false, stop_reason: 'end_turn' });
    expect(readFileSync(target, 'utf8')).toBe('Hello from a person.\n');

    // The file changes after the run; resuming the session again must not write it a second time.
    writeFileSync(target, 'changed since\n');
    const requestsBefore = standIn.requests.length;
    const second = await runClaude(sandbox, ['-p', '--resume', session]);
    expect(second.code).not.toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('changed since\n');
    expect(standIn.requests).toHaveLength(requestsBefore);
    await standIn.close();
  });

  it('runs the tool once when two resumes race from the deferred state (the store shared, no URL)', async () => {
    const id = toolUseId();
    const standIn = await startMessagesStandIn(() => []);
    const sandbox = hookSandbox(standIn, { ...handback.store });
    const log = join(sandbox.cwd, 'ran.log');
    standIn.setScript(
      modelCalling({
        type: 'tool_use',
        id,
        name: 'Bash',
        input: { command: `echo ran >> ${log}`, description: 'Log' },
      }),
    );
    const deferred = await runClaude(sandbox, ['-p', 'Log that you ran']);
    expect(deferred.result).toMatchObject({ stop_reason: 'tool_deferred', deferred_tool_use: { id, name: 'Bash' } });
    const session = deferred.result?.session_id as string;
    const pause = await handback.person.waitingPause(`claude-${session}`);
    expect((await handback.person.decide(pause, { decision: 'approve' })).status).toBe(200);

    const [a, b] = await Promise.all([
      runClaude(sandbox, ['-p', '--resume', session]),
      runClaude(sandbox, ['-p', '--resume', session]),
    ]);
    expect(readFileSync(log, 'utf8')).toBe('ran\n');
    const results = resultsSeen(standIn);
    expect(results.filter((text) => text.includes('already decided and handed to another run'))).toHaveLength(1);
    expect([a.code, b.code]).toEqual([0, 0]);
    await standIn.close();
  });

  it('denies, saying so, when it cannot reach Handback', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const { standIn, sandbox, target } = await greetingSession((standIn) => ({
      sandbox: hookSandbox(standIn, { HANDBACK_URL: closed, HANDBACK_TOKEN: handback.agentToken }),
    }));
    const result = await runClaude(sandbox, ['-p', 'Write the greeting file']);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(target)).toBe(false);
    const [denied] = resultsSeen(standIn);
    expect(denied).toContain(`Handback could not be reached at ${closed}`);
    expect(denied).toContain('fails closed');
    await standIn.close();
  });

  it("denies, saying so, with the docs' hook command where the handback package is missing", async () => {
    const { standIn, sandbox, target } = await greetingSession((standIn) => ({
      sandbox: hookSandbox(standIn, overHttp(handback)),
    }));
    // The settings exactly as docs/claude-code.md gives them, in a project that has not installed handback.
    const docs = readFileSync(join(ROOT, 'docs', 'claude-code.md'), 'utf8');
    const settings = /```json\n(\{\n {2}"hooks"[\s\S]*?)\n```/.exec(docs)?.[1] as string;
    expect(settings).toContain('npx --no-install handback claude-hook');
    writeFileSync(join(sandbox.cwd, '.claude', 'settings.json'), settings);
    const result = await runClaude(sandbox, ['-p', 'Write the greeting file']);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(target)).toBe(false);
    const [denied] = resultsSeen(standIn);
    expect(denied).toContain('Denied: the handback package is missing here (npm install handback)');
    await standIn.close();
  });

  it('is resumed by handback claude-resume once its pause is decided, once, telling each state on stderr and listed by claude-pending while it waits', async () => {
    const { standIn, sandbox, target, sessionId: session } = await deferredGreeting(handback);
    const records = deferredDir(sandbox.env);
    expect(readdirSync(records)).toHaveLength(1);

    const bin = (command: string, args: string[] = []) =>
      run(process.execPath, [HANDBACK_BIN, command, ...args], { env: sandbox.env, cwd: sandbox.home });
    const resume = () => bin('claude-resume', ['--claude', claudeBinary()]);
    const pause = await handback.person.waitingPause(`claude-${session}`);
    const page = `${handback.url}/inbox?run=claude-${session}&pause=${pause.interruptId}`;
    const waiting = await resume();
    expect(waiting.stderr).toBe(
      `handback claude-resume: session ${session}: waiting for a decision (Write, pause ${pause.interruptId} at ${page})\n`,
    );
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(records)).toHaveLength(1);
    const [call] = JSON.parse((await bin('claude-pending', ['--json'])).stdout);
    expect(call).toMatchObject({ sessionId: session, toolName: 'Write', state: 'waiting', url: page });
    expect((await bin('claude-pending')).stdout).toBe(
      `${call.deferredAt}  Write  waiting for a decision  session ${session}  in ${sandbox.cwd}  pause ${pause.interruptId}  ${page}\n`,
    );

    expect((await handback.person.decide(pause, { decision: 'approve' })).status).toBe(200);
    const { stderr } = await resume();
    expect(stderr.split('\n').filter(Boolean)).toEqual([
      `handback claude-resume: session ${session}: decided (pause ${pause.interruptId} is resumed)`,
      `handback claude-resume: session ${session}: resuming (claude -p --resume ${session} in ${sandbox.cwd})`,
      `handback claude-resume: session ${session}: ran (claude -p --resume ${session} exited 0)`,
    ]);
    expect(readFileSync(target, 'utf8')).toBe('hi\n');
    expect(readdirSync(records)).toEqual([]);
    expect((await bin('claude-pending')).stdout).toBe('No deferred Claude Code calls on this machine.\n');

    writeFileSync(target, 'changed since\n');
    await resume();
    expect(readFileSync(target, 'utf8')).toBe('changed since\n');
    // §19: the hook claimed the call's execution before it ran: it ran once, and no other run may claim it.
    const agent = { authorization: `Bearer ${handback.agentToken}` };
    const closed = await request(
      `${handback.url}/runs/${pause.runId}/pauses/${pause.interruptId}`,
      'GET',
      undefined,
      agent,
    );
    expect(closed.body.asks[0].execution).toMatchObject({ status: 'claimed' });
    const claim = await request(
      `${handback.url}/runs/${pause.runId}/continuations/${closed.body.continuationId}/executions`,
      'POST',
      { toolCallId: pause.asks[0]?.toolCallId },
      agent,
    );
    expect(claim.status).toBe(409);
    expect(claim.body).toMatchObject({ code: 'already_claimed' });
    await standIn.close();
  });

  it('tells "deferred again" when the resumed session defers its next call', async () => {
    const [first, second] = [toolUseId(), toolUseId()];
    const standIn = await startMessagesStandIn(() => []);
    const sandbox = hookSandbox(standIn, overHttp(handback));
    const write = (id: string, name: string) => ({
      type: 'tool_use' as const,
      id,
      name: 'Write',
      input: { file_path: join(sandbox.cwd, name), content: `${name}\n` },
    });
    standIn.setScript((request) => {
      const ids = toolResults(request).map((block) => block.tool_use_id);
      if (ids.length === 0) return [write(first, 'one.txt')];
      if (ids.includes(first)) return [write(second, 'two.txt')];
      return [{ type: 'text', text: 'Both written.' }];
    });
    const deferred = await runClaude(sandbox, ['-p', 'Write both files']);
    expect(deferred.result).toMatchObject({ stop_reason: 'tool_deferred', deferred_tool_use: { id: first } });
    const session = deferred.result?.session_id as string;
    const pause = await handback.person.waitingPause(`claude-${session}`);
    expect((await handback.person.decide(pause, { decision: 'approve' })).status).toBe(200);
    const { stderr } = await run(process.execPath, [HANDBACK_BIN, 'claude-resume', '--claude', claudeBinary()], {
      env: sandbox.env,
      cwd: sandbox.home,
    });
    expect(readFileSync(join(sandbox.cwd, 'one.txt'), 'utf8')).toBe('one.txt\n');
    const next = await handback.person.waitingPause(`claude-${session}`);
    expect(next.asks[0]).toMatchObject({ toolCallId: second });
    expect(stderr.split('\n').filter(Boolean).at(-1)).toBe(
      `handback claude-resume: session ${session}: deferred again (Write, pause ${next.interruptId})`,
    );
    await standIn.close();
  });
});
