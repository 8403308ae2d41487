import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoDBCheckpointStore } from '../checkpoints/dynamodb-store.ts';
import { createHandoff, createHandoffClients } from '../handoff/handoff.ts';
import type { UseCaseDeps } from '../resume/resume.ts';
import { metricsLogger } from '../resume/telemetry.ts';
import { loadConfig } from './config.ts';

/**
 * The Lambda wiring, evaluated once per container at cold start (STYLE rule 6): configuration read through one
 * helper that fails fast, the AWS clients, the store, the hand-off, the logger and the metrics. The entry points
 * (`api.ts`, `step-functions.ts`, `sqs.ts`, `eventbridge.ts`) pass these to their handler factories.
 */

/** The configuration, read once. */
export const config = loadConfig(process.env);

/** Powertools logger: JSON lines; level from `POWERTOOLS_LOG_LEVEL`. */
export const logger = new Logger({ serviceName: 'handback' });
/** Powertools metrics in EMF, namespace `Handback` unless `POWERTOOLS_METRICS_NAMESPACE` says otherwise. */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Handback',
  serviceName: 'handback',
  logger: metricsLogger(logger),
});

const dynamodb = DynamoDBDocumentClient.from(
  new DynamoDBClient(config.dynamodbEndpoint === undefined ? {} : { endpoint: config.dynamodbEndpoint }),
  { marshallOptions: { removeUndefinedValues: true } },
);

/** The handlers' dependencies: the store on the configured table and the configured hand-off. */
export const deps: UseCaseDeps & { tenantClaim: string } = {
  store: createDynamoDBCheckpointStore({ client: dynamodb, tableName: config.tableName }),
  handoff: createHandoff(config.handoff, await createHandoffClients(config.handoff.target), logger),
  logger,
  metrics,
  tenantClaim: config.tenantClaim,
};
