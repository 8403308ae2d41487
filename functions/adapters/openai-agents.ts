import {
  type Agent,
  type AgentInputItem,
  type FunctionTool,
  invokeFunctionTool,
  type NonStreamRunOptions,
  RunContext,
  type RunResult,
  type RunToolApprovalItem,
  run,
} from '@openai/agents';
import type { AskInput } from '../checkpoints/checkpoint-store.ts';
import type { ClientContinuation, ClientPauseCreated, ClientPauseInput } from '../client/types.ts';
import { BadRequestError } from '../errors.ts';
import { appendResults, type ToolResult } from '../rehydrate/results.ts';
import type { JsonSchema } from '../wire.ts';
import {
  type AskRule,
  type ContinueInput,
  continuationOf,
  type ExecutionLog,
  executionLogOf,
  type HandbackOption,
  onceUnlessRefused,
  operationsOf,
  outputText,
} from './shared.ts';

/**
 * `handback/openai-agents` (§15): a run of the OpenAI Agents SDK that stops on `result.interruptions` (tools with
 * `needsApproval`) becomes a Handback pause of its paused round, one ask per approval item, in format
 * `openai-responses`; the continuation that closes it becomes the same conversation going on with `run()`.
 *
 * What is checkpointed is the transcript, not the SDK's serialized `RunState` (docs/openai-agents.md says why): a
 * Lambda that never saw the pause needs only the agent (its code) and the continuation to go on, and the arguments a
 * person edited are already in the transcript's `function_call` items. Approved calls are run by the agent's own
 * tool (`invokeFunctionTool`, which parses and validates the arguments as a run does) once per continuation and
 * call, whatever is redelivered; rejected and not-dispatched calls are never run, and the model reads their
 * rejection where the SDK would put its own.
 */

// biome-ignore lint/suspicious/noExplicitAny: an agent of any output type, as the SDK's own signatures take it
type AnyAgent<TContext> = Agent<TContext, any>;

// biome-ignore lint/suspicious/noExplicitAny: a result of any context, as `run()` infers it
type AnyContext = any;

/** What `pause` reads of a run's result (any context: the result of `run()` as it is). */
export type PausableResult = Pick<
  RunResult<AnyContext, AnyAgent<AnyContext>>,
  'interruptions' | 'history' | 'rawResponses' | 'lastAgent'
>;

/** What `pause` takes beside the run's result: the run's name and any of the pause body's own fields. */
export type AgentsPauseOptions = Omit<
  ClientPauseInput,
  'format' | 'messages' | 'toolCallId' | 'prompt' | 'answerSchema' | 'asks'
>;

/** What `resume` takes: where to go on from (the hand-off's pointer, a continuation, or `decide`'s result), and the run's context and options for `run()`. */
export type AgentsResumeOptions<TContext> = ContinueInput & {
  /** The run's context, as `run(agent, input, { context })` takes it. */
  context?: TContext;
  /** Any other option of `run()` (not `stream`). */
  runOptions?: Omit<NonStreamRunOptions<TContext>, 'context'>;
};

/** The adapter's settings. */
export interface OpenAIAgentsHandbackOptions<TContext> {
  /** The HTTP client (`createHandbackClient`), or a store with its tenant: `{ store, tenant, by? }`. */
  handback: HandbackOption;
  /** The agent the run started with: its tools run the approved calls, and `run()` goes on from it. */
  agent: AnyAgent<TContext>;
  /** Per tool name: asks of kind `answer` (`ask_human`-like tools), or approval settings. Default: an approval. */
  asks?: Record<string, AskRule>;
  /** Where each approved call's run is recorded. @default in this process's memory (a warning in production) */
  executions?: ExecutionLog;
}

/** A run paused by Handback and resumed from its continuation. */
export interface OpenAIAgentsHandback<TContext> {
  /** Pauses the run's interrupted round: one ask per `result.interruptions` item, the tool's parameters as `argsSchema`. */
  pause(result: PausableResult, options: AgentsPauseOptions): Promise<ClientPauseCreated>;
  /** Runs the approved calls once, appends their results, and goes on with `run()` on the decided transcript. */
  resume(options: AgentsResumeOptions<TContext>): Promise<AgentsResumed<TContext>>;
}

