import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { createLifecycleEmitter, putEventsEntries } from '../events/emitter.ts';
import { loadAnswerLinks } from './answer-links.ts';
import { optionalEnv, requireEnv } from './config.ts';
import { logger, metrics, tracer } from './observability.ts';
import { createLifecycleStreamHandler } from './stream.ts';

/**
 * The Lambda entry point of lifecycle events: the table's stream in, the bus (`EVENT_BUS_NAME`) out. The answer links
 * of `Pause Created` and `Pause Reminder` point at `INBOX_URL`. It reads stream images, never the table, so it wires
 * no store and no hand-off: only the EventBridge client and the link key.
 */
const eventBusName = requireEnv(process.env, 'EVENT_BUS_NAME');
const inboxUrl = optionalEnv(process.env, 'INBOX_URL');
const eventBridge = tracer.captureAWSv3Client(new EventBridgeClient({}));
const links = await loadAnswerLinks(optionalEnv(process.env, 'LINK_SECRET_ARN'));

export const handler = createLifecycleStreamHandler({
  emitter: createLifecycleEmitter({
    sinks: [
      {
        async deliver(events) {
          const output = await eventBridge.send(
            new PutEventsCommand({ Entries: putEventsEntries(events, eventBusName) }),
          );
          if ((output.FailedEntryCount ?? 0) > 0) {
            const failed = output.Entries?.find((entry) => entry.ErrorCode !== undefined);
            throw new Error(`PutEvents refused ${output.FailedEntryCount} entries: ${failed?.ErrorCode ?? 'unknown'}`);
          }
        },
      },
    ],
    log: logger,
    ...(links === undefined ? {} : { links }),
    ...(inboxUrl === undefined ? {} : { inboxUrl }),
  }),
  logger,
  metrics,
});
