import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Handback } from '../mcp/support.ts';
import { type ClaudeSandbox, claudeSandbox, HANDBACK_BIN, runClaude } from './claude.ts';
import {
  type MessagesRequest,
  type MessagesStandIn,
  resultText,
  type ScriptedBlock,
  startMessagesStandIn,
  toolResults,
} from './messages-stand-in.ts';

/**
 * The Claude Code sessions the tests run: a scripted model that calls one tool, and the two ways a session reaches
 * Handback (§18) — `.mcp.json` with `handback mcp` for `--permission-prompt-tool`, and project settings whose
 * `PreToolUse` hook is `handback claude-hook`.
 */

/** A model that calls `call` once, then answers with the call's result text. */
export function modelCalling(call: Extract<ScriptedBlock, { type: 'tool_use' }>) {
  return (request: MessagesRequest): ScriptedBlock[] => {
    const results = toolResults(request);
    if (results.length === 0) return [call];
    return [{ type: 'text', text: `The tool answered: ${results.map(resultText).join(' | ')}` }];
  };
}

/**
 * A model for an interactive session, where one session takes many prompts: a prompt that contains one of `calls`'
 * keys makes that call (with an id of its own each time), a turn whose last user message carries tool results is answered
 * with their text, anything else (the CLI's own side requests among them) with "ok".
 */
export function modelByPrompt(calls: Record<string, ScriptedCall | ScriptedCall[]>) {
  return (request: MessagesRequest): ScriptedBlock[] => {
    // An interactive session's first request ends with a system message (the environment) after the prompt.
    const last = request.messages.findLast((message) => message.role === 'user');
    const blocks =
      last === undefined
        ? []
        : typeof last.content === 'string'
          ? [{ type: 'text', text: last.content }]
          : last.content;
    const text = blocks.map((block) => (block.type === 'text' ? String(block.text) : '')).join('\n');
    const key = Object.keys(calls).find((prompt) => text.includes(prompt));
    const made = key === undefined ? [] : [calls[key] ?? []].flat();
    if (made.length > 0 && made.every((call) => request.tools?.some((tool) => tool.name === call.name))) {
      return made.map((call) => ({ type: 'tool_use', id: toolUseId(), ...call }));
    }
    const results = blocks.filter((block) => block.type === 'tool_result');
    if (results.length > 0)
      return [{ type: 'text', text: `The tool answered: ${results.map(resultText).join(' | ')}` }];
    return [{ type: 'text', text: 'ok' }];
  };
}

/** A call the scripted model makes: its tool and input (the id is made per call). */
export type ScriptedCall = Omit<Extract<ScriptedBlock, { type: 'tool_use' }>, 'type' | 'id'>;

/** The text of every tool result the model was sent, in order. */
export function resultsSeen(standIn: MessagesStandIn): string[] {
  return standIn.requests.flatMap((request) => toolResults(request).map(resultText));
}

let calls = 0;
/** A tool_use id of its own per test, as the API makes them. */
export const toolUseId = () => `toolu_01Test${process.pid}x${++calls}${Date.now().toString(36)}`;

/**
 * A session whose model writes `greeting.txt` ("hi") once and then reports the result: the stand-in, the sandbox
 * `sandboxOf` makes on it (with the CLI arguments it needs), the call's id and the file's path.
 */
export async function greetingSession(
  sandboxOf: (standIn: MessagesStandIn) => { sandbox: ClaudeSandbox; args?: string[] },
) {
  const id = toolUseId();
  const standIn = await startMessagesStandIn(() => []);
  const { sandbox, args = [] } = sandboxOf(standIn);
  const target = join(sandbox.cwd, 'greeting.txt');
  standIn.setScript(
    modelCalling({ type: 'tool_use', id, name: 'Write', input: { file_path: target, content: 'hi\n' } }),
  );
  return { id, standIn, sandbox, args, target };
}

/**
 * A sandbox whose `.mcp.json` starts `handback mcp` on the service with the agent token, and the arguments that make
 * it Claude Code's permission prompt tool.
 */
export function permissionSandbox(handback: Handback, standIn: MessagesStandIn, waitSeconds = 60) {
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

/** A sandbox whose project settings run the hook for Write and Bash, reaching Handback as `env` says. */
export function hookSandbox(standIn: MessagesStandIn, env: NodeJS.ProcessEnv) {
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

/** The hook's environment to reach the service over HTTP with the agent token. */
export const overHttp = (handback: Handback) => ({ HANDBACK_URL: handback.url, HANDBACK_TOKEN: handback.agentToken });

/**
 * A greeting session whose hook reaches the service over HTTP, run once: it defers the Write (nothing written) and
 * leaves its pause for a person; with the session's id.
 */
export async function deferredGreeting(handback: Handback) {
  const session = await greetingSession((standIn) => ({ sandbox: hookSandbox(standIn, overHttp(handback)) }));
  const deferred = await runClaude(session.sandbox, ['-p', 'Write the greeting file']);
  expect(deferred.code, deferred.stderr).toBe(0);
  expect(deferred.result).toMatchObject({
    stop_reason: 'tool_deferred',
    deferred_tool_use: { id: session.id, name: 'Write' },
  });
  expect(existsSync(session.target)).toBe(false);
  return { ...session, sessionId: deferred.result?.session_id as string };
}
