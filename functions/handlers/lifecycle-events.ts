import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { escalationsOf } from '../checkpoints/escalation.ts';
import type { RecordKey } from '../checkpoints/record.ts';
import { createLifecycleEmitter } from '../events/emitter.ts';
import { createEventBridgeSink } from '../events/eventbridge-sink.ts';
import { answerLinksOnFirstUse } from '../links/links.ts';
import { once } from '../once.ts';
import * as S from '../settings.ts';
import { tracesOf } from '../traces/traces.ts';
import { otlpEndpointOf, requiredSetting, settingOf } from './config.ts';
import { logger, metrics } from './observability.ts';
import { createLifecycleStreamHandler } from './stream.ts';
import { traceAwsClient } from './tracing.ts';
import { tracedTranscriptObjects } from './transcript-bucket.ts';

/**
 * The Lambda entry point of lifecycle events: the table's stream in, the bus (`EVENT_BUS_NAME`) out, through the same
 * emitter the local service uses. The answer links of `Pause Created` and `Pause Reminder` point at `HANDBACK_INBOX_URL`. It
 * reads stream images to make events, never the table, so it wires no hand-off: only the EventBridge client, the
 * answer links' modules and key on first use, and the transcript bucket, whose objects it deletes as TTL removes their
 * pause items (`@aws-sdk/client-s3` loaded on the first such removal). It also moves
 * closed transcripts of 8 KB or more from the table (`TABLE_NAME`) to the bucket (§23), its store and document client
 * loaded with the first.
 */
const eventBusName = requiredSetting(S.eventBusName);
const inboxUrl = settingOf(S.inboxUrl);
const eventBridge = traceAwsClient(new EventBridgeClient({}));
// Signing links (jose) and reading their key (the Secrets Manager client) load with the first event that carries a
// link (`Pause Created`, `Pause Reminder`), not at init (§23): the other events never need them.
const linkSecretArn = settingOf(S.linkSecretArn);
const links =
  linkSecretArn === undefined
    ? undefined
    : answerLinksOnFirstUse(async () => (await import('./answer-links.ts')).answerLinksOn(linkSecretArn));
const traces = tracesOf(otlpEndpointOf(), { log: logger, escalationsOf });
const objects = tracedTranscriptObjects(settingOf(S.transcriptBucket) as string, settingOf(S.s3Endpoint));
// Closed transcripts move to the bucket (§23) through the table's own store, loaded with the first one to move.
const tableName = settingOf(S.tableName) as string;
const archiver = once(async () =>
  (await import('./transcript-archive.ts')).transcriptArchive(tableName, settingOf(S.dynamodbEndpoint), objects),
);

export const handler = createLifecycleStreamHandler({
  emitter: createLifecycleEmitter({
    sinks: [createEventBridgeSink(eventBridge, eventBusName)],
    log: logger,
    ...(links === undefined ? {} : { links }),
    ...(inboxUrl === undefined ? {} : { inboxUrl }),
  }),
  objects,
  archive: async (key: RecordKey) => (await archiver())(key),
  logger,
  metrics,
  ...(traces === undefined ? {} : { traces }),
});
