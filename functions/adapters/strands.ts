import {
  type Agent,
  type AgentResult,
  BeforeToolCallEvent,
  type ContentBlockData,
  type Interrupt,
  InterruptResponseContent,
  type JSONValue,
  type LocalAgent,
  type MessageData,
  type Plugin,
  SNAPSHOT_SCHEMA_VERSION,
  type Tool,
  type ToolContext,
  ToolResultBlock,
  type ToolResultBlockData,
  type ToolStreamGenerator,
} from '@strands-agents/sdk';
import type { AskInput } from '../checkpoints/checkpoint-store.ts';
import type { ClientContinuation, ClientPauseCreated, ClientPauseInput } from '../client/types.ts';
import { BadRequestError } from '../errors.ts';
import { isRejectionText, NOT_DISPATCHED } from '../rehydrate/texts.ts';
import {
  type AskRule,
  type ContinueInput,
  continuationOf,
  type ExecutionKey,
  type ExecutionLog,
  executionLogOf,
  type HandbackOption,
  onceUnlessRefused,
  operationsOf,
} from './shared.ts';

/**
 * `handback/strands` (§15): a Strands agent (`@strands-agents/sdk`) pauses through its own interrupts, raised by the
 * tool-call hook this module provides (`approvalHook`, a plugin whose `BeforeToolCallEvent` callback interrupts for
 * the tools it lists). The agent's stop on those interrupts becomes one Handback pause of the paused round, in format
 * `bedrock-converse` (Strands' own message shape); the continuation that closes it becomes the agent invoked again
 * with the interrupt responses, which the same hook turns into the SDK's own outcomes:
 *
 * - approve / edit: the call runs with the decided arguments, at most once per continuation and call (the adapter's
 *   `executions` log: claim before run), whatever is retried or redelivered;
 * - reject (and a cancel or an expiry): the hook sets `event.cancel` to Handback's rejection text, so the tool does
 *   not run and the model reads the reason as the call's error result;
 * - answer: a tool with no side effects stands in (`event.selectedTool`), its result the person's answer.
 *
 * The agent's session is rebuilt from the transcript (docs/strands.md says why): `resume` loads a snapshot of the
 * continuation's messages and the paused round's interrupt state into the agent before invoking it, so a Lambda that
 * never saw the pause needs only the agent (its code) and the continuation.
 */

/** The name of every interrupt the hook raises; the SDK keys it by the call (`hook:beforeToolCall:<id>:<name>`). */
export const INTERRUPT_NAME = 'handback';

/** Where the pause keeps which interrupt asks about which call (in `metadata`). */
const METADATA_KEY = 'handback/strands';

/** How one tool's calls become asks: an AskRule, with who may decide it and how many approvals it needs (§13). */
export type StrandsAskRule = AskRule & Pick<AskInput, 'approvers' | 'approvals'>;

/** The hook's settings. */
export interface ApprovalHookOptions {
  /** The tools whose every call waits for a person (as an approval, unless `asks` says otherwise). */
  tools: readonly string[];
  /** Per tool name: an `answer` ask (an `ask_human`-like tool) or the approval's settings. A tool named here waits too. */
  asks?: Record<string, StrandsAskRule>;
}

/** The plugin to give the agent (`new Agent({ plugins: [approvalHook(...)] })`). */
export interface ApprovalHook extends Plugin {
  /** The ask rule for a tool, or `undefined` when its calls run without a person. */
  ruleOf(toolName: string): StrandsAskRule | undefined;
}

/** What the hook reads back from an interrupt's response on the resumed invocation. */
export type ApprovalResponse =
  | { decision: 'approve'; args: JSONValue; execution: ExecutionKey }
  | { decision: 'reject'; message: string }
  | { decision: 'answer'; answer: string };

/** The agents each hook was given to, so `pause` and `resume` find the rules of the agent's hook. */
const hooks = new WeakMap<object, ApprovalHook>();

/** The execution log of the adapter resuming each agent: the hook runs the approved calls through it. */
const resumingWith = new WeakMap<object, ExecutionLog>();

