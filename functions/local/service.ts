import type { AddressInfo } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoDBCheckpointStore } from '../checkpoints/dynamodb-store.ts';
import { loadHandoffConfig, optionalEnv } from '../handlers/config.ts';
import { createApiHandler } from '../handlers/http-api.ts';
import { createHandoff, createHandoffClients, type Handoff } from '../handoff/handoff.ts';
import { metricsLogger } from '../resume/telemetry.ts';
import { createTable, startEmbeddedDynamoDB } from './embedded-dynamodb.ts';
import { createLocalServer } from './server.ts';

/**
 * The local service: the Lambda's API handler behind a local listener, on the embedded DynamoDB-compatible store
 * (in memory, or on disk under `HANDBACK_DATA_DIR`) or on `DYNAMODB_ENDPOINT`. `npm start` runs it from
 * `main.ts`; the demo starts it in-process.
 */

/** A running local service. */
export interface LocalService {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Stops listening, then stops the embedded store (flushing it to disk when it has a data dir). */
  close(): Promise<void>;
}

/** Starts the local service from `env` (PORT, HANDBACK_DATA_DIR, DYNAMODB_ENDPOINT, HANDBACK_JWT_SECRET, HANDOFF_*). */
export async function startLocalService(
  env: NodeJS.ProcessEnv = process.env,
  extra: { handoff?: Handoff } = {},
): Promise<LocalService> {
  const tableName = optionalEnv(env, 'TABLE_NAME', 'handback');
  const logger = new Logger({
    serviceName: 'handback-local',
    logLevel: optionalEnv(env, 'LOG_LEVEL', 'INFO') as 'INFO',
  });
  // EMF lines are for CloudWatch; locally they are off unless POWERTOOLS_METRICS_DISABLED=false.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  // The AWS SDK's nine-line notice that its releases after January 2027 need Node 22 would open every start; this is
  // AWS's documented switch for it (aws/aws-sdk-js-v3#7983). Set it to anything but "true" to see the notice again.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const metrics = new Metrics({ namespace: 'Handback', serviceName: 'handback-local', logger: metricsLogger(logger) });

  const configuredEndpoint = optionalEnv(env, 'DYNAMODB_ENDPOINT');
  const dataDir = optionalEnv(env, 'HANDBACK_DATA_DIR');
  const embedded =
    configuredEndpoint === undefined
      ? await startEmbeddedDynamoDB({ tableName, ...(dataDir === undefined ? {} : { path: dataDir }) })
      : undefined;
  const raw = embedded?.client() ?? new DynamoDBClient(endpointClientConfig(configuredEndpoint as string, env));
  // DynamoDB Local starts empty; on AWS the table usually exists already (then this is a no-op).
  if (embedded === undefined) await createTable(raw, tableName);
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });

  const handoffConfig = loadHandoffConfig(env);
  const handoff =
    extra.handoff ??
    createHandoff(
      handoffConfig,
      // Without AWS_REGION there is no Step Functions to complete task tokens with: the hand-off logs that instead.
      await createHandoffClients(handoffConfig.target, { withStepFunctions: env.AWS_REGION !== undefined }),
      logger,
    );
  const tenantClaim = optionalEnv(env, 'TENANT_CLAIM', 'tenant');
  const handler = createApiHandler({
    store: createDynamoDBCheckpointStore({ client, tableName }),
    handoff,
    logger,
    metrics,
    tenantClaim,
  });
  const jwtSecret = optionalEnv(env, 'HANDBACK_JWT_SECRET');
  const server = createLocalServer({
    handler: handler as Parameters<typeof createLocalServer>[0]['handler'],
    tenantClaim,
    ...(jwtSecret === undefined ? {} : { jwtSecret }),
    onError: (error) => logger.error('Local request failed', { error }),
  });
  const port = Number(optionalEnv(env, 'PORT', '3000'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      raw.destroy();
      await embedded?.close();
    },
  };
}

/**
 * The client settings for `DYNAMODB_ENDPOINT`: a regional AWS endpoint (`https://dynamodb.<region>.amazonaws.com`)
 * uses that region and the usual credential chain; any other endpoint (DynamoDB Local, dynalite) gets a region and
 * placeholder credentials unless the environment has its own, as such servers accept any.
 */
export function endpointClientConfig(endpoint: string, env: NodeJS.ProcessEnv): DynamoDBClientConfig {
  const region = /^https?:\/\/dynamodb[.-]([a-z0-9-]+)\.amazonaws\.com/.exec(endpoint)?.[1];
  if (region !== undefined) return { endpoint, region };
  const local: DynamoDBClientConfig = { endpoint, region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1' };
  if (!env.AWS_ACCESS_KEY_ID && !env.AWS_PROFILE) {
    local.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  return local;
}
