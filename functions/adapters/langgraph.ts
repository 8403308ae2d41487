import { AIMessage, type BaseMessage, mapChatMessagesToStoredMessages } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { Command, type StateSnapshot } from '@langchain/langgraph';
import type { AskInput } from '../checkpoints/checkpoint-store.ts';
import type { ClientContinuation, ClientPauseCreated, ClientPauseInput } from '../client/types.ts';
import { AlreadyClaimedError, BadRequestError, GraphCheckpointNotFoundError } from '../errors.ts';
import type { JsonSchema } from '../wire.ts';
import {
  type AskRule,
  type ContinueInput,
  continuationOf,
  type ExecutionLog,
  executionLogOf,
  type HandbackOption,
  operationsOf,
  runTimeRefusalText,
  sameJson,
} from './shared.ts';

/**
 * `handback/langgraph` (§15): a LangGraph graph stopped by `langchain`'s human-in-the-loop middleware (an `interrupt`
 * whose value is an `HITLRequest`) becomes a Handback pause, one ask per action request, in format `langchain`; the
 * continuation that closes it becomes `Command({ resume: { [interruptId]: { decisions } } })` in the middleware's own
 * terms (approve, edit with `editedAction`, reject with `message`), sent to the same thread of the graph's own
 * checkpointer. The graph's checkpointer keeps the run; Handback keeps the transcript people decide on, the
 * decisions, and who made them.
 */

/** One action the middleware asks a person about (`ActionRequest` of `langchain`). */
interface ActionRequest {
  name: string;
  args: Record<string, unknown>;
  description?: string;
}

/** What the middleware allows for one action (`ReviewConfig` of `langchain`). */
interface ReviewConfig {
  actionName: string;
  allowedDecisions: Array<'approve' | 'edit' | 'reject'>;
  argsSchema?: Record<string, unknown>;
}

/** The middleware's interrupt value (`HITLRequest` of `langchain`). */
interface HITLRequest {
  actionRequests: ActionRequest[];
  reviewConfigs: ReviewConfig[];
}

/** One decision of the middleware's resume value (`Decision` of `langchain`). */
export type HITLDecision =
  | { type: 'approve' }
  | { type: 'edit'; editedAction: { name: string; args: Record<string, unknown> } }
  | { type: 'reject'; message?: string };

/** The graph as the adapter uses it: a compiled graph (or `createAgent`'s agent) with a checkpointer; `State` its values. */
export interface InterruptibleGraph<State = unknown> {
  getState(config: RunnableConfig): Promise<StateSnapshot>;
  // biome-ignore lint/suspicious/noExplicitAny: the graph's own input type, whatever it is (a Command is sent)
  invoke(input: any, config?: any): Promise<State>;
}

/** What `pause` takes beside the thread: the run's name and any of the pause body's own fields. */
export type LangGraphPauseOptions = Omit<
  ClientPauseInput,
  'format' | 'messages' | 'toolCallId' | 'prompt' | 'answerSchema' | 'asks'
>;

/** The adapter's settings. */
export interface LangGraphHandbackOptions<State = unknown> {
  /** The HTTP client (`createHandbackClient`), or a store with its tenant: `{ store, tenant, by? }`. */
  handback: HandbackOption;
  /** The graph, compiled with a durable checkpointer (any LangGraph one: Postgres, SQLite, Redis, …). */
  graph: InterruptibleGraph<State>;
  /**
   * Per tool name: asks of kind `answer` (the person's answer reaches the model as the middleware's reject `message`,
   * the one decision that writes a tool result without running the tool), or approval settings. Default: an approval.
   */
  asks?: Record<string, AskRule>;
  /** Where each continuation's resume is recorded, so it is sent to the graph at most once. @default in memory (a warning in production) */
  executions?: ExecutionLog;
}

/**
 * What `resume` did: the continuation, the middleware's decisions per interrupt id, and the graph's state after it.
 * `status` says whether this delivery sent the decisions (`resumed`) or found the thread already past them
 * (`already-resumed`: an earlier delivery sent them; nothing was sent, and `values` are the thread's current ones).
 */
export type LangGraphResumed<State = unknown> = {
  continuation: ClientContinuation;
  values: State;
} & (
  | { status: 'resumed'; resume: Record<string, { decisions: HITLDecision[] }> }
  | { status: 'already-resumed'; resume: Record<string, never> }
);

/** A graph's interrupted thread paused by Handback, and resumed from its continuation. */
export interface LangGraphHandback<State = unknown> {
  /** Pauses the thread's human-in-the-loop interrupts: one ask per action request, with the action's args. */
  pause(config: RunnableConfig, options: LangGraphPauseOptions): Promise<ClientPauseCreated>;
  /**
   * Resumes the thread with the continuation's decisions in the middleware's terms, at most once; throws
   * `GraphCheckpointNotFoundError` when the graph's checkpointer has no checkpoint for the thread.
   */
  resume(options: ContinueInput & { config?: RunnableConfig }): Promise<LangGraphResumed<State>>;
}

