import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferredDir } from '../../functions/mcp/claude-deferred.ts';
import { freePort, request, stopAll } from '../black-box/service.ts';
import { type Handback, startHandback } from '../mcp/support.ts';
import { type ClaudeSandbox, claudeBinary, claudeSandbox, HANDBACK_BIN, runClaude } from './claude.ts';
import {
  type MessagesStandIn,
  resultText,
  type ScriptedBlock,
  startMessagesStandIn,
  toolResults,
} from './messages-stand-in.ts';

/**
 * The real Claude Code CLI, offline against a stand-in of the Messages API, with its permission prompts decided by a
 * person through Handback (§18): the blocking way (`--permission-prompt-tool` on `handback mcp`) and the durable way
 * (`handback claude-hook`: defer, decide, `claude -p --resume`). The person decides over the HTTP API as the inbox
 * does; the service is `npm start`'s, with tokens.
 */

const run = promisify(execFile);
let handback: Handback;

beforeAll(async () => {
  // Fails here, saying why, when the binary cannot be installed or run: these tests are never skipped.
  claudeBinary();
  handback = await startHandback();
}, 600_000);

afterAll(async () => {
  await stopAll();
});

/** A model that calls `call` once, then answers with the call's result text. */
function modelCalling(call: Extract<ScriptedBlock, { type: 'tool_use' }>) {
  return (request: Parameters<Parameters<typeof startMessagesStandIn>[0]>[0]): ScriptedBlock[] => {
    const results = toolResults(request);
    if (results.length === 0) return [call];
    return [{ type: 'text', text: `The tool answered: ${results.map(resultText).join(' | ')}` }];
  };
}

/** The text of every tool result the model was sent, in order. */
function resultsSeen(standIn: MessagesStandIn): string[] {
  return standIn.requests.flatMap((request) => toolResults(request).map(resultText));
}

let calls = 0;
/** A tool_use id of its own per test, as the API makes them. */
const toolUseId = () => `toolu_01Test${process.pid}x${++calls}`;

/**
 * A session whose model writes `greeting.txt` ("hi") once and then reports the result: the stand-in, the sandbox
 * `sandboxOf` makes on it (with the CLI arguments it needs), the call's id and the file's path.
 */
async function greetingSession(sandboxOf: (standIn: MessagesStandIn) => { sandbox: ClaudeSandbox; args?: string[] }) {
  const id = toolUseId();
  const standIn = await startMessagesStandIn(() => []);
  const { sandbox, args = [] } = sandboxOf(standIn);
  const target = join(sandbox.cwd, 'greeting.txt');
  standIn.setScript(
    modelCalling({ type: 'tool_use', id, name: 'Write', input: { file_path: target, content: 'hi\n' } }),
  );
  return { id, standIn, sandbox, args, target };
}

describe('Claude Code with --permission-prompt-tool mcp__handback__request_permission', () => {
  /** A sandbox whose `.mcp.json` starts `handback mcp` on the service, with the agent token. */
  function permissionSandbox(standIn: MessagesStandIn, waitSeconds = 60) {
    const sandbox = claudeSandbox(standIn.url);
    const config = join(sandbox.cwd, '.mcp.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          handback: {
            command: process.execPath,
            args: [HANDBACK_BIN, 'mcp'],
            env: {
              HANDBACK_URL: handback.url,
              HANDBACK_TOKEN: handback.agentToken,
              HANDBACK_MCP_WAIT_SECONDS: String(waitSeconds),
            },
          },
        },
      }),
    );
    const args = ['--mcp-config', config, '--permission-prompt-tool', 'mcp__handback__request_permission'];
    return { sandbox, args };
  }

  it('writes the file with the content the person edited in', async () => {
    const { id, standIn, sandbox, args, target } = await greetingSession((standIn) => permissionSandbox(standIn));
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
    const { id, standIn, sandbox, args, target } = await greetingSession((standIn) => permissionSandbox(standIn));
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
    const { id, standIn, sandbox, args, target } = await greetingSession((standIn) => permissionSandbox(standIn, 2));
    const first = await runClaude(sandbox, ['-p', 'Write the greeting file', ...args]);
    // Claude Code stops the turn on interrupt: the call denied, no further model request.
    expect(first.result).toMatchObject({
      is_error: true,
      terminal_reason: 'aborted_tools',
      permission_denials: [expect.objectContaining({ tool_use_id: id, tool_name: 'Write' })],
    });
    expect(existsSync(target)).toBe(false);
    expect(standIn.requests).toHaveLength(1);
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
  /** A sandbox whose project settings run the hook for Write and Bash, reaching Handback as `env` says. */
  function hookSandbox(standIn: MessagesStandIn, env: NodeJS.ProcessEnv) {
    const sandbox = claudeSandbox(standIn.url, env);
    mkdirSync(join(sandbox.cwd, '.claude'));
    writeFileSync(
      join(sandbox.cwd, '.claude', 'settings.json'),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: 'Write|Bash',
              hooks: [{ type: 'command', command: `"${process.execPath}" "${HANDBACK_BIN}" claude-hook` }],
            },
          ],
        },
      }),
    );
    return sandbox;
  }
  const overHttp = () => ({ HANDBACK_URL: handback.url, HANDBACK_TOKEN: handback.agentToken });

  it('defers; the person edits; --resume writes the edited file; a second --resume runs nothing again', async () => {
    const { id, standIn, sandbox, target } = await greetingSession((standIn) => ({
      sandbox: hookSandbox(standIn, overHttp()),
    }));

    const deferred = await runClaude(sandbox, ['-p', 'Write the greeting file']);
    expect(deferred.code, deferred.stderr).toBe(0);
    expect(deferred.result).toMatchObject({ stop_reason: 'tool_deferred', deferred_tool_use: { id, name: 'Write' } });
    expect(existsSync(target)).toBe(false);
    const session = deferred.result?.session_id as string;
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

  it('is resumed by handback claude-resume once its pause is decided, once', async () => {
    const { standIn, sandbox, target } = await greetingSession((standIn) => ({
      sandbox: hookSandbox(standIn, overHttp()),
    }));
    const deferred = await runClaude(sandbox, ['-p', 'Write the greeting file']);
    const session = deferred.result?.session_id as string;
    const records = deferredDir(sandbox.env);
    expect(readdirSync(records)).toHaveLength(1);

    const resume = () =>
      run(process.execPath, [HANDBACK_BIN, 'claude-resume', '--claude', claudeBinary()], {
        env: sandbox.env,
        cwd: sandbox.home,
      });
    await resume();
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(records)).toHaveLength(1);

    const pause = await handback.person.waitingPause(`claude-${session}`);
    expect((await handback.person.decide(pause, { decision: 'approve' })).status).toBe(200);
    const { stderr } = await resume();
    expect(stderr).toContain(`resuming session ${session}`);
    expect(readFileSync(target, 'utf8')).toBe('hi\n');
    expect(readdirSync(records)).toEqual([]);

    writeFileSync(target, 'changed since\n');
    await resume();
    expect(readFileSync(target, 'utf8')).toBe('changed since\n');
    const claim = await request(
      `${handback.url}/runs/${pause.runId}/pauses/${pause.interruptId}/claim`,
      'POST',
      { claimant: 'someone-else' },
      { authorization: `Bearer ${handback.agentToken}` },
    );
    expect(claim.body).toMatchObject({ claimed: false });
    await standIn.close();
  });
});