/** A plugin that interrupts the agent before each call of the listed tools, and applies the decision on resume. */
export function approvalHook(options: ApprovalHookOptions): ApprovalHook {
  const waiting = new Set([...options.tools, ...Object.keys(options.asks ?? {})]);
  const hook: ApprovalHook = {
    name: 'handback:approvals',
    ruleOf(toolName) {
      if (!waiting.has(toolName)) return undefined;
      return Object.hasOwn(options.asks ?? {}, toolName) ? (options.asks?.[toolName] ?? {}) : {};
    },
    initAgent(agent: LocalAgent) {
      hooks.set(agent, hook);
      agent.addHook(BeforeToolCallEvent, (event) => {
        if (hook.ruleOf(event.toolUse.name) === undefined) return;
        const { toolUseId, name, input } = event.toolUse;
        // First invocation: throws the SDK's InterruptError and the agent stops. Resumed: the decision.
        const response = event.interrupt<JSONValue>({ name: INTERRUPT_NAME, reason: { toolUseId, tool: name, input } });
        const decided = approvalResponse(response, toolUseId);
        const executions = resumingWith.get(agent);
        if (decided.decision === 'approve' && executions === undefined) {
          throw new BadRequestError(
            'An approved call runs only through strandsHandback().resume, with its executions log.',
          );
        }
        applyDecision(event, decided, executions as ExecutionLog);
      });
    },
  };
  return hook;
}

/** How the adapter reaches Handback and records the approved calls' runs. */
export interface StrandsHandbackOptions {
  /** The HTTP client (`createHandbackClient`), or a store with its tenant: `{ store, tenant, by? }`. */
  handback: HandbackOption;
  /** Where each approved call's run is recorded. @default in this process's memory (a warning in production) */
  executions?: ExecutionLog;
}

/** What `pause` takes beside the agent and its result: the run's name and any of the pause body's own fields. */
export type StrandsPauseOptions = Omit<
  ClientPauseInput,
  'format' | 'messages' | 'toolCallId' | 'prompt' | 'answerSchema' | 'asks'
>;

/** Where to go on from: a continuation, what `decide` returned, or the continuation's run and id. */
export type StrandsContinueInput = ContinueInput;

/** What `resume` did: the continuation, the responses the agent was invoked with, and its result. */
export interface StrandsResumed {
  continuation: ClientContinuation;
  responses: Array<{ interruptId: string; response: ApprovalResponse }>;
  result: AgentResult;
}

/** A Strands agent paused by Handback, and resumed from its continuation. */
export interface StrandsHandback {
  /** Pauses the round the agent stopped on: one ask per interrupt of its `approvalHook`. */
  pause(agent: Agent, result: AgentResult, options: StrandsPauseOptions): Promise<ClientPauseCreated>;
  /** Loads the continuation into the agent and invokes it with the interrupt responses. */
  resume(agent: Agent, input: StrandsContinueInput): Promise<StrandsResumed>;
}

/** What the pause records beside the transcript: which interrupt asks about which call. */
interface Recorded {
  interrupts: Array<{ id: string; toolUseId: string }>;
}

type Block = Record<string, unknown>;
type ConverseMessage = { role: 'user' | 'assistant'; content: Block[] };

