import {
  BeforeToolCallEvent,
  type JSONValue,
  type LocalAgent,
  type Plugin,
  type Tool,
  type ToolContext,
  ToolResultBlock,
  type ToolStreamGenerator,
} from '@strands-agents/sdk';
import type { AskInput } from '../checkpoints/checkpoint-store.ts';
import { BadRequestError } from '../errors.ts';
import { type AskRule, type ExecutionKey, type ExecutionLog, onceUnlessRefused } from './shared.ts';
import { type ApprovalResponse, approvalResponse } from './strands-responses.ts';

/** `handback/strands`'s plugin, `approvalHook`: interrupts the listed tools' calls, then applies their decisions. */

/** The name of every interrupt the hook raises; the SDK keys it by the call (`hook:beforeToolCall:<id>:<name>`). */
export const INTERRUPT_NAME = 'handback';

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

/** The agent's approvalHook; refused when it has none, since only the hook can apply the decisions. */
export function hookOf(agent: LocalAgent): ApprovalHook {
  const hook = hooks.get(agent);
  if (hook === undefined) {
    throw new BadRequestError(
      'The agent has no approvalHook among its plugins: create it with `plugins: [approvalHook({ tools })]`.',
    );
  }
  return hook;
}

/** Has the agent's hook run the calls it is resumed approving through `executions` (the resuming adapter's log). */
export function runApprovedWith(agent: LocalAgent, executions: ExecutionLog): void {
  resumingWith.set(agent, executions);
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
