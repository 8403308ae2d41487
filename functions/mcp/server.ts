import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from '../zod.ts';
import { type HandbackBackend, pauseOrMeet } from './backend.ts';
import { decidedOf, isClosed, type PermissionCall, permissionPause, stillWaiting } from './permission.ts';
import { askPersonInput, requestPermissionInput, TOOLS } from './tools.ts';
import { waitForClose } from './wait.ts';

/**
 * Handback's MCP server (§18): the SDK's low-level `Server` with the two tools of `tools.ts`, over any transport
 * (stdio for `handback mcp`, Streamable HTTP for `POST /mcp`). Each call pauses through the backend as the agent
 * would (the client, the store, or the API's own use cases), waits for people with progress notifications, and
 * answers what the pause's closing decided — or, past its wait, that the pause still waits.
 */

/** The server's name and version in `initialize`. */
export const SERVER_INFO = { name: 'handback', version: '0.1.0' } as const;

/** What the tools run on. */
export interface McpServerDeps {
  /** Where pauses are made and read. */
  backend: Pick<HandbackBackend, 'pause' | 'getPause' | 'getContinuation' | 'inboxUrl'>;
  /** How long one call waits for people, in milliseconds. */
  waitMs: number;
  /** Between two reads of the pause. @default 1000 */
  pollMs?: number;
  /** Between two progress notifications. @default 5000 */
  beatMs?: number;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A server with Handback's tools; connect it to a transport. */
export function createHandbackMcpServer(deps: McpServerDeps): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      'request_permission asks a person whether a tool call may run (Claude Code: --permission-prompt-tool mcp__handback__request_permission); ask_person asks a person a question. Both wait for people and may be asked again with the same id.',
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...TOOLS] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    switch (name) {
      case 'request_permission': {
        const parsed = z.safeParse(requestPermissionInput, args);
        return parsed.success ? requestPermission(deps, parsed.data, extra) : invalid(parsed.error);
      }
      case 'ask_person': {
        const parsed = z.safeParse(askPersonInput, args);
        return parsed.success ? askPerson(deps, parsed.data, extra) : invalid(parsed.error);
      }
      default:
        throw new McpError(
          ErrorCode.InvalidParams,
          `Tool ${name} not found: this server has ${TOOLS.map((tool) => tool.name).join(', ')}.`,
        );
    }
  });
  return server;
}

/** Claude Code's permission prompt: allow with the decided input, deny with why, or deny and interrupt past the wait. */
async function requestPermission(
  deps: McpServerDeps,
  args: z.infer<typeof requestPermissionInput>,
  extra: Extra,
): Promise<CallToolResult> {
  const call: PermissionCall = {
    toolUseId: args.tool_use_id ?? `hb_${randomUUID().replaceAll('-', '')}`,
    name: args.tool_name,
    input: args.input,
  };
  let answer: Record<string, unknown>;
  try {
    const key = await pauseOrMeet(
      deps.backend,
      permissionPause(call, {
        runId: `mcp-${call.toolUseId}`,
        context: args.prompt ?? `An agent asks permission to run ${call.name}.`,
        prompt: args.prompt ?? `Allow ${call.name}?`,
        metadata: { source: 'mcp', tool: 'request_permission' },
      }),
    );
    const view = await waitForClose(() => deps.backend.getPause(key), waitOptions(deps, extra, key));
    if (!isClosed(view)) {
      const askAgain = 'call request_permission again with the same tool_use_id to get the decision.';
      answer = {
        behavior: 'deny',
        message: stillWaiting(key, { ...inbox(deps), askAgain }),
        interrupt: true,
      };
    } else {
      const continuation =
        view.continuationId === undefined
          ? undefined
          : await deps.backend.getContinuation({ runId: key.runId, continuationId: view.continuationId });
      answer = decidedOf(view, call.toolUseId, continuation);
    }
  } catch (error) {
    // Fail closed: a request Handback could not record or read lets nothing run.
    answer = { behavior: 'deny', message: `Denied: Handback could not be asked (${describe(error)}).` };
  }
  // One text block and no structured content: Claude Code takes a permission prompt's answer from exactly that.
  return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
}

/** One `answer` ask: the person's answer, or an error saying why there is none (yet). */
async function askPerson(
  deps: McpServerDeps,
  args: z.infer<typeof askPersonInput>,
  extra: Extra,
): Promise<CallToolResult> {
  const askId = args.ask_id ?? randomUUID();
  const toolCallId = `ask_${askId}`.slice(0, 120);
  const input = { question: args.question, ...(args.schema === undefined ? {} : { schema: args.schema }) };
  try {
    const key = await pauseOrMeet(deps.backend, {
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
    });
    const view = await waitForClose(() => deps.backend.getPause(key), waitOptions(deps, extra, key));
    if (!isClosed(view)) {
      const askAgain = `call ask_person again with ask_id "${askId}" to get the answer.`;
      return failed(stillWaiting(key, { ...inbox(deps), askAgain }));
    }
    const decision = view.asks[0]?.decision;
    if (view.status === 'resumed' && decision !== undefined && 'answer' in decision) {
      const answer = { answer: decision.answer };
      return { content: [{ type: 'text', text: JSON.stringify(decision.answer) }], structuredContent: answer };
    }
    const continuation =
      view.continuationId === undefined
        ? undefined
        : await deps.backend.getContinuation({ runId: key.runId, continuationId: view.continuationId });
    const decided = decidedOf(view, toolCallId, continuation);
    return failed(decided.behavior === 'deny' ? decided.message : 'The person gave no answer.');
  } catch (error) {
    return failed(`Handback could not be asked (${describe(error)}).`);
  }
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