/** What `resume` did: the continuation, the calls it ran (or found run), and the run that went on. */
export interface AgentsResumed<TContext> {
  continuation: ClientContinuation;
  ran: ToolResult[];
  result: RunResult<TContext, AnyAgent<TContext>>;
}

/** Handback for one agent of the OpenAI Agents SDK. */
export function openaiAgentsHandback<TContext = unknown>(
  options: OpenAIAgentsHandbackOptions<TContext>,
): OpenAIAgentsHandback<TContext> {
  const { agent } = options;
  const handback = operationsOf(options.handback);
  const executions = executionLogOf(options.executions, 'handback/openai-agents');
  return {
    async pause(result, pauseOptions) {
      const interruptions = result.interruptions;
      if (interruptions.length === 0) {
        throw new BadRequestError('The run has no interruptions to pause: it finished or failed.');
      }
      const tools = toolsOf<TContext>(result.lastAgent ?? agent);
      const asks = interruptions.map((item) => askOf(item, tools, options.asks));
      return handback.pause({
        ...pauseOptions,
        format: 'openai-responses',
        messages: transcriptOf(result),
        asks,
      });
    },

    async resume(input) {
      const { context, runOptions } = input;
      const continuation = await continuationOf(handback, input);
      const { runId, continuationId } = continuation;
      const tools = toolsOf(agent);
      const runContext = new RunContext<TContext>(context as TContext);
      const ran: ToolResult[] = [];
      for (const call of continuation.dispatch) {
        const tool = tools.get(call.name);
        if (tool === undefined) {
          throw new BadRequestError(`The agent has no function tool named ${JSON.stringify(call.name)} to run.`);
        }
        const input = JSON.stringify(call.args);
        const key = { runId, continuationId, toolCallId: call.toolCallId };
        const output = await onceUnlessRefused(
          executions,
          key,
          async () => {
            const toolCall = {
              type: 'function_call',
              callId: call.toolCallId,
              name: call.name,
              arguments: input,
            } as const;
            return outputText(await invokeFunctionTool({ tool, runContext, input, details: { toolCall } }));
          },
          (words) => words,
        );
        ran.push({ toolCallId: call.toolCallId, output });
      }
      const messages = appendResults('openai-responses', continuation.messages, ran);
      const next = await run(agent, toAgentItems(messages), {
        ...runOptions,
        ...(context === undefined ? {} : { context }),
      });
      return { continuation, ran, result: next };
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: tools of any context and parameters
type AnyFunctionTool = FunctionTool<any, any, any>;

/** The agent's function tools by name. */
function toolsOf<T>(agent: AnyAgent<T>): Map<string, AnyFunctionTool> {
  const tools = new Map<string, AnyFunctionTool>();
  for (const tool of agent.tools) if (tool.type === 'function') tools.set(tool.name, tool as AnyFunctionTool);
  return tools;
}

/** One approval item as an ask: an approval with the tool's parameters as `argsSchema`, or an answer by the rules. */
function askOf(
  item: RunToolApprovalItem,
  tools: Map<string, AnyFunctionTool>,
  rules: Record<string, AskRule> | undefined,
): AskInput {
  const raw = item.rawItem as { type?: string; callId?: string; name?: string; arguments?: string };
  if (raw.type !== 'function_call' || raw.callId === undefined || raw.name === undefined) {
    throw new BadRequestError(
      `Only function tool approvals can be paused; this interruption is a ${JSON.stringify(raw.type)} item.`,
    );
  }
  const rule = Object.hasOwn(rules ?? {}, raw.name) ? rules?.[raw.name] : undefined;
  const prompt = rule?.prompt ?? `${raw.name} ${raw.arguments ?? '{}'}`;
  if (rule?.kind === 'answer') {
    return {
      toolCallId: raw.callId,
      kind: 'answer',
      prompt,
      ...(rule.answerSchema === undefined ? {} : { answerSchema: rule.answerSchema }),
    };
  }
  const parameters = tools.get(raw.name)?.parameters as JsonSchema | undefined;
  return {
    toolCallId: raw.callId,
    kind: 'approval',
    prompt,
    ...(parameters === undefined ? {} : { argsSchema: withoutDraft(parameters) }),
    ...(rule?.editable === undefined ? {} : { editable: rule.editable }),
  };
}

/** The SDK writes its zod schemas as draft-07 (`$schema`); Handback compiles 2020-12, where the keywords it uses mean the same. */
function withoutDraft(schema: JsonSchema): JsonSchema {
  if (typeof schema !== 'object') return schema;
  const { $schema: _, ...rest } = schema;
  return rest;
}

type Item = Record<string, unknown> & { type?: unknown; id?: unknown; callId?: unknown };

/**
 * The run's transcript as Responses API input items, its paused round whole. The SDK's `history` leaves out the
 * calls that wait for approval, so the round is taken from the last model response (every item it made, in order),
 * followed by the results the SDK already has for it (calls of tools that needed no approval).
 */
export function transcriptOf(
  result: Pick<RunResult<unknown, AnyAgent<unknown>>, 'history' | 'rawResponses'>,
): unknown[] {
  const history = result.history as unknown as Item[];
  const round = (result.rawResponses.at(-1)?.output ?? []) as unknown as Item[];
  const callIds = new Set(round.filter((item) => item.type === 'function_call').map((item) => item.callId));
  const itemIds = new Set(round.map((item) => item.id).filter((id) => id !== undefined));
  const ofRound = (item: Item) =>
    ((item.type === 'function_call' || item.type === 'function_call_result') && callIds.has(item.callId)) ||
    (item.id !== undefined && itemIds.has(item.id));
  let start = history.length;
  while (start > 0 && ofRound(history[start - 1] as Item)) start--;
  const results = history.slice(start).filter((item) => item.type === 'function_call_result');
  return [...history.slice(0, start), ...round, ...results].map(toResponsesItem);
}

/** An SDK item as the Responses API's input item (what the SDK's OpenAI provider sends for it). */
function toResponsesItem(item: Item): unknown {
  const { providerData, ...rest } = item as Item & { providerData?: Record<string, unknown> };
  const extra = providerData ?? {};
  switch (rest.type) {
    case 'function_call': {
      const { callId, ...call } = rest;
      return { ...extra, ...call, call_id: callId };
    }
    case 'function_call_result': {
      const { callId, output } = rest as { callId: string; output: unknown };
      return { ...extra, type: 'function_call_output', call_id: callId, output: resultText(output) };
    }
    case 'reasoning': {
      const { content = [], rawContent: _, ...reasoning } = rest as Item & { content?: Array<{ text: string }> };
      return { ...extra, ...reasoning, summary: content.map(({ text }) => ({ type: 'summary_text', text })) };
    }
    default:
      return { ...extra, ...rest };
  }
}

/** A function result's output as text: the SDK's `{type: 'text', text}`, a string, or its JSON. */
function resultText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (typeof output === 'object' && output !== null && (output as { type?: unknown }).type === 'text') {
    return String((output as { text?: unknown }).text);
  }
  return outputText(output);
}

/** Responses API input items as the SDK's own input items, for `run(agent, items)`. */
export function toAgentItems(messages: readonly unknown[]): AgentInputItem[] {
  const names = new Map<unknown, unknown>();
  return messages.map((message) => {
    const item = message as Item;
    switch (item.type) {
      case 'function_call': {
        const { call_id, ...call } = item;
        names.set(call_id, call.name);
        return { status: 'completed', ...call, callId: call_id } as unknown as AgentInputItem;
      }
      case 'function_call_output': {
        const { call_id, output } = item;
        const text = typeof output === 'string' ? output : JSON.stringify(output);
        return {
          type: 'function_call_result',
          callId: call_id,
          name: names.get(call_id),
          status: 'completed',
          output: { type: 'text', text },
        } as unknown as AgentInputItem;
      }
      case 'reasoning': {
        const { summary = [], ...reasoning } = item as Item & { summary?: Array<{ text: string }> };
        const content = summary.map(({ text }) => ({ type: 'input_text', text }));
        return { ...reasoning, content } as unknown as AgentInputItem;
      }
      default:
        return item as unknown as AgentInputItem;
    }
  });
}

export * from './every-adapter.ts';
export type { AskRule } from './shared.ts';