/** Handback for Strands agents that carry an `approvalHook`. */
export function strandsHandback(options: StrandsHandbackOptions): StrandsHandback {
  const handback = operationsOf(options.handback);
  const executions = executionLogOf(options.executions, 'handback/strands');
  return {
    async pause(agent, result, pauseOptions) {
      const hook = hookOf(agent);
      if (result.stopReason !== 'interrupt') {
        throw new BadRequestError(
          `The agent stopped with ${JSON.stringify(result.stopReason)}, not on an interrupt: there is nothing to pause.`,
        );
      }
      const interrupts = result.interrupts ?? [];
      const foreign = interrupts.filter((interrupt) => !isOurs(interrupt));
      if (foreign.length > 0 || interrupts.length === 0) {
        throw new BadRequestError(
          `Handback decides only the interrupts its approvalHook raises; the agent also waits on ${foreign.map((i) => JSON.stringify(i.name)).join(', ') || 'nothing'}.`,
        );
      }
      const pending = pendingRoundOf(agent);
      const calls = new Map(
        pending.assistant.content.flatMap((block) => ('toolUse' in block ? [[block.toolUse.toolUseId, block]] : [])),
      );
      // In call order: the SDK lists the interrupts as the concurrent executor reached them.
      const order = [...calls.keys()];
      const byCall = (interrupt: Interrupt) =>
        order.indexOf(String((interrupt.reason as { toolUseId?: unknown } | undefined)?.toolUseId));
      const recorded: Recorded = { interrupts: [] };
      const asks = [...interrupts]
        .sort((a, b) => byCall(a) - byCall(b))
        .map((interrupt) => {
          const toolUseId = (interrupt.reason as { toolUseId?: unknown } | undefined)?.toolUseId;
          const call = typeof toolUseId === 'string' ? calls.get(toolUseId) : undefined;
          if (call === undefined || !('toolUse' in call) || typeof toolUseId !== 'string') {
            throw new BadRequestError(`Interrupt ${interrupt.id} names no tool call of the paused round.`);
          }
          recorded.interrupts.push({ id: interrupt.id, toolUseId });
          return askOf(toolUseId, call.toolUse.name, call.toolUse.input, hook);
        });
      const results = Object.values(pending.completed).map((entry) => ({ toolResult: entry.toolResult }));
      const messages: ConverseMessage[] = [
        ...pending.history.map(toConverse),
        toConverse(pending.assistant),
        ...(results.length === 0 ? [] : [toConverse({ role: 'user', content: results })]),
      ];
      return handback.pause({
        ...pauseOptions,
        metadata: { ...pauseOptions.metadata, [METADATA_KEY]: recorded },
        format: 'bedrock-converse',
        messages,
        asks,
      });
    },

    async resume(agent, input) {
      // Plugins join an agent when it is initialized: a fresh agent (a Lambda that never saw the pause) is not yet.
      await agent.initialize();
      hookOf(agent);
      const continuation = await continuationOf(handback, input);
      const pause = await handback.getPause({ runId: continuation.runId, interruptId: continuation.interruptId });
      const recorded = pause.metadata?.[METADATA_KEY] as Recorded | undefined;
      if (recorded === undefined || !Array.isArray(recorded.interrupts)) {
        throw new BadRequestError(`Pause ${continuation.interruptId} was not made by handback/strands.`);
      }
      const messages = continuation.messages as ConverseMessage[];
      const asked = new Set(recorded.interrupts.map((entry) => entry.toolUseId));
      const at = messages.findLastIndex(
        (message) =>
          message.role === 'assistant' &&
          message.content.some((block) =>
            asked.has((block.toolUse as { toolUseId?: string } | undefined)?.toolUseId ?? ''),
          ),
      );
      const assistant = messages[at];
      if (assistant === undefined) {
        throw new BadRequestError(`Continuation ${continuation.continuationId} has no round with the paused calls.`);
      }
      const results = new Map<string, Block>();
      const next = messages[at + 1];
      for (const block of next?.role === 'user' ? next.content : []) {
        const result = block.toolResult as { toolUseId?: string } | undefined;
        if (result?.toolUseId !== undefined) results.set(result.toolUseId, block);
      }
      // The calls of the round no one was asked about keep their results (they ran before the interrupt, or were not
      // dispatched): the SDK takes them as done and never runs them.
      const completed: Record<string, { toolResult: ToolResultBlockData }> = {};
      for (const block of assistant.content) {
        const id = (block.toolUse as { toolUseId?: string } | undefined)?.toolUseId;
        if (id === undefined || asked.has(id)) continue;
        const result = results.get(id) ?? { toolResult: { toolUseId: id, content: [{ text: NOT_DISPATCHED }] } };
        completed[id] = { toolResult: toStrandsBlock(result).toolResult as ToolResultBlockData };
      }
      const responses = recorded.interrupts.map(({ id, toolUseId }) => ({
        interruptId: id,
        response: responseFor(continuation, toolUseId, results.get(toolUseId)),
      }));
      const interrupts = Object.fromEntries(
        recorded.interrupts.map(({ id, toolUseId }) => [
          id,
          { id, name: INTERRUPT_NAME, reason: { toolUseId }, source: 'hook' },
        ]),
      );
      agent.loadSnapshot({
        scope: 'agent',
        schemaVersion: SNAPSHOT_SCHEMA_VERSION,
        createdAt: continuation.resumedAt,
        data: {
          messages: messages.slice(0, at).map(toStrands) as unknown as JSONValue,
          interrupts: {
            interrupts,
            activated: true,
            pendingToolExecution: {
              assistantMessageData: toStrands(assistant) as unknown as JSONValue,
              completedToolResults: completed as unknown as JSONValue,
            },
          },
        },
        appData: {},
      });
      resumingWith.set(agent, executions);
      const result = await agent.invoke(
        responses.map(({ interruptId, response }) => new InterruptResponseContent({ interruptId, response })),
      );
      return { continuation, responses, result };
    },
  };
}

