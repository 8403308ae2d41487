import { createDynamoDBDeliveryLog, type DeliveryLog } from '../channels/delivery-log.ts';
import { CheckpointService } from '../checkpoints/checkpoint-service.ts';
import { DynamoDBPersistence } from '../checkpoints/dynamodb/dynamodb-persistence.ts';
import { deploymentDirectory } from '../directory/deployment.ts';
import type { Directory } from '../directory/port.ts';
import type { UseCaseDeps } from '../resume/resume.ts';
import * as S from '../settings.ts';
import { requiredSetting, settingOf } from './config.ts';
import { tracedDocumentClient } from './document-client.ts';
import { logger, metrics } from './observability.ts';
import { tracedTranscriptObjects } from './transcript-bucket.ts';

/**
 * The Lambda wiring of the channels' delivery functions (§14), evaluated once per container at cold start: the table
 * (`TABLE_NAME`), read through the use cases (each delivery renders the pause as the store has it now) and written
 * only by the delivery log. A delivery reads pauses and never decides or closes one, so its store runs no checks and
 * its hand-off refuses: the bundle holds no hand-off client (the functions that decide are the API's and Slack's
 * interactions', wired by `runtime-base.ts`).
 */

export { logger, metrics };

const tableName = requiredSetting(S.tableName);

const dynamodb = tracedDocumentClient(settingOf(S.dynamodbEndpoint));
const objects = tracedTranscriptObjects(settingOf(S.transcriptBucket) as string, settingOf(S.s3Endpoint));

/**
 * The directory of persons (§20), as the functions that decide read it (`runtime-base.ts`): with SCIM the table-kept
 * one, else the bundled file. A delivery tells a delegate as it tells their delegator, and mails a level's groups at
 * their members' directory emails (§21); read only, never cached past a request.
 */
const { directory } = deploymentDirectory(dynamodb, tableName, {
  scim: settingOf(S.scimSecretArn) !== undefined,
  file: settingOf(S.directory),
});

/** What a channel delivery runs on: the read-only use cases, the delivery log, the inbox page's URL, the directory. */
export function channelDeps(): { useCases: UseCaseDeps; log: DeliveryLog; directory?: Directory } {
  const inboxUrl = settingOf(S.inboxUrl);
  return {
    ...(directory === undefined ? {} : { directory }),
    useCases: {
      store: new CheckpointService({
        persistence: new DynamoDBPersistence({ client: dynamodb, tableName, objects }),
        checks: {},
      }),
      handoff: {
        async deliver() {
          throw new Error('A channel delivery reads pauses; it never closes one, so it has nothing to hand off.');
        },
      },
      logger,
      metrics,
      ...(inboxUrl === undefined ? {} : { inboxUrl }),
      ...(directory === undefined ? {} : { people: { directory } }),
    },
    log: createDynamoDBDeliveryLog({ client: dynamodb, tableName }),
  };
}