/** What the pause keeps beside the transcript (in `metadata`): the thread, and which calls each interrupt asks about. */
interface Recorded {
  threadId?: string;
  interrupts: Array<{ id: string; toolCallIds: string[] }>;
}

const METADATA_KEY = 'handback/langgraph';

/** Handback for one LangGraph graph. */
export function langgraphHandback<State = unknown>(options: LangGraphHandbackOptions<State>): LangGraphHandback<State> {
  const { graph } = options;
  const handback = operationsOf(options.handback);
  const executions = executionLogOf(options.executions, 'handback/langgraph');
  return {
    async pause(config, pauseOptions) {
      const snapshot = await graph.getState(config);
      const messages = (snapshot.values as { messages?: BaseMessage[] }).messages ?? [];
      const round = messages.findLast((message) => AIMessage.isInstance(message));
      const calls = (round as AIMessage | undefined)?.tool_calls ?? [];
      const interrupts = pendingRequests(snapshot);
      if (interrupts.length === 0) {
        throw new BadRequestError('The thread has no human-in-the-loop interrupt to pause.');
      }
      const taken = new Set<string>();
      const asks: AskInput[] = [];
      const recorded: Recorded = { interrupts: [] };
      const threadId = config.configurable?.thread_id;
      if (typeof threadId === 'string') recorded.threadId = threadId;
      for (const { id, request } of interrupts) {
        const toolCallIds = request.actionRequests.map((action, index) => {
          // The middleware asks about the round's calls in call order, each as its name and args.
          const call = calls.find(
            (c) => c.id !== undefined && !taken.has(c.id) && c.name === action.name && sameJson(c.args, action.args),
          );
          if (call?.id === undefined) {
            throw new BadRequestError(`No tool call of the paused round matches action ${index} (${action.name}).`);
          }
          taken.add(call.id);
          asks.push(askOf(call.id, action, request.reviewConfigs[index], options.asks));
          return call.id;
        });
        recorded.interrupts.push({ id, toolCallIds });
      }
      return handback.pause({
        ...pauseOptions,
        metadata: { ...pauseOptions.metadata, [METADATA_KEY]: recorded },
        format: 'langchain',
        messages: mapChatMessagesToStoredMessages(messages),
        asks,
      });
    },

    async resume(input) {
      const { config } = input;
      const continuation = await continuationOf(handback, input);
      const { runId, continuationId } = continuation;
      const pause = await handback.getPause({ runId, interruptId: continuation.interruptId });
      const recorded = pause.metadata?.[METADATA_KEY] as Recorded | undefined;
      if (recorded === undefined) {
        throw new BadRequestError(`Pause ${continuation.interruptId} was not made by handback/langgraph.`);
      }
      const thread = config ?? { configurable: { thread_id: recorded.threadId } };
      const snapshot = await graph.getState(thread);
      if (snapshot.createdAt === undefined && snapshot.config.configurable?.checkpoint_id === undefined) {
        // No checkpoint at all: resuming would run the graph from nothing, and the approved calls would never run.
        const threadId = String(thread.configurable?.thread_id ?? recorded.threadId);
        throw new GraphCheckpointNotFoundError(threadId, continuation.interruptId);
      }
      const pending = new Map(pendingRequests(snapshot).map((entry) => [entry.id, entry.request]));
      const resume: Record<string, { decisions: HITLDecision[] }> = {};
      for (const { id, toolCallIds } of recorded.interrupts) {
        const request = pending.get(id);
        // Gone from the thread: an earlier delivery of this continuation resumed it already.
        if (request === undefined) continue;
        resume[id] = {
          decisions: toolCallIds.map((toolCallId, index) =>
            decisionFor(continuation, toolCallId, request.actionRequests[index] as ActionRequest),
          ),
        };
      }
      const current = async () => (await graph.getState(thread)).values as State;
      if (Object.keys(resume).length === 0) {
        return { continuation, status: 'already-resumed', resume: {}, values: await current() };
      }
      let values: State | undefined;
      let sent = false;
      const invoke = async () => {
        values = await graph.invoke(new Command({ resume }), thread);
        sent = true;
        return 'resumed';
      };
      if (executions.claimsCalls === true)
        await claimEach(executions, continuation, resume, recorded.interrupts, invoke);
      else await executions.once({ runId, continuationId, toolCallId: continuation.interruptId }, invoke);
      if (!sent) return { continuation, status: 'already-resumed', resume: {}, values: await current() };
      return { continuation, status: 'resumed', resume, values: values as State };
    },
  };
}