/** The agent's approvalHook; refused when it has none, since only the hook can apply the decisions. */
function hookOf(agent: LocalAgent): ApprovalHook {
  const hook = hooks.get(agent);
  if (hook === undefined) {
    throw new BadRequestError(
      'The agent has no approvalHook among its plugins: create it with `plugins: [approvalHook({ tools })]`.',
    );
  }
  return hook;
}

function isOurs(interrupt: Interrupt): boolean {
  return interrupt.name === INTERRUPT_NAME && interrupt.source === 'hook';
}

/** One interrupted call as an ask, by the hook's rule for its tool. */
function askOf(toolUseId: string, toolName: string, input: unknown, hook: ApprovalHook): AskInput {
  const rule = hook.ruleOf(toolName) ?? {};
  const prompt = rule.prompt ?? `${toolName} ${JSON.stringify(input)}`;
  const who = rule.approvers === undefined ? {} : { approvers: rule.approvers };
  if (rule.kind === 'answer') {
    return {
      toolCallId: toolUseId,
      kind: 'answer',
      prompt,
      ...who,
      ...(rule.answerSchema === undefined ? {} : { answerSchema: rule.answerSchema }),
    };
  }
  return {
    toolCallId: toolUseId,
    kind: 'approval',
    prompt,
    ...who,
    ...(rule.editable === undefined ? {} : { editable: rule.editable }),
    ...(rule.approvals === undefined ? {} : { approvals: rule.approvals }),
  };
}

/** The round the agent stopped in, from its snapshot: the SDK keeps it out of `messages` until its tools have run. */
function pendingRoundOf(agent: LocalAgent): {
  history: MessageData[];
  assistant: MessageData;
  completed: Record<string, { toolResult: ToolResultBlockData }>;
} {
  const { data } = agent.takeSnapshot({ include: ['messages', 'interrupts'] });
  const state = data.interrupts as
    | {
        pendingToolExecution?: {
          assistantMessageData: MessageData;
          completedToolResults: Record<string, { toolResult: ToolResultBlockData }>;
        };
      }
    | null
    | undefined;
  const pending = state?.pendingToolExecution;
  if (pending === undefined) {
    throw new BadRequestError('The agent holds no paused round of tool calls: it was interrupted outside a tool call.');
  }
  return {
    history: data.messages as unknown as MessageData[],
    assistant: pending.assistantMessageData,
    completed: pending.completedToolResults,
  };
}

/** The interrupt's response for one asked call: approved with its decided args, or the result people gave it. */
function responseFor(continuation: ClientContinuation, toolUseId: string, result: Block | undefined): ApprovalResponse {
  const dispatched = continuation.dispatch.find((call) => call.toolCallId === toolUseId);
  if (dispatched !== undefined) {
    const { runId, continuationId } = continuation;
    return {
      decision: 'approve',
      args: dispatched.args as JSONValue,
      execution: { runId, continuationId, toolCallId: toolUseId },
    };
  }
  const text = result === undefined ? undefined : resultText(result);
  if (text === undefined) {
    throw new BadRequestError(`Continuation ${continuation.continuationId} has no result for call ${toolUseId}.`);
  }
  // An approval not dispatched was rejected (by a person, a policy, a cancel or an expiry): Handback's rejection text.
  return isRejectionText(text) ? { decision: 'reject', message: text } : { decision: 'answer', answer: text };
}

/** A tool result block's text (its text parts, JSON parts as JSON text). */
function resultText(block: Block): string {
  const content = (block.toolResult as { content?: Array<{ text?: string; json?: unknown }> }).content ?? [];
  return content.map((part) => part.text ?? JSON.stringify(part.json)).join('');
}

/** The response the hook was resumed with, checked: `resume` writes it, and nothing else should. */
function approvalResponse(response: JSONValue, toolUseId: string): ApprovalResponse {
  const value = response as Partial<Record<string, unknown>> | null;
  const decision = typeof value === 'object' && value !== null ? value.decision : undefined;
  if (
    (decision === 'approve' && isExecutionKey(value?.execution)) ||
    (decision === 'reject' && typeof value?.message === 'string') ||
    (decision === 'answer' && typeof value?.answer === 'string')
  ) {
    return value as ApprovalResponse;
  }
  throw new BadRequestError(
    `The response to call ${toolUseId}'s interrupt is not a Handback decision: resume the agent with strandsHandback().resume.`,
  );
}

