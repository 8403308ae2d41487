/**
 * The example agent of the reference workflow (`infra/approval-workflow.ts`), small on purpose: replace the fake
 * model and the fake tools with your own and keep the two shapes.
 *
 * - `{runId, tenant?, continuation?}`: one agent turn. Without a continuation the "model" makes one round of three
 *   calls — `ask_human` (a question only a person can answer) and two calls with side effects, `refund_order` and
 *   `send_email`, that may run only once a person approves them — and the turn pauses with one ask per call:
 *   `{status: 'paused', pause}`. With one (the hand-off pointer the workflow's waiting step received, or the
 *   cancelled pointer it recorded from a cancel), the agent runs the calls people approved, with the arguments they
 *   may have edited (`dispatch`), appends their results with the library's `appendResults`, and goes on to the
 *   model's next turn.
 * - `{action: 'pause', pause, expiresInSeconds, taskToken}`: records the pause (the one its turn returned) with the
 *   task token of the waiting step; Handback completes that token when the pause closes.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoDBCheckpointStore, S3TranscriptObjects } from '../../functions/dynamodb.ts';
import { requiredSetting, retentionSecondsOf, settingOf } from '../../functions/handlers/config.ts';
import {
  appendResults,
  type DispatchCall,
  type FormatName,
  LIMITS,
  type Outcome,
  type PauseClosed,
  type PauseCreated,
  type PauseInput,
  type ToolResult,
} from '../../functions/index.ts';
import { tableName as TABLE_NAME, transcriptBucket as TRANSCRIPT_BUCKET } from '../../functions/settings.ts';

const tableName = requiredSetting(TABLE_NAME);
// How long a pause and its audit trail are kept after it expires: the stack's handback:retentionDays.
const retentionSeconds = retentionSecondsOf();
const store = createDynamoDBCheckpointStore({
  client: DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } }),
  tableName,
  // Transcripts over 64 KB go to the stack's bucket, its SDK loaded only when one does.
  objects: new S3TranscriptObjects({ bucket: settingOf(TRANSCRIPT_BUCKET) as string }),
  ...(retentionSeconds === undefined ? {} : { retentionSeconds }),
});

/** What the waiting step hands back: the hand-off pointer (messages only when the whole is under 256 KB). */
export interface ContinuationPointer {
  runId: string;
  interruptId: string;
  continuationId: string;
  format: FormatName;
  /** How the pause closed: people decided every ask, or it expired and Handback rejected what was left. */
  outcome: Outcome;
  /** The calls people approved (with their edited arguments), in call order: the agent runs these. */
  dispatch: DispatchCall[];
  messages?: unknown[];
}

/** The pause of the fake model's first turn: a pause input without whose run it is, the token and the expiry. */
export type PauseRequest = Omit<PauseInput, 'tenant' | 'runId' | 'taskToken' | 'expiresInSeconds'>;

/** The pause the agent asks the workflow to record: its run's and tenant's, without the token and the expiry. */
export type RunPause = Omit<PauseInput, 'taskToken' | 'expiresInSeconds'>;

/** One agent turn. */
export interface TurnEvent {
  action?: undefined;
  runId: string;
  tenant?: string;
  continuation?: ContinuationPointer;
}

/** The waiting step's request to record the pause with its task token. */
export interface PauseEvent {
  action: 'pause';
  pause: RunPause;
  expiresInSeconds: number;
  taskToken: string;
}

/** What a turn returns to the workflow. */
export type TurnResult =
  | { runId: string; tenant: string; status: 'paused'; pause: RunPause }
  | {
      runId: string;
      tenant: string;
      status: 'done';
      outcome: Outcome;
      continuationId: string;
      /** The approved calls the agent ran, with their results, in call order. */
      ran: ToolResult[];
      messageCount: number;
      reply: string;
    };