/**
 * §19: each approved or edited call of `resume` claimed through Handback before the graph runs them all (`invoke`,
 * within every claim, so each claim's end is the graph's); a call refused at run time becomes the middleware's
 * reject with the words the model is told. A first claim already taken means another delivery resumed the thread:
 * nothing is sent.
 */
async function claimEach(
  executions: ExecutionLog,
  continuation: ClientContinuation,
  resume: Record<string, { decisions: HITLDecision[] }>,
  interrupts: Recorded['interrupts'],
  invoke: () => Promise<string>,
): Promise<void> {
  const { runId, continuationId } = continuation;
  const calls = interrupts.flatMap(({ id, toolCallIds }) =>
    (resume[id]?.decisions ?? []).flatMap((decision, at) =>
      decision.type === 'reject' ? [] : [{ id, at, toolCallId: toolCallIds[at] as string }],
    ),
  );
  const claimFrom = async (index: number): Promise<string> => {
    const call = calls[index];
    if (call === undefined) return invoke();
    let claimed = false;
    try {
      return await executions.once({ runId, continuationId, toolCallId: call.toolCallId }, () => {
        claimed = true;
        return claimFrom(index + 1);
      });
    } catch (error) {
      // Only the claim's own refusal: whatever the graph threw has already ended every claim as failed.
      if (claimed) throw error;
      if (error instanceof AlreadyClaimedError && index === 0) return 'already-resumed';
      const words = runTimeRefusalText(error);
      if (words === undefined) throw error;
      (resume[call.id] as { decisions: HITLDecision[] }).decisions[call.at] = { type: 'reject', message: words };
      return claimFrom(index + 1);
    }
  };
  await claimFrom(0);
}

/** The thread's pending interrupts whose value is the middleware's `HITLRequest`. */
function pendingRequests(snapshot: StateSnapshot): Array<{ id: string; request: HITLRequest }> {
  return snapshot.tasks.flatMap((task) =>
    (task.interrupts ?? []).flatMap((pending) => {
      const value = pending.value as Partial<HITLRequest> | undefined;
      return pending.id !== undefined && Array.isArray(value?.actionRequests) && Array.isArray(value?.reviewConfigs)
        ? [{ id: pending.id, request: value as HITLRequest }]
        : [];
    }),
  );
}

/** One action request as an ask: an approval (editable when the middleware allows `edit`), or an answer by the rules. */
function askOf(
  toolCallId: string,
  action: ActionRequest,
  review: ReviewConfig | undefined,
  rules: Record<string, AskRule> | undefined,
): AskInput {
  const rule = Object.hasOwn(rules ?? {}, action.name) ? rules?.[action.name] : undefined;
  const prompt = rule?.prompt ?? action.description ?? `${action.name} ${JSON.stringify(action.args)}`;
  if (rule?.kind === 'answer') {
    return {
      toolCallId,
      kind: 'answer',
      prompt,
      ...(rule.answerSchema === undefined ? {} : { answerSchema: rule.answerSchema }),
    };
  }
  const editable = (review?.allowedDecisions ?? ['edit']).includes('edit') && rule?.editable !== false;
  return {
    toolCallId,
    kind: 'approval',
    prompt,
    editable,
    ...(review?.argsSchema === undefined ? {} : { argsSchema: review.argsSchema as JsonSchema }),
  };
}

/**
 * The middleware's decision for one call, from the continuation: a dispatched call is approved (edited when its
 * args are not the action's); any other call carries its result text in the continuation (an answer, a rejection
 * with its reason, the cancel's or the expiry's), which the middleware's reject writes as the call's tool message.
 */
function decisionFor(continuation: ClientContinuation, toolCallId: string, action: ActionRequest): HITLDecision {
  const dispatched = continuation.dispatch.find((call) => call.toolCallId === toolCallId);
  if (dispatched !== undefined) {
    return sameJson(dispatched.args, action.args)
      ? { type: 'approve' }
      : { type: 'edit', editedAction: { name: action.name, args: dispatched.args as Record<string, unknown> } };
  }
  const result = continuation.messages.find((message) => {
    const stored = message as { type?: string; data?: { tool_call_id?: string } };
    return stored.type === 'tool' && stored.data?.tool_call_id === toolCallId;
  }) as { data: { content: unknown } } | undefined;
  const content = result?.data.content;
  return { type: 'reject', message: typeof content === 'string' ? content : JSON.stringify(content) };
}

export { GraphCheckpointNotFoundError } from '../errors.ts';
export * from './every-adapter.ts';
export type { AskRule } from './shared.ts';
