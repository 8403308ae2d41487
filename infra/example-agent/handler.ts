/**
 * The example agent of the reference workflow (`infra/approval-workflow.ts`), small on purpose: replace the fake
 * model turn with your own agent and keep the two shapes.
 *
 * - `{runId, tenant?, continuation?}`: one agent turn. Without a continuation the "model" asks a person to approve a
 *   refund, and the turn pauses: `{status: 'paused', pause}`. With one, the turn goes on from the rebuilt messages.
 * - `{action: 'pause', runId, tenant, pause, expiresInSeconds, taskToken}`: records the pause with the task token of
 *   the waiting step; Handback's resume completes that token with the continuation pointer.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PauseCreated, PauseInput } from '../../functions/checkpoints/checkpoint-store.ts';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';

const tableName = process.env.TABLE_NAME;
if (!tableName) throw new Error('Environment variable TABLE_NAME is not set: set it in the function configuration.');
const store = createDynamoDBCheckpointStore({
  client: DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } }),
  tableName,
});

/** What the waiting step hands back: the hand-off pointer (messages only when they fit in 256 KB). */
interface ContinuationPointer {
  runId: string;
  interruptId: string;
  continuationId: string;
  format: string;
  messages?: unknown[];
  messagesOmitted?: boolean;
}

/** The pause body the agent asks the workflow to record. */
type PauseRequest = Omit<PauseInput, 'tenant' | 'runId' | 'taskToken' | 'expiresInSeconds'>;

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
  runId: string;
  tenant: string;
  pause: PauseRequest;
  expiresInSeconds: number;
  taskToken: string;
}

/** What a turn returns to the workflow. */
export type TurnResult =
  | { runId: string; tenant: string; status: 'paused'; pause: PauseRequest }
  | { runId: string; tenant: string; status: 'done'; continuationId: string; messageCount: number };

/** The Lambda entry point. */
export async function handler(event: TurnEvent | PauseEvent): Promise<TurnResult | PauseCreated> {
  if (event.action === 'pause') {
    const { runId, tenant, pause, expiresInSeconds, taskToken } = event;
    return store.pause({ ...pause, runId, tenant, expiresInSeconds, taskToken });
  }
  const tenant = event.tenant ?? 'default';
  if (!event.continuation) {
    // The fake model turn: a tool call only a person may answer.
    return {
      runId: event.runId,
      tenant,
      status: 'paused',
      pause: {
        format: 'openai-chat',
        toolCallId: 'call_approve_1',
        prompt: 'Approve a refund of 20 EUR for order 1234?',
        answerSchema: { type: 'boolean' },
        messages: [
          { role: 'user', content: 'Please refund order 1234.' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_approve_1',
                type: 'function',
                function: { name: 'approve_refund', arguments: '{"order":"1234","amount":20}' },
              },
            ],
          },
        ],
      },
    };
  }
  // Messages too large for the task output are read from the store.
  const messages =
    event.continuation.messages ??
    (await store.getContinuation({ tenant, runId: event.runId, continuationId: event.continuation.continuationId }))
      .messages;
  return {
    runId: event.runId,
    tenant,
    status: 'done',
    continuationId: event.continuation.continuationId,
    messageCount: messages.length,
  };
}
