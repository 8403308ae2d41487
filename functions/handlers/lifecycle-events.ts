import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { createLifecycleEmitter, putEventsEntries } from '../events/emitter.ts';
import { requireEnv } from './config.ts';
import { config, loadAnswerLinks, logger, metrics, tracer } from './runtime.ts';
import { createLifecycleStreamHandler } from './stream.ts';

/**
 * The Lambda entry point of lifecycle events: the table's stream in, the bus (`EVENT_BUS_NAME`) out. The answer links
 * of `Pause Created` and `Pause Reminder` point at `INBOX_URL`.
 */
const eventBusName = requireEnv(process.env, 'EVENT_BUS_NAME');
const eventBridge = tracer.captureAWSv3Client(new EventBridgeClient({}));
const links = await loadAnswerLinks();

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
    ...(config.inboxUrl === undefined ? {} : { inboxUrl: config.inboxUrl }),
  }),
  logger,
  metrics,
});