/** An interrupt response's execution ids, as `responseFor` wrote them. */
function isExecutionKey(value: unknown): value is ExecutionKey {
  const key = value as Partial<Record<string, unknown>> | null;
  return (
    typeof key === 'object' &&
    key !== null &&
    typeof key.runId === 'string' &&
    typeof key.continuationId === 'string' &&
    typeof key.toolCallId === 'string'
  );
}

/** Applies a decision to the call about to run, in the SDK's own terms. */
function applyDecision(event: BeforeToolCallEvent, response: ApprovalResponse, executions: ExecutionLog): void {
  switch (response.decision) {
    case 'approve': {
      event.toolUse.input = response.args;
      const tool = event.selectedTool ?? event.tool;
      if (tool !== undefined) event.selectedTool = onceTool(tool, response.execution, executions);
      return;
    }
    case 'reject':
      event.cancel = response.message;
      return;
    case 'answer':
      event.selectedTool = answerTool(event.toolUse.name, response.answer);
      return;
  }
}

/** The tool, run at most once per key: a retried or redelivered call gets the first run's result. */
function onceTool(tool: Tool, key: ExecutionKey, executions: ExecutionLog): Tool {
  return {
    name: tool.name,
    description: tool.description,
    toolSpec: tool.toolSpec,
    stream(context: ToolContext): ToolStreamGenerator {
      return resultStream(async () => {
        const text = await onceUnlessRefused(
          executions,
          key,
          async () => {
            const stream = tool.stream(context);
            let step = await stream.next();
            while (step.done !== true) step = await stream.next();
            return JSON.stringify(step.value.toJSON());
          },
          // Refused at run time (§19): the model reads why, as a failed call's result.
          (words) =>
            JSON.stringify({
              toolResult: { toolUseId: context.toolUse.toolUseId, status: 'error', content: [{ text: words }] },
            }),
        );
        return ToolResultBlock.fromJSON(JSON.parse(text));
      });
    },
  };
}

/** A tool with no side effects whose result is the person's answer. */
function answerTool(name: string, answer: string): Tool {
  return {
    name,
    description: `The person's answer to ${name}`,
    toolSpec: { name, description: `The person's answer to ${name}` },
    stream(context: ToolContext): ToolStreamGenerator {
      return resultStream(async () =>
        ToolResultBlock.fromJSON({
          toolResult: { toolUseId: context.toolUse.toolUseId, status: 'success', content: [{ text: answer }] },
        }),
      );
    },
  };
}

/** A tool's stream of no progress events, only its result. */
// biome-ignore lint/correctness/useYield: the SDK reads a tool's result as its stream's return value
async function* resultStream(result: () => Promise<ToolResultBlock>): ToolStreamGenerator {
  return await result();
}

/** A Strands message as a Converse message: the same blocks, reasoning as Converse's `reasoningContent`. */
export function toConverse(message: MessageData): ConverseMessage {
  const content = message.content.map((block): Block => {
    if ('reasoning' in block) {
      const { text, signature, redactedContent } = block.reasoning as {
        text?: string;
        signature?: string;
        redactedContent?: unknown;
      };
      return text === undefined && signature === undefined
        ? { reasoningContent: { redactedContent } }
        : {
            reasoningContent: {
              reasoningText: { text: text ?? '', ...(signature === undefined ? {} : { signature }) },
            },
          };
    }
    return block as Block;
  });
  return { role: message.role, content };
}

/** A Converse message as Strands' message data; a tool result Handback wrote (no `status`) gets one. */
export function toStrands(message: ConverseMessage): MessageData {
  return { role: message.role, content: message.content.map((block) => toStrandsBlock(block) as ContentBlockData) };
}

function toStrandsBlock(block: Block): Block {
  const reasoning = block.reasoningContent as
    | { reasoningText?: { text: string; signature?: string }; redactedContent?: unknown }
    | undefined;
  if (reasoning !== undefined) {
    return reasoning.reasoningText === undefined
      ? { reasoning: { redactedContent: reasoning.redactedContent } }
      : { reasoning: { ...reasoning.reasoningText } };
  }
  const result = block.toolResult as { status?: string } | undefined;
  if (result !== undefined && result.status === undefined) {
    const text = resultText(block);
    const failed = isRejectionText(text) || text.startsWith(NOT_DISPATCHED);
    return { toolResult: { ...result, status: failed ? 'error' : 'success' } };
  }
  return block;
}

export * from './every-adapter.ts';
export type { AskRule } from './shared.ts';
