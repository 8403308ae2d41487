import { asSchema, type ModelMessage, type ToolModelMessage, type ToolResultPart, type ToolSet } from 'ai';
import type { ClientContinuation, ClientPauseCreated, ClientPauseInput } from '../client/types.ts';
import { BadRequestError } from '../errors.ts';
import { isRejectionText } from '../rehydrate/texts.ts';
import type { AskView, JsonSchema } from '../wire.ts';
import {
  type ContinueInput,
  continuationOf,
  type ExecutionKey,
  type ExecutionLog,
  executionKey,
  executionLogOf,
  type HandbackOption,
  onceUnlessRefused,
  operationsOf,
} from './shared.ts';

/**
 * `handback/ai-sdk` (§15): an AI SDK (`ai` 6 or 7) step becomes a Handback pause, and the closed pause becomes the
 * `ModelMessage[]` for the next `generateText` / `streamText`.
 *
 * - A `tool-approval-request` that waits for a person (a tool with `needsApproval`, or `toolApproval` answering
 *   `'user-approval'`) becomes an `approval` ask, its `argsSchema` the tool's `inputSchema` as JSON Schema
 *   (`asSchema(...).jsonSchema`, the SDK's own conversion); an automatic one (AI SDK 7's `isAutomatic`) was settled
 *   by the SDK in the step and asks no one. A call of a tool without `execute` becomes an `answer` ask (its
 *   `outputSchema`, when it has one, as the `answerSchema`).
 * - Going on, each approved call is run by the tool's own `execute` with the decided arguments, at most once per
 *   `continuationId` and `toolCallId` (the `executions` log: claim before run), and its result is written as the SDK
 *   writes one; a rejected call carries the SDK's own denial: the `tool-approval-response` with `approved: false`
 *   and a `tool-result` whose output is `{type: 'execution-denied', reason}`, what `generateText` itself writes for a
 *   denied approval. An ask decided by a §17 policy (`by.via: "policy"`) is written as the SDK's own automatic
 *   approval or denial (`isAutomatic: true`, the policy named in the reason). Answers and not-dispatched calls keep
 *   Handback's results (§9).
 *
 * The messages end in tool results for every call of the round, so the SDK runs nothing itself on the next call.
 */

/** What ran, for one approved call of one continuation: enough to write its result again without running it. */
interface ExecutedCall {
  toolName: string;
  /** The tool's output as the model sees it (the SDK's `ToolResultOutput`): JSON, to persist as it is. */
  output: ToolResultPart['output'];
}

/** How the adapter reaches Handback and runs the tools. */
export interface AiSdkHandbackOptions<TOOLS extends ToolSet> {
  /** The HTTP client (`createHandbackClient`), or a store with its tenant: `{ store, tenant, by? }`. */
  handback: HandbackOption;
  /** The tools given to `generateText` / `streamText`. */
  tools: TOOLS;
  /** Where each approved call's run is recorded. @default in this process's memory (a warning in production) */
  executions?: ExecutionLog;
}

/** A step of `generateText` or `streamText` (its result, or a `StepResult`): its content and response messages. */
export interface StepLike {
  content: PromiseLike<readonly unknown[]> | readonly unknown[];
  response: PromiseLike<{ messages: readonly unknown[] }> | { messages: readonly unknown[] };
}

/** A tool call of the step that waits for a person. */
export interface AskedCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  kind: 'approval' | 'answer';
}

/** The pause to make from a step: the run, the messages the step was given, and the rest of a pause body. */
export type PauseFromStepInput = Omit<ClientPauseInput, 'format' | 'messages' | 'toolCallId' | 'asks'> & {
  /** The messages given to `generateText` / `streamText` for this step (the step's response messages follow). */
  messages: readonly ModelMessage[];
  step: StepLike;
  /** Each ask's prompt for the person; none by default (the inbox shows the tool and its arguments). */
  prompt?: (call: AskedCall) => string | undefined;
};

/** The AI SDK adapter on one Handback and one tool set. */
export interface AiSdkHandback {
  /** The asks of a step (none: the step needs no one). */
  asksOf(step: StepLike): Promise<AskedCall[]>;
  /** Pauses the turn when the step waits for a person; `undefined` when it does not. */
  pauseFromStep(input: PauseFromStepInput): Promise<ClientPauseCreated | undefined>;
  /** The messages for the next `generateText` / `streamText`, the approved calls run (once) and their results in. */
  continueFromPause(input: ContinueInput): Promise<ModelMessage[]>;
}

