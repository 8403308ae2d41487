import {
  type Agent,
  type AgentResult,
  type Interrupt,
  InterruptResponseContent,
  type JSONValue,
  type LocalAgent,
  type MessageData,
  SNAPSHOT_SCHEMA_VERSION,
  type ToolResultBlockData,
} from '@strands-agents/sdk';
import type { AskInput } from '../checkpoints/checkpoint-store.ts';
import type { ClientContinuation, ClientPauseCreated, ClientPauseInput } from '../client/types.ts';
import { BadRequestError } from '../errors.ts';
import { NOT_DISPATCHED } from '../rehydrate/texts.ts';
import {
  type ContinueInput,
  continuationOf,
  type ExecutionLog,
  executionLogOf,
  type HandbackOption,
  operationsOf,
} from './shared.ts';
import { type ApprovalHook, hookOf, INTERRUPT_NAME, runApprovedWith } from './strands-hook.ts';
import { type Block, type ConverseMessage, toConverse, toStrands, toStrandsBlock } from './strands-messages.ts';
import { type ApprovalResponse, responseFor } from './strands-responses.ts';

/**
 * `handback/strands` (§15): a Strands agent (`@strands-agents/sdk`) pauses through its own interrupts, raised by the
 * tool-call hook the entry offers (`approvalHook`, `strands-hook.ts`: a plugin whose `BeforeToolCallEvent` callback
 * interrupts for the tools it lists). The agent's stop on those interrupts becomes one Handback pause of the paused
 * round, in format `bedrock-converse` (Strands' own message shape, `strands-messages.ts`); the continuation that closes
 * it becomes the agent invoked again with the interrupt responses (`strands-responses.ts`), which the same hook turns
 * into the SDK's own outcomes:
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

/** Where the pause keeps which interrupt asks about which call (in `metadata`). */
const METADATA_KEY = 'handback/strands';

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
      runApprovedWith(agent, executions);
      const result = await agent.invoke(
        responses.map(({ interruptId, response }) => new InterruptResponseContent({ interruptId, response })),
      );
      return { continuation, responses, result };
    },
  };
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

export * from './every-adapter.ts';
export type { AskRule } from './shared.ts';
export {
  type ApprovalHook,
  type ApprovalHookOptions,
  approvalHook,
  INTERRUPT_NAME,
  type StrandsAskRule,
} from './strands-hook.ts';
export { toConverse, toStrands } from './strands-messages.ts';
export type { ApprovalResponse } from './strands-responses.ts';
