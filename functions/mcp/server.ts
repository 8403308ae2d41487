import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { ClientPauseInput } from '../client/types.ts';
import { traceparentOf } from '../fields.ts';
import type { PauseView } from '../wire.ts';
import * as z from '../zod.ts';
import { type HandbackBackend, pauseOrMeet } from './backend.ts';
import {
  claimRefusal,
  decidedOf,
  idReused,
  isClosed,
  isSameCall,
  pauseUrl,
  permissionPause,
  stillWaiting,
} from './permission.ts';
import { pauseTaskStore, type TaskRef, taskOf } from './tasks.ts';
import { askPersonInput, requestPermissionInput, tools } from './tools.ts';
import { waitForClose } from './wait.ts';

/**
 * Handback's MCP server (§18, §22): the SDK's low-level `Server` with the two tools of `tools.ts`, over any transport
 * (stdio for `handback mcp`, Streamable HTTP for `POST /mcp`). Each call pauses through the backend as the agent
 * would (the client, the store, or the API's own use cases) and answers what the pause's closing decided. How it
 * waits is the client's to say: a call made as a task answers at once with the task (`tasks.ts`), which the client
 * polls; any other call waits here, with progress notifications and, for a client that takes URL-mode elicitation,
 * the pause's inbox page offered to the person at the keyboard — and past its wait answers that the pause still
 * waits.
 */

/** The server's name and version in `initialize`. */
export const SERVER_INFO = { name: 'handback', version: '0.1.0' } as const;

/**
 * The server's JSON Schema validator, which the SDK uses only for form-mode elicitation: Handback elicits in URL mode
 * alone, so it refuses every schema — and the SDK's default (ajv draft-07 with its formats) stays out of the Lambda
 * bundle (infra/lambda-bundle.ts).
 */
const NO_FORM_ELICITATION: jsonSchemaValidator = {
  getValidator() {
    return () => ({ valid: false, data: undefined, errorMessage: 'Handback elicits in URL mode only.' });
  },
};

/** What the tools run on. */
export interface McpServerDeps {
  /** Where pauses are made, read and (a task the client cancels) cancelled, and approved calls claimed (§19). */
  backend: Pick<HandbackBackend, 'pause' | 'getPause' | 'getContinuation' | 'cancel' | 'claimExecution' | 'inboxUrl'>;
  /** How long one call waits for people, in milliseconds. */
  waitMs: number;
  /** Between two reads of the pause. @default 1000 */
  pollMs?: number;
  /** Between two progress notifications. @default 5000 */
  beatMs?: number;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** One tool call, made into a pause: the pause to make, and how its closing is answered. */
interface Planned {
  tool: TaskRef['tool'];
  pause: ClientPauseInput;
  /** The call its id names (§19: one id, one call): a pause met under that id answers only this call. */
  call: { toolCallId: string; name: string; input: Record<string, unknown> };
  /** How the caller asks again for the decision (for "still waits" messages). */
  askAgain: string;
}

/** A server with Handback's tools; connect it to a transport. */
export function createHandbackMcpServer(deps: McpServerDeps): Server {
  // A task is its pause: its result read again is the same claim (§19), under one idempotency key per task.
  const answerOf = (ref: TaskRef, view: PauseView) => answer(deps, ref.tool, view, `mcp-task:${ref.interruptId}`);
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } },
    taskStore: pauseTaskStore({ backend: deps.backend, answerOf }),
    jsonSchemaValidator: NO_FORM_ELICITATION,
    instructions:
      'request_permission asks a person whether a tool call may run (Claude Code: --permission-prompt-tool mcp__handback__request_permission); ask_person asks a person a question. Both wait for people and may be asked again with the same id; as tasks they answer at once and are polled.',
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools()] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {}, task } = request.params;
    let planned: Planned;
    switch (name) {
      case 'request_permission': {
        const parsed = z.safeParse(requestPermissionInput, args);
        if (!parsed.success) return invalid(parsed.error);
        planned = permissionPlan(parsed.data);
        break;
      }
      case 'ask_person': {
        const parsed = z.safeParse(askPersonInput, args);
        if (!parsed.success) return invalid(parsed.error);
        planned = askPlan(parsed.data);
        break;
      }
      default:
        throw new McpError(
          ErrorCode.InvalidParams,
          `Tool ${name} not found: this server has ${tools()
            .map((tool) => tool.name)
            .join(', ')}.`,
        );
    }
    // §21: a call made in a trace (`_meta.traceparent`) pauses in it; a malformed one is ignored.
    const traceparent = traceparentOf(request.params._meta?.traceparent);
    if (traceparent !== undefined) planned.pause.traceparent = traceparent;
    if (task !== undefined) return asTask(deps, planned);
    return waitHere(deps, server, planned, extra);
  });
  return server;
}