/** The Lambda entry point. */
export async function handler(event: TurnEvent | PauseEvent): Promise<TurnResult | PauseCreated | PauseClosed> {
  if (event.action === 'pause') {
    const { pause, expiresInSeconds, taskToken } = event;
    return store.pause({ ...pause, expiresInSeconds, taskToken });
  }
  const tenant = event.tenant ?? LIMITS.defaultTenant;
  const pointer = event.continuation;
  if (!pointer) {
    return { runId: event.runId, tenant, status: 'paused', pause: { ...firstTurn(), runId: event.runId, tenant } };
  }

  // Messages too large for the task output are read from the store.
  const messages =
    pointer.messages ??
    (await store.getContinuation({ tenant, runId: event.runId, continuationId: pointer.continuationId })).messages;
  const results = await Promise.all(pointer.dispatch.map(runTool));
  const transcript = appendResults(pointer.format, messages, results);
  const reply = nextTurn(pointer.outcome, pointer.dispatch);
  return {
    runId: event.runId,
    tenant,
    status: 'done',
    outcome: pointer.outcome,
    continuationId: pointer.continuationId,
    ran: results,
    messageCount: [...transcript, { role: 'assistant', content: reply }].length,
    reply,
  };
}

/** The fake model's first turn: a question for a person and two calls a person must approve, in one round. */
export function firstTurn(): PauseRequest {
  const refund = { order: '1234', amount: 20, currency: 'EUR' };
  const email = {
    to: 'customer@example.com',
    subject: 'Your refund for order 1234',
    body: 'We have refunded 20 EUR for order 1234.',
  };
  return {
    format: 'openai-chat',
    messages: [
      { role: 'user', content: 'Order 1234 arrived broken. Please refund it and tell the customer by email.' },
      {
        role: 'assistant',
        content: 'I will refund order 1234 and email the customer, once approved.',
        tool_calls: [
          call('call_ask_1', 'ask_human', { question: 'What reason should the email give for the refund?' }),
          call('call_refund_1', 'refund_order', refund),
          call('call_email_1', 'send_email', email),
        ],
      },
    ],
    asks: [
      {
        toolCallId: 'call_ask_1',
        kind: 'answer',
        prompt: 'What reason should the email give for the refund?',
        answerSchema: { type: 'string', minLength: 1, maxLength: 500 },
      },
      {
        toolCallId: 'call_refund_1',
        kind: 'approval',
        prompt: 'Refund 20 EUR for order 1234?',
        argsSchema: {
          type: 'object',
          required: ['order', 'amount', 'currency'],
          properties: {
            order: { type: 'string' },
            amount: { type: 'number', exclusiveMinimum: 0, maximum: 20 },
            currency: { enum: ['EUR'] },
          },
          additionalProperties: false,
        },
      },
      {
        toolCallId: 'call_email_1',
        kind: 'approval',
        prompt: 'Send this email to the customer?',
        argsSchema: {
          type: 'object',
          required: ['to', 'subject', 'body'],
          properties: { to: { type: 'string' }, subject: { type: 'string' }, body: { type: 'string' } },
          additionalProperties: false,
        },
      },
    ],
    // Past its expiry Handback rejects whatever is undecided and the workflow goes on: the agent says so.
    onExpiry: 'reject',
  };
}

/** An openai-chat tool call. */
function call(id: string, name: string, args: Record<string, unknown>) {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

/** The fake tools: what a real agent would call its own services for, with the arguments people approved. */
export async function runTool(approved: DispatchCall): Promise<ToolResult> {
  const { toolCallId, name } = approved;
  const args = (approved.args ?? {}) as Record<string, unknown>;
  switch (name) {
    case 'refund_order':
      return { toolCallId, output: { refunded: true, order: args.order, amount: args.amount } };
    case 'send_email':
      return { toolCallId, output: { sent: true, to: args.to } };
    default:
      return { toolCallId, output: `No tool named ${name}.`, isError: true };
  }
}

/** The fake model's next turn, from what happened to its calls. */
export function nextTurn(outcome: Outcome, ran: readonly DispatchCall[]): string {
  if (ran.length === 0) {
    if (outcome === 'cancelled') return 'The request was cancelled, so I did not refund the order or send the email.';
    return outcome === 'expired'
      ? 'No one decided in time, so I did not refund the order or send the email.'
      : 'Nothing was approved, so I did not refund the order or send the email.';
  }
  return `Done: ${ran.map((approved) => approved.name).join(' and ')}.`;
}
