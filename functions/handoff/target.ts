import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { BundleDefines } from '../settings.ts';
import type { HandoffConfig } from './handoff.ts';

/**
 * The hand-off target's client and what it sends, in a module of their own: the hand-off (`handoff.ts`) only ever
 * imports this module with `import()`, so its caller decides when it is read: the resume functions, the sweep and the
 * API import it statically too (`functions/handlers/runtime.ts`), so its client is made at init; the Slack
 * interactions function does not, so it is a chunk read on the first hand-off. In a bundle built for one target
 * (`HANDBACK_BUNDLED_HANDOFF_TARGET`, see `handoff.ts`), the other targets' branches are dead code and their client
 * packages are left out; the static imports name each client and its one command, so the module holds only those.
 */

/** The EventBridge `source` and `detail-type` of a hand-off event. */
export const HANDOFF_EVENT = { source: 'handback', detailType: 'Turn Resumed' } as const;

/** A target's client: SQS's, EventBridge's or Lambda's. */
export type TargetClient = SQSClient | EventBridgeClient | LambdaClient;

/** The client of `target`, with the SDK's defaults (region, credentials and endpoint from the environment). */
export function targetClient(target: Exclude<HandoffConfig['target'], 'none'>): TargetClient {
  if (
    target === 'sqs' &&
    ((globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET === undefined ||
      (globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET === 'sqs')
  ) {
    return new SQSClient({});
  }
  if (
    target === 'eventbridge' &&
    ((globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET === undefined ||
      (globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET === 'eventbridge')
  ) {
    return new EventBridgeClient({});
  }
  if (
    target === 'lambda' &&
    ((globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET === undefined ||
      (globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET === 'lambda')
  ) {
    return new LambdaClient({});
  }
  throw new Error(`This bundle has no client for the hand-off target ${target}.`);
}

/**
 * Sends a pointer's JSON to the configured target with its client: `SendMessage`, `PutEvents` (whose refusal of the
 * entry, answered with a 200, is thrown) or an asynchronous `Invoke`. The `none` target sends nothing. A pointer's
 * `traceparent` (§21) is in its JSON for every target, and an SQS message attribute of that name too, where a
 * consumer's instrumentation reads it without parsing the body.
 */
export async function sendToTarget(
  config: HandoffConfig,
  client: TargetClient | undefined,
  body: string,
  traceparent?: string,
) {
  if (
    config.target === 'sqs' &&
    ((globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET === undefined ||
      (globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET === 'sqs')
  ) {
    await (client as SQSClient).send(
      new SendMessageCommand({
        QueueUrl: config.queueUrl,
        MessageBody: body,
        ...(traceparent === undefined
          ? {}
          : { MessageAttributes: { traceparent: { DataType: 'String', StringValue: traceparent } } }),
      }),
    );
    return;
  }
  if (
    config.target === 'eventbridge' &&
    ((globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET === undefined ||
      (globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET === 'eventbridge')
  ) {
    const out = await (client as EventBridgeClient).send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: config.eventBusName,
            Source: HANDOFF_EVENT.source,
            DetailType: HANDOFF_EVENT.detailType,
            Detail: body,
          },
        ],
      }),
    );
    // PutEvents answers 200 even when it refused the entry; the refusal is in the entry's result.
    if ((out.FailedEntryCount ?? 0) > 0) {
      const entry = out.Entries?.[0];
      throw new Error(`PutEvents refused the entry: ${entry?.ErrorCode ?? 'unknown'} ${entry?.ErrorMessage ?? ''}`);
    }
    return;
  }
  if (
    config.target === 'lambda' &&
    ((globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET === undefined ||
      (globalThis as BundleDefines).HANDBACK_BUNDLED_HANDOFF_TARGET === 'lambda')
  ) {
    await (client as LambdaClient).send(
      new InvokeCommand({
        FunctionName: config.functionName,
        InvocationType: 'Event',
        Payload: new TextEncoder().encode(body),
      }),
    );
  }
}
