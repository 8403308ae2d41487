import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { escalationsOf } from '../checkpoints/escalation.ts';
import { createLifecycleEmitter } from '../events/emitter.ts';
import { createEventBridgeSink } from '../events/eventbridge-sink.ts';
import * as S from '../settings.ts';
import { tracesOf } from '../traces/traces.ts';
import { loadAnswerLinks } from './answer-links.ts';
import { otlpEndpointOf, requiredSetting, settingOf } from './config.ts';
import { logger, metrics } from './observability.ts';
import { createLifecycleStreamHandler } from './stream.ts';
import { traceAwsClient } from './tracing.ts';

/**
 * The Lambda entry point of lifecycle events: the table's stream in, the bus (`EVENT_BUS_NAME`) out, through the same
 * emitter the local service uses. The answer links of `Pause Created` and `Pause Reminder` point at `HANDBACK_INBOX_URL`. It
 * reads stream images, never the table, so it wires no store and no hand-off: only the EventBridge client and the
 * link key (read on first use).
 */
const eventBusName = requiredSetting(S.eventBusName);
const inboxUrl = settingOf(S.inboxUrl);
const eventBridge = traceAwsClient(new EventBridgeClient({}));
const links = loadAnswerLinks(settingOf(S.linkSecretArn));
const traces = tracesOf(otlpEndpointOf(), { log: logger, escalationsOf });

export const handler = createLifecycleStreamHandler({
  emitter: createLifecycleEmitter({
    sinks: [createEventBridgeSink(eventBridge, eventBusName)],
    log: logger,
    ...(links === undefined ? {} : { links }),
    ...(inboxUrl === undefined ? {} : { inboxUrl }),
  }),
  logger,
  metrics,
  ...(traces === undefined ? {} : { traces }),
});
