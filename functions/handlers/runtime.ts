import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoDBCheckpointStore, storageClientConfig } from '../checkpoints/dynamodb-store.ts';
import { createHandoff, createHandoffClients } from '../handoff/handoff.ts';
import { type AnswerLinks, createAnswerLinks } from '../links/answer-links.ts';
import type { UseCaseDeps } from '../resume/resume.ts';
import { metricsLogger } from '../resume/telemetry.ts';
import { loadConfig } from './config.ts';

/**
 * The Lambda wiring, evaluated once per container at cold start (STYLE rule 6): configuration read through one
 * helper that fails fast, the AWS clients (traced: X-Ray shows every DynamoDB, SQS, EventBridge and Step Functions
 * call), the store, the hand-off, the logger and the metrics. The entry points pass these to their handler factories.
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
/** Powertools tracer: each AWS SDK client below is captured, so a trace shows the calls a request made. */
export const tracer = new Tracer({ serviceName: 'handback' });

const dynamodb = DynamoDBDocumentClient.from(
  tracer.captureAWSv3Client(
    new DynamoDBClient(
      storageClientConfig(config.dynamodbEndpoint === undefined ? {} : { endpoint: config.dynamodbEndpoint }),
    ),
  ),
  { marshallOptions: { removeUndefinedValues: true } },
);

const handoffClients = await createHandoffClients(config.handoff.target);
for (const client of Object.values(handoffClients)) tracer.captureAWSv3Client(client);

/** The handlers' dependencies: the store on the configured table and the configured hand-off. */
export const deps: UseCaseDeps & { tenantClaim: string } = {
  store: createDynamoDBCheckpointStore({ client: dynamodb, tableName: config.tableName }),
  handoff: createHandoff(config.handoff, handoffClients, logger),
  logger,
  metrics,
  tenantClaim: config.tenantClaim,
  ...(config.inboxUrl === undefined ? {} : { inboxUrl: config.inboxUrl }),
};

/**
 * Answer links, when the deployment keeps a link key in Secrets Manager (`LINK_SECRET_ARN`): the key is read once,
 * at cold start, by the entry points that sign or verify links (the API and the lifecycle stream).
 */
export async function loadAnswerLinks(): Promise<AnswerLinks | undefined> {
  if (config.linkSecretArn === undefined) return undefined;
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const client = tracer.captureAWSv3Client(new SecretsManagerClient({}));
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: config.linkSecretArn }));
  if (SecretString === undefined || SecretString.length === 0) {
    throw new Error(`The secret ${config.linkSecretArn} (LINK_SECRET_ARN) holds no string: store the link key there.`);
  }
  return createAnswerLinks(new TextEncoder().encode(SecretString));
}