/** `request_permission`'s pause: Claude Code's permission prompt as one approval ask in run `mcp-<tool_use_id>`. */
function permissionPlan(args: z.infer<typeof requestPermissionInput>): Planned {
  const toolUseId = args.tool_use_id ?? `hb_${randomUUID().replaceAll('-', '')}`;
  return {
    tool: 'request_permission',
    call: { toolCallId: toolUseId, name: args.tool_name, input: args.input },
    pause: permissionPause(
      { toolUseId, name: args.tool_name, input: args.input },
      {
        runId: `mcp-${toolUseId}`,
        context: args.prompt ?? `An agent asks permission to run ${args.tool_name}.`,
        prompt: args.prompt ?? `Allow ${args.tool_name}?`,
        metadata: { source: 'mcp', tool: 'request_permission' },
      },
    ),
    askAgain: 'call request_permission again with the same tool_use_id to get the decision.',
  };
}

/** `ask_person`'s pause: one `answer` ask in run `mcp-ask-<ask_id>`. */
function askPlan(args: z.infer<typeof askPersonInput>): Planned {
  const askId = args.ask_id ?? randomUUID();
  const toolCallId = `ask_${askId}`.slice(0, 120);
  const input = { question: args.question, ...(args.schema === undefined ? {} : { schema: args.schema }) };
  return {
    tool: 'ask_person',
    call: { toolCallId, name: 'ask_person', input },
    pause: {
      runId: `mcp-ask-${askId}`,
      format: 'anthropic',
      messages: [
        { role: 'user', content: args.prompt ?? args.question },
        { role: 'assistant', content: [{ type: 'tool_use', id: toolCallId, name: 'ask_person', input }] },
      ],
      asks: [
        {
          toolCallId,
          kind: 'answer',
          prompt: args.question,
          ...(args.schema === undefined ? {} : { answerSchema: args.schema }),
        },
      ],
      metadata: { source: 'mcp', tool: 'ask_person' },
      idempotencyKey: toolCallId,
    },
    askAgain: `call ask_person again with ask_id "${askId}" to get the answer.`,
  };
}

/** A task-augmented call (§22): the pause made, the task that is it answered at once; the client polls it. */
async function asTask(deps: McpServerDeps, planned: Planned): Promise<CreateTaskResult> {
  let key: { runId: string; interruptId: string };
  try {
    key = await pauseOrMeet(deps.backend, planned.pause);
  } catch (error) {
    // No pause, no task: the call fails as a request, saying why.
    throw new McpError(ErrorCode.InternalError, `Handback could not be asked (${describe(error)}).`);
  }
  const view = await deps.backend.getPause(key);
  // No task for another call's pause: its decision is not this call's (§19).
  if (!sameCall(planned, view)) throw new McpError(ErrorCode.InvalidParams, reused(planned, key));
  const ref = { tool: planned.tool, ...key };
  return { task: taskOf(ref, view, deps.backend.inboxUrl) };
}

/**
 * A call that waits here (§18): progress notifications to a client that sent a progress token, the pause's inbox page
 * offered by URL-mode elicitation to a client that takes it (§22), and the answer once the pause closes — or, past
 * the wait, that it still waits.
 */
async function waitHere(deps: McpServerDeps, server: Server, planned: Planned, extra: Extra): Promise<CallToolResult> {
  let key: { runId: string; interruptId: string };
  let view: PauseView;
  try {
    key = await pauseOrMeet(deps.backend, planned.pause);
    view = await deps.backend.getPause(key);
  } catch (error) {
    return unreachable(planned.tool, error);
  }
  if (!sameCall(planned, view)) return refuse(planned.tool, reused(planned, key));
  if (isClosed(view)) return answer(deps, planned.tool, view);
  const offered = offerInboxPage(deps, server, key, extra);
  try {
    view = await waitForClose(() => deps.backend.getPause(key), waitOptions(deps, extra, key));
  } catch (error) {
    return unreachable(planned.tool, error);
  }
  if (!isClosed(view)) return stillOpen(deps, planned, key);
  await offered?.complete();
  return answer(deps, planned.tool, view);
}

/**
 * URL-mode elicitation (§22): the pause's inbox page, where a person signs in and decides, offered to the client's
 * user — never a link that decides by itself (an agent holds none, §16). The client's reply is not waited for: the
 * call waits for the pause, whatever the user did with the page; once it closes, the client is told the elicitation
 * is complete.
 */
function offerInboxPage(
  deps: McpServerDeps,
  server: Server,
  key: { runId: string; interruptId: string },
  extra: Extra,
): { complete(): Promise<void> } | undefined {
  const inboxUrl = deps.backend.inboxUrl;
  if (inboxUrl === undefined || server.getClientCapabilities()?.elicitation?.url === undefined) return undefined;
  const elicitationId = `handback-${key.interruptId}`;
  const related = { relatedRequestId: extra.requestId };
  void server
    .elicitInput(
      {
        mode: 'url',
        elicitationId,
        url: pauseUrl(inboxUrl, key),
        message: `A person decides this in Handback: pause ${key.interruptId} of run ${key.runId} waits in its inbox.`,
      },
      { ...related, signal: extra.signal },
    )
    .catch(() => {});
  return {
    complete: () =>
      server
        .createElicitationCompletionNotifier(elicitationId, related)()
        .catch(() => {}),
  };
}