interface Part {
  type: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  approvalId?: string;
  isAutomatic?: boolean;
  approved?: boolean;
  reason?: string;
  providerExecuted?: boolean;
  invalid?: boolean;
  dynamic?: boolean;
  toolCall?: { toolCallId: string; toolName: string; input: unknown };
  output?: { type: string; value?: unknown };
}

/** The adapter: `pauseFromStep` after a step, `continueFromPause` once the pause has closed. */
export function createAiSdkHandback<TOOLS extends ToolSet>(options: AiSdkHandbackOptions<TOOLS>): AiSdkHandback {
  const handback = operationsOf(options.handback);
  const tools = options.tools as ToolSet;
  const executions = executionLogOf(options.executions, 'handback/ai-sdk');
  // Two deliveries of one continuation in this process wait for the same run rather than both starting one.
  const running = new Map<string, Promise<ExecutedCall>>();

  const asksOf = async (step: StepLike): Promise<AskedCall[]> => {
    const content = (await step.content) as readonly Part[];
    const asks: AskedCall[] = [];
    for (const part of content) {
      // An automatic approval or denial (AI SDK 7's `toolApproval`) was settled in the step: it asks no one.
      if (part.type === 'tool-approval-request' && part.toolCall !== undefined && part.isAutomatic !== true) {
        const { toolCallId, toolName, input } = part.toolCall;
        asks.push({ toolCallId, toolName, input, kind: 'approval' });
      } else if (
        part.type === 'tool-call' &&
        part.providerExecuted !== true &&
        part.invalid !== true &&
        typeof part.toolName === 'string' &&
        typeof part.toolCallId === 'string' &&
        tools[part.toolName] !== undefined &&
        tools[part.toolName]?.execute === undefined
      ) {
        asks.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input, kind: 'answer' });
      }
    }
    return asks;
  };

  const run = async (
    key: ExecutionKey,
    call: { toolCallId: string; name: string; args: unknown },
    before: unknown[],
  ) => {
    const tool = tools[call.name];
    if (tool?.execute === undefined) {
      throw new BadRequestError(
        `The approved call ${call.toolCallId} names ${call.name}, which is not among the tools given (or has no execute); pass the tools the step ran with.`,
        [{ path: `/dispatch/${call.toolCallId}`, message: `no tool ${call.name} with execute` }],
      );
    }
    const execute = tool.execute;
    const recorded = await onceUnlessRefused(
      executions,
      key,
      async () => {
        let output: ToolResultPart['output'];
        try {
          let result: unknown = await execute(
            call.args as never,
            {
              toolCallId: call.toolCallId,
              messages: before as ModelMessage[],
              // AI SDK 7 hands each tool its context; a tool that needs one gets none here, as in a bare call.
              context: undefined,
            } as never,
          );
          // A streaming tool yields preliminary results; its last one is its result, as in the SDK.
          if (isAsyncIterable(result)) for await (const value of result) result = value;
          output = tool.toModelOutput
            ? await tool.toModelOutput({ toolCallId: call.toolCallId, input: call.args, output: result } as never)
            : typeof result === 'string'
              ? { type: 'text', value: result }
              : { type: 'json', value: (result ?? null) as never };
        } catch (error) {
          // It ran (and may have done something before it threw): recorded like a result, never run again.
          output = { type: 'error-text', value: error instanceof Error ? error.message : String(error) };
        }
        const done: ExecutedCall = { toolName: call.name, output };
        return JSON.stringify(done);
      },
      (words) => JSON.stringify({ toolName: call.name, output: { type: 'error-text', value: words } }),
    );
    return JSON.parse(recorded) as ExecutedCall;
  };

  const runOnce = (key: ExecutionKey, call: { toolCallId: string; name: string; args: unknown }, before: unknown[]) => {
    const id = executionKey(key);
    let pending = running.get(id);
    if (pending === undefined) {
      pending = run(key, call, before).finally(() => running.delete(id));
      running.set(id, pending);
    }
    return pending;
  };

  return {
    asksOf,

    async pauseFromStep({ messages, step, prompt, ...pause }) {
      const asked = await asksOf(step);
      if (asked.length === 0) return undefined;
      const asks = await Promise.all(
        asked.map(async (call) => {
          const tool = tools[call.toolName];
          const text = prompt?.(call);
          const base = { toolCallId: call.toolCallId, ...(text === undefined ? {} : { prompt: text }) };
          if (call.kind === 'approval') {
            return { ...base, kind: 'approval' as const, argsSchema: await jsonSchemaOf(tool?.inputSchema) };
          }
          const answerSchema = tool?.outputSchema === undefined ? undefined : await jsonSchemaOf(tool.outputSchema);
          return { ...base, kind: 'answer' as const, ...(answerSchema === undefined ? {} : { answerSchema }) };
        }),
      );
      const response = await step.response;
      return handback.pause({ ...pause, format: 'ai-sdk', messages: [...messages, ...response.messages], asks });
    },

    async continueFromPause(input) {
      const continuation = await continuationOf(handback, input);
      const messages = continuation.messages as Array<{ role: string; content: unknown }>;
      const at = messages.findLastIndex((message) => message.role === 'assistant');
      const assistant = messages[at];
      if (assistant === undefined || !Array.isArray(assistant.content)) {
        throw new BadRequestError(
          `Continuation ${continuation.continuationId} has no assistant message with tool calls: is it an ai-sdk pause?`,
        );
      }
      const parts = assistant.content as Part[];
      const calls = parts.filter((p) => p.type === 'tool-call' && p.providerExecuted !== true);
      const approvals = new Map(
        parts
          .filter((p) => p.type === 'tool-approval-request')
          .map((p) => [p.toolCallId as string, p.approvalId as string]),
      );
      const before = messages.slice(0, at);
      const results = new Map<string, Part>();
      const others: Part[] = [];
      const after = messages.slice(at + 1);
      for (const message of after) {
        for (const part of message.content as Part[]) {
          if (part.type === 'tool-result' && part.toolCallId !== undefined) results.set(part.toolCallId, part);
          else others.push(part);
        }
      }
      const automatic = approvals.size === 0 ? new Map<string, string>() : await policyDecided(continuation);
      const responses: Part[] = [];
      for (const call of continuation.dispatch) {
        const { runId, continuationId } = continuation;
        const done = await runOnce({ runId, continuationId, toolCallId: call.toolCallId }, call, before);
        results.set(call.toolCallId, {
          type: 'tool-result',
          toolCallId: call.toolCallId,
          toolName: done.toolName,
          output: done.output,
        });
      }
      for (const [toolCallId, approvalId] of approvals) {
        const result = results.get(toolCallId);
        const dispatched = continuation.dispatch.some((call) => call.toolCallId === toolCallId);
        const policy = automatic.get(toolCallId);
        const by = policy === undefined ? {} : { reason: policy };
        if (dispatched) {
          responses.push({ type: 'tool-approval-response', approvalId, approved: true, ...by });
        } else if (result !== undefined && isRejection(result.output)) {
          const reason = String(result.output?.value);
          results.set(toolCallId, { ...result, output: { type: 'execution-denied', reason } as Part['output'] });
          responses.push({ type: 'tool-approval-response', approvalId, approved: false, reason });
        }
      }
      // A policy's decision is the SDK's automatic approval: the request says so, as `toolApproval` writes it.
      const round = parts.map((part) =>
        part.type === 'tool-approval-request' && automatic.has(part.toolCallId as string)
          ? { ...part, isAutomatic: true }
          : part,
      );
      const content = [
        ...others,
        ...responses,
        ...calls.flatMap((call) => {
          const result = results.get(call.toolCallId as string);
          return result === undefined ? [] : [result];
        }),
      ];
      const tool: ToolModelMessage = { role: 'tool', content: content as ToolModelMessage['content'] };
      const paused = { ...assistant, content: round } as ModelMessage;
      return [...(messages.slice(0, at) as ModelMessage[]), paused, tool];
    },
  };

  /** The asks a §17 policy decided (`by.via: "policy"`), each with the policy that decided it. */
  async function policyDecided(continuation: ClientContinuation): Promise<Map<string, string>> {
    const view = await handback.getPause({ runId: continuation.runId, interruptId: continuation.interruptId });
    const byPolicy = (ask: AskView) => String(ask.decision?.by?.via) === 'policy';
    return new Map(view.asks.filter(byPolicy).map((ask) => [ask.toolCallId, String(ask.decision?.by?.subject)]));
  }
}

/** A tool schema as JSON Schema, by the SDK's own conversion; the draft-07 `$schema` it names is left out (§9's are 2020-12). */
async function jsonSchemaOf(schema: Parameters<typeof asSchema>[0]): Promise<JsonSchema | undefined> {
  if (schema === undefined) return undefined;
  const { $schema: _, ...json } = (await asSchema(schema).jsonSchema) as Record<string, unknown>;
  return json;
}

/** Handback's rejection (§9, §19): a person's or a policy's; the output of every rejected or cancelled ask. */
function isRejection(output: Part['output']): boolean {
  return output?.type === 'error-text' && typeof output.value === 'string' && isRejectionText(output.value);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

export * from './every-adapter.ts';
export type { ContinueInput } from './shared.ts';
