import { open } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { LIMITS } from '../vocabulary.ts';

/**
 * The person deciding sees what the session was asked (§12: the last user message): Claude Code's transcript is
 * JSON Lines, one entry per line, the user's prompts as `{type: "user", message: {role: "user", content}}` (entries
 * Claude Code adds itself carry `isMeta: true`, tool results are `tool_result` blocks). Only the file's tail is read,
 * so a long session costs the same as a short one.
 */

/** How much of the transcript's end is read. */
const TAIL_BYTES = 1024 * 1024;

/** The session's last prompt from its user, cut to a prompt's length; undefined when none is found or readable. */
export async function lastUserPrompt(transcriptPath: string | undefined): Promise<string | undefined> {
  if (transcriptPath === undefined || transcriptPath === '') return undefined;
  let text: string;
  try {
    const file = await open(transcriptPath, 'r');
    try {
      const { size } = await file.stat();
      const length = Math.min(size, TAIL_BYTES);
      const buffer = Buffer.alloc(length);
      await file.read(buffer, 0, length, size - length);
      text = buffer.toString('utf8');
      // A tail that starts inside a line: that line is not whole.
      if (length < size) text = text.slice(text.indexOf('\n') + 1);
    } finally {
      await file.close();
    }
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  for (let index = lines.length - 1; index >= 0; index--) {
    const prompt = promptOf(lines[index] as string);
    if (prompt !== undefined)
      return prompt.length > LIMITS.promptChars ? `${prompt.slice(0, LIMITS.promptChars - 1)}…` : prompt;
  }
  return undefined;
}

/** The user's words in one transcript line, when it is a prompt they typed. */
function promptOf(line: string): string | undefined {
  if (!line.includes('"user"')) return undefined;
  let entry: { type?: unknown; isMeta?: unknown; message?: { role?: unknown; content?: unknown } };
  try {
    entry = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (entry?.type !== 'user' || entry.isMeta === true || entry.message?.role !== 'user') return undefined;
  const content = entry.message.content;
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .filter((block) => block?.type === 'text' && typeof block.text === 'string')
            .map((block) => block.text as string)
            .join('\n')
        : '';
  return text.trim() === '' ? undefined : text.trim();
}

/**
 * Where Claude Code keeps a session's transcript, for a process that is not told (a channel server is given the
 * session's id and project directory only): `<config dir>/projects/<the directory, every character but letters and
 * digits a dash>/<session>.jsonl`, the config dir `CLAUDE_CONFIG_DIR` or `~/.claude`.
 */
export function transcriptPathOf(env: NodeJS.ProcessEnv, projectDir: string, sessionId: string): string {
  const config = env.CLAUDE_CONFIG_DIR?.trim() || join(env.HOME?.trim() || homedir(), '.claude');
  return join(config, 'projects', projectDir.replace(/[^A-Za-z0-9]/g, '-'), `${sessionId}.jsonl`);
}
