import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { type CallToolResult, ErrorCode, McpError, type Task } from '@modelcontextprotocol/sdk/types.js';
import type { PauseView } from '../wire.ts';
import * as z from '../zod.ts';
import type { HandbackBackend } from './backend.ts';
import { isClosed, pauseUrl } from './permission.ts';

/**
 * MCP tasks over Handback's pauses (§22): a tool call made as a task answers at once with a task whose id names the
 * pause it made, and `tasks/get`, `tasks/result` and `tasks/cancel` read or cancel that pause. Nothing is kept
 * besides the pause, so any server instance answers for any task (stateless Streamable HTTP, Lambda), and a task
 * lives exactly as long as its pause: working while people have not decided, then its tool's answer.
 */

/** The tools a task can be of, by the letter in its id. */
const TOOL_OF = { p: 'request_permission', a: 'ask_person' } as const;
type ToolLetter = keyof typeof TOOL_OF;

/** What a task id carries: the tool, and the pause. */
export interface TaskRef {
  tool: (typeof TOOL_OF)[ToolLetter];
  runId: string;
  interruptId: string;
}

const PREFIX = 'hb1.';
const encoded = z.defer(() => z.object({ t: z.enum(['p', 'a']), r: z.string(), i: z.string() }));

/** A task's id: its tool and its pause, encoded (base64url JSON); opaque to the client, read back by `taskRefOf`. */
export function taskIdOf(ref: TaskRef): string {
  const letter = (Object.keys(TOOL_OF) as ToolLetter[]).find((key) => TOOL_OF[key] === ref.tool) as ToolLetter;
  return `${PREFIX}${Buffer.from(JSON.stringify({ t: letter, r: ref.runId, i: ref.interruptId })).toString('base64url')}`;
}

/** The tool and pause of a task id, or undefined when it is not one of Handback's. */
export function taskRefOf(taskId: string): TaskRef | undefined {
  if (!taskId.startsWith(PREFIX) || taskId.length > 1024) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(taskId.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = z.safeParse(encoded, json);
  return parsed.success
    ? { tool: TOOL_OF[parsed.data.t], runId: parsed.data.r, interruptId: parsed.data.i }
    : undefined;
}

/** How a task's tool answers a closed pause: its tool result, and whether that is a failure. */
export type AnswerOf = (ref: TaskRef, view: PauseView) => Promise<CallToolResult>;

/** The reason a pause is cancelled with when the client cancels its task. */
export const TASK_CANCELLED = 'the MCP client cancelled the task';

/** How often a client should poll a task, in milliseconds. */
export const TASK_POLL_MS = 2000;

/** The task a pause is, for its tool. */
export function taskOf(ref: TaskRef, view: PauseView, inboxUrl: string | undefined): Task {
  const where = inboxUrl === undefined ? '' : ` at ${pauseUrl(inboxUrl, ref)}`;
  const base = {
    taskId: taskIdOf(ref),
    // Kept as long as the pause's audit trail, which the deployment's retention decides.
    ttl: null,
    createdAt: view.createdAt,
    lastUpdatedAt: view.resumedAt ?? view.createdAt,
    pollInterval: TASK_POLL_MS,
  };
  if (!isClosed(view)) {
    return {
      ...base,
      status: 'working',
      statusMessage: `Waiting for a person to decide pause ${ref.interruptId} of run ${ref.runId}${where}.`,
    };
  }
  // Withdrawn by the agent's side (the client's tasks/cancel): the task is cancelled. Anything else that closed the
  // pause — a decision, a person's cancel, the expiry — is the tool's answer, a deny or an error result included
  // (`failed` is for the protocol's own faults, not a person's no).
  if (view.status === 'cancelled' && view.cancelledBy?.kind === 'agent') {
    return { ...base, status: 'cancelled', statusMessage: `Pause ${ref.interruptId} was withdrawn.` };
  }
  return { ...base, status: 'completed', statusMessage: `Pause ${ref.interruptId} is ${view.status}.` };
}

/**
 * The task store the SDK's protocol asks for `tasks/get`, `tasks/result` and `tasks/cancel`: every answer read from
 * the pause the task id names, through `backend` (as the caller: its tenant, its token). Tasks are made by the tool
 * calls themselves (they pause first), so `createTask` and `storeTaskResult` are never the way in; a task id that is
 * not one of Handback's, or names a pause the caller cannot read, is not found.
 */
export function pauseTaskStore(deps: {
  backend: Pick<HandbackBackend, 'getPause' | 'cancel' | 'inboxUrl'>;
  answerOf: AnswerOf;
}): TaskStore {
  const read = async (taskId: string): Promise<{ ref: TaskRef; view: PauseView } | undefined> => {
    const ref = taskRefOf(taskId);
    if (ref === undefined) return undefined;
    try {
      return { ref, view: await deps.backend.getPause(ref) };
    } catch {
      return undefined;
    }
  };
  const notFound = (taskId: string) => new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
  return {
    async createTask() {
      throw new McpError(ErrorCode.InternalError, 'Handback makes a task with its pause, in the tool call.');
    },
    async getTask(taskId) {
      const found = await read(taskId);
      return found === undefined ? null : taskOf(found.ref, found.view, deps.backend.inboxUrl);
    },
    async storeTaskResult() {
      throw new McpError(ErrorCode.InternalError, "A task's result is its pause's decision.");
    },
    async getTaskResult(taskId) {
      const found = await read(taskId);
      if (found === undefined) throw notFound(taskId);
      return deps.answerOf(found.ref, found.view);
    },
    async updateTaskStatus(taskId, status) {
      const found = await read(taskId);
      if (found === undefined) throw notFound(taskId);
      // Only a client's cancel reaches here: the pause is withdrawn, as the agent that made it.
      if (status !== 'cancelled') throw new McpError(ErrorCode.InvalidParams, `A task's status follows its pause.`);
      await deps.backend.cancel({ runId: found.ref.runId, interruptId: found.ref.interruptId, reason: TASK_CANCELLED });
    },
    async listTasks() {
      return { tasks: [] };
    },
  };
}
