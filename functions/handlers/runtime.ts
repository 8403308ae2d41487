import { CheckpointService } from '../checkpoints/checkpoint-service.ts';
import type { CheckpointChecks } from '../checkpoints/checks.ts';
import { DynamoDBPersistence } from '../checkpoints/dynamodb/dynamodb-persistence.ts';
import { createHandoff, createHandoffClients } from '../handoff/handoff.ts';
import type { UseCaseDeps } from '../resume/resume.ts';
import { loadConfig } from './config.ts';
import { tracedDocumentClient } from './document-client.ts';
import { logger, metrics } from './observability.ts';
import type { EntryTelemetry } from './telemetry.ts';
import { traceAwsClient } from './tracing.ts';

/**
 * The Lambda wiring of the entry points that read and write pauses, evaluated once per container at cold start
 *: configuration read through one helper that fails fast, the AWS clients (traced: X-Ray shows every
 * DynamoDB, SQS, EventBridge, Lambda and Step Functions call), the hand-off, the logger and the metrics. Each entry
 * point builds its dependencies with `useCaseDeps`, naming the checks it can meet.
 */

export { logger, metrics };

/** The configuration, read once. */
export const config = loadConfig(process.env);

/** The document client every entry point of `runtime.ts` shares (the Slack interactions function's delivery log too). */
export const dynamodb = tracedDocumentClient(config.dynamodbEndpoint);

// Each client captured as it is made: the target's now, the task token's and the durable callback's on first use.
const handoffClients = await createHandoffClients(config.handoff.target, {
  capture: traceAwsClient,
});

const handoff = createHandoff(config.handoff, handoffClients, logger);

/**
 * The use cases' dependencies: the store on the configured table, with the `checks` this entry point runs (each
 * loaded on first use), and the configured hand-off.
 */
export function useCaseDeps(
  checks: CheckpointChecks,
): UseCaseDeps & EntryTelemetry & { tenantClaim: string; groupsClaim: string } {
  return {
    // The service itself, not `createDynamoDBCheckpointStore`, whose default (every check) would bundle them all.
    store: new CheckpointService({
      persistence: new DynamoDBPersistence({ client: dynamodb, tableName: config.tableName }),
      checks,
    }),
    handoff,
    logger,
    metrics,
    tenantClaim: config.tenantClaim,
    groupsClaim: config.groupsClaim,
    ...(config.inboxUrl === undefined ? {} : { inboxUrl: config.inboxUrl }),
  };
}