/** What a closed pause answers, per tool: `request_permission`'s permission result, `ask_person`'s answer. */
async function answer(
  deps: McpServerDeps,
  tool: TaskRef['tool'],
  view: PauseView,
  idempotencyKey?: string,
): Promise<CallToolResult> {
  // A task's result is asked for once the task is terminal, which a pause never stops being.
  if (!isClosed(view)) throw new McpError(ErrorCode.InvalidRequest, `Pause ${view.interruptId} still waits.`);
  const toolCallId = view.asks[0]?.toolCallId ?? '';
  const decision = view.asks[0]?.decision;
  if (tool === 'ask_person' && view.status === 'resumed' && decision !== undefined && 'answer' in decision) {
    const text = JSON.stringify(decision.answer);
    return { content: [{ type: 'text', text }], structuredContent: { answer: decision.answer } };
  }
  const continuation =
    view.continuationId === undefined
      ? undefined
      : await deps.backend.getContinuation({ runId: view.runId, continuationId: view.continuationId });
  const decided = decidedOf(view, toolCallId, continuation);
  if (tool === 'ask_person')
    return failed(decided.behavior === 'deny' ? decided.message : 'The person gave no answer.');
  if (decided.behavior === 'deny' || view.continuationId === undefined) return permissionResult(decided);
  // §19: an approved call is claimed before the agent is told to run it — once, if the policies in force and its
  // approval still allow it; the claim's arguments are the ones to run.
  try {
    const claimed = await deps.backend.claimExecution({
      runId: view.runId,
      continuationId: view.continuationId,
      toolCallId,
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    });
    return permissionResult({ behavior: 'allow', updatedInput: claimed.args as Record<string, unknown> });
  } catch (error) {
    const refused = claimRefusal(error, view);
    if (refused !== undefined) return permissionResult({ behavior: 'deny', message: refused });
    return unreachable(tool, error);
  }
}

/** Claude Code's permission result: one text block and no structured content, which is all it takes. */
function permissionResult(
  decided: { behavior: 'allow'; updatedInput: Record<string, unknown> } | { behavior: 'deny'; message: string },
): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(decided) }] };
}

/** Whether the pause met under the call's id was made for this call (§19: by tool name and arguments). */
function sameCall(planned: Planned, view: PauseView): boolean {
  return isSameCall(view, planned.call.toolCallId, planned.call);
}

/** What a call reusing another call's id is told (§19); nothing was recorded on that pause. */
function reused(planned: Planned, key: { runId: string; interruptId: string }): string {
  const id = planned.tool === 'ask_person' ? 'ask_id' : 'tool_use_id';
  return idReused(key, `Another call needs a ${id} of its own.`);
}

/** A refusal in each tool's way: `request_permission` denies, `ask_person` fails. */
function refuse(tool: TaskRef['tool'], message: string): CallToolResult {
  if (tool === 'ask_person') return failed(message);
  return permissionResult({ behavior: 'deny', message });
}

/** Past the wait: the pause still waits, and how to get its decision. */
function stillOpen(deps: McpServerDeps, planned: Planned, key: { runId: string; interruptId: string }): CallToolResult {
  const message = stillWaiting(key, { ...inbox(deps), askAgain: planned.askAgain });
  if (planned.tool === 'ask_person') return failed(message);
  return { content: [{ type: 'text', text: JSON.stringify({ behavior: 'deny', message, interrupt: true }) }] };
}

/** Fail closed: a request Handback could not record or read lets nothing run. */
function unreachable(tool: TaskRef['tool'], error: unknown): CallToolResult {
  if (tool === 'ask_person') return failed(`Handback could not be asked (${describe(error)}).`);
  const denied = { behavior: 'deny', message: `Denied: Handback could not be asked (${describe(error)}).` };
  return { content: [{ type: 'text', text: JSON.stringify(denied) }] };
}

/** The wait of one call, with progress notifications when the client gave a progress token. */
function waitOptions(deps: McpServerDeps, extra: Extra, key: { runId: string; interruptId: string }) {
  const token = extra._meta?.progressToken;
  return {
    waitMs: deps.waitMs,
    ...(deps.pollMs === undefined ? {} : { pollMs: deps.pollMs }),
    ...(deps.beatMs === undefined ? {} : { beatMs: deps.beatMs }),
    signal: extra.signal,
    ...(token === undefined
      ? {}
      : {
          onBeat: (waitedMs: number) =>
            extra.sendNotification({
              method: 'notifications/progress',
              params: {
                progressToken: token,
                progress: Math.floor(waitedMs / 1000),
                message: `Waiting for a person to decide pause ${key.interruptId} (${Math.floor(waitedMs / 1000)} s)`,
              },
            }),
        }),
  };
}

function inbox(deps: McpServerDeps): { inboxUrl?: string } {
  return deps.backend.inboxUrl === undefined ? {} : { inboxUrl: deps.backend.inboxUrl };
}

function invalid(error: z.core.$ZodError): CallToolResult {
  return failed(`Invalid arguments: ${z.prettifyError(error)}`);
}

function failed(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
