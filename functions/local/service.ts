import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { channelsOf } from '../channels/config.ts';
import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import {
  createDynamoDBCheckpointStore,
  endpointClientConfig,
  storageClientConfig,
} from '../checkpoints/dynamodb-store.ts';
import { escalationsOf } from '../checkpoints/escalation.ts';
import { S3TranscriptObjects, s3ClientConfig, s3EndpointConfig } from '../checkpoints/s3/s3-objects.ts';
import { readDirectoryFile } from '../directory/file.ts';
import type { DirectoryStore } from '../directory/port.ts';
import { TableDirectory } from '../directory/table-directory.ts';
import { createLifecycleEmitter, createWebhookSink, type EventSink } from '../events/emitter.ts';
import { type ApiDeps, createApiHandler } from '../handlers/http-api.ts';
import { inboxRoutes } from '../handlers/inbox-http.ts';
import { EmfMetrics, JsonLogger } from '../handlers/telemetry.ts';
import { createDynamoDBHandoffClaims } from '../handoff/claims.ts';
import { createHandoff, createHandoffClients, type Handoff } from '../handoff/handoff.ts';
import { createAnswerLinks } from '../links/answer-links.ts';
import { once } from '../once.ts';
import type { PolicyEngine } from '../policies/port.ts';
import { countSettled, reportPending } from '../resume/decision-metrics.ts';
import { sweepDue } from '../resume/resume.ts';
import * as S from '../settings.ts';
import { tracesOf } from '../traces/traces.ts';
import { type Environment, localSettings, MIN_JWT_SECRET_BYTES, quietAwsSdk, StartError } from './config.ts';
import { createTable, startEmbeddedDynamoDB } from './embedded-dynamodb.ts';
import { type EmbeddedS3, startEmbeddedS3 } from './embedded-s3.ts';
import { allowedHostsOf, createLocalServer } from './server.ts';

/**
 * The local service: the Lambda's API handler behind a local listener, on the embedded DynamoDB-compatible store
 * (in memory, or on disk under `HANDBACK_DATA_DIR`) or on `DYNAMODB_ENDPOINT`. `npm start` runs it from
 * `main.ts`; the demo starts it in-process. Its settings come from `config.ts`, the one reader of its environment.
 */

export { MIN_JWT_SECRET_BYTES, StartError };

/** A running local service. */
export interface LocalService {
  /** `http://<HOST>:<port>` */
  url: string;
  /** The embedded S3 server's `http://127.0.0.1:<port>`, when it runs (transcripts over 64 KB go there). */
  s3Endpoint?: string;
  /** Stops listening, then stops the embedded store (flushing it to disk when it has a data dir). */
  close(): Promise<void>;
}

/**
 * Starts the local service with the settings of `env` (`config.ts`; the process's environment when not given). A setting that
 * cannot work, or a port in use, rejects with a `StartError`.
 */
export async function startLocalService(env?: Environment, extra: { handoff?: Handoff } = {}): Promise<LocalService> {
  const settings = localSettings(env);
  quietAwsSdk();
  const { host, port, tableName, auth } = settings;
  const links =
    settings.linkSecret === undefined ? undefined : createAnswerLinks(new TextEncoder().encode(settings.linkSecret));
  const logger = new JsonLogger({ serviceName: 'handback-local', logLevel: settings.logLevel });
  const metrics = new EmfMetrics({
    namespace: 'Handback',
    serviceName: 'handback-local',
    disabled: settings.metricsDisabled,
  });

  const embedded =
    'endpoint' in settings.store
      ? undefined
      : await startEmbeddedDynamoDB({
          tableName,
          ...(settings.store.dataDir === undefined ? {} : { path: settings.store.dataDir }),
        });
  const raw =
    embedded?.client() ??
    new DynamoDBClient(
      storageClientConfig(
        'endpoint' in settings.store
          ? endpointClientConfig(settings.store.endpoint, settings.store.sdkEnvironment)
          : {},
      ),
    );
  // DynamoDB Local starts empty; on AWS the table usually exists already (then this is a no-op).
  if (embedded === undefined) await createTable(raw, tableName);
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  // Transcripts over 64 KB (§23): beside the embedded store, the embedded S3 server (on disk beside its data).
  let s3: EmbeddedS3 | undefined;
  const where = settings.transcripts;
  if (where !== undefined && 'embedded' in where) {
    s3 = await startEmbeddedS3({
      bucket: where.bucket,
      ...('dataDir' in settings.store && settings.store.dataDir !== undefined
        ? { path: join(settings.store.dataDir, 's3') }
        : {}),
    }).catch(async (error: unknown) => {
      await embedded?.close();
      throw error;
    });
  }
  const objects =
    where === undefined
      ? undefined
      : 'embedded' in where
        ? s3 && new S3TranscriptObjects({ bucket: s3.bucket, clientConfig: s3ClientConfig(s3.clientConfig) })
        : new S3TranscriptObjects({
            bucket: where.bucket,
            clientConfig: s3ClientConfig(s3EndpointConfig(where.endpoint, where.sdkEnvironment)),
          });

  const handoff =
    extra.handoff ??
    createHandoff(
      settings.handoff,
      // Without AWS_REGION there is no Step Functions to complete task tokens with: the hand-off logs that instead.
      await createHandoffClients(settings.handoff.target, {
        withStepFunctions: settings.awsCalls,
        withDurableCallbacks: settings.awsCalls,
        targetModule: () => import('../handoff/target.ts'),
      }),
      logger,
    );
  // The deployment's Cedar policies (§17): loaded and checked now, so a bad file stops the start, naming its line.
  let engine: PolicyEngine | undefined;
  try {
    if (settings.policies !== undefined) {
      const { loadLoggedPolicyEngine } = await import('../policies/engine-files.ts');
      engine = loadLoggedPolicyEngine(settings.policies, logger);
    }
  } catch (error) {
    await embedded?.close();
    await s3?.close();
    throw new StartError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  // The directory of persons (§20): read and checked now, so a bad file stops the start, naming the entry.
  let directory: DirectoryStore | undefined;
  // §20 SCIM: or the table-kept one, which `/scim/v2` provisions (never both: the settings refuse it).
  const scimDirectory =
    settings.scim === undefined ? undefined : new TableDirectory({ client, tableName: settings.tableName });
  if (scimDirectory !== undefined) directory = scimDirectory;
  try {
    if (settings.directory !== undefined) directory = readDirectoryFile(settings.directory);
  } catch (error) {
    await embedded?.close();
    throw new StartError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  const { tenantClaim, recipientDomains } = settings;
  // §21: spans to an OTLP endpoint, when one is set: the pause requests', and the asks' as changes settle them.
  const traces = tracesOf(settings.otlpEndpoint, { log: logger, escalationsOf });
  // Lifecycle events: the store tells of each committed change; the emitter is wired once the URL is known.
  let observe: (change: PauseChange) => void = () => {};
  const deps: ApiDeps = {
    store: createDynamoDBCheckpointStore({
      client,
      tableName,
      ...(objects === undefined ? {} : { objects }),
      onChange: (change) => {
        observe(change);
        traces?.changed(change);
      },
      ...(engine === undefined ? {} : { policies: async () => engine as PolicyEngine }),
      ...(directory === undefined ? {} : { directory }),
      recipientDomains,
      ...(settings.escalation === undefined ? {} : { escalation: settings.escalation }),
    }),
    handoff,
    claims: createDynamoDBHandoffClaims({ client, tableName }),
    ...(engine === undefined ? {} : { policies: async () => engine as PolicyEngine }),
    // §20 delegation: the file's people in this process's memory, where a person's own delegation lasts until it stops.
    ...(directory === undefined ? {} : { people: { directory, writer: directory } }),
    logger,
    metrics,
    tenantClaim,
    ...(traces === undefined ? {} : { traces }),
    ...(links === undefined ? {} : { links }),
    ...(auth.anonymous ? { anonymous: true } : {}),
    ...(auth.requireScopes ? { requireScopes: true } : {}),
    groupsClaim: auth.groupsClaim,
    // §20 SCIM
    ...(settings.scim === undefined || scimDirectory === undefined
      ? {}
      : {
          scim: {
            tenant: settings.scim.tenant,
            token: async () => (settings.scim as { token: string }).token,
            keep: { directory: scimDirectory, documents: scimDirectory },
          },
        }),
    ...(auth.issuer === undefined
      ? {}
      : { oidc: { issuer: auth.issuer, ...(auth.clientId === undefined ? {} : { clientId: auth.clientId }) } }),
  };
  // The channels (§14): one more consumer of the lifecycle events.
  const channels = channelsOf(settings.channels, {
    useCases: deps,
    client,
    tableName,
    recipientDomains,
    ...(directory === undefined ? {} : { directory }),
  });
  deps.channels = channels.names;
  if (channels.slack !== undefined) deps.slack = channels.slack;
  if (channels.deliverLink !== undefined) deps.deliverLink = channels.deliverLink;
  // `POST /mcp` (§18), as the stack's MCP function serves it; the MCP SDK loads with its first request.
  const mcpWaitMs = settings.mcpWaitMs;
  // Made on the first request, once the service's own URL is known: its inbox is where the tools' messages point.
  let ownInbox = '';
  const mcpRoute = once(async () =>
    (await import('../handlers/mcp-http.ts')).createMcpRoute(deps, {
      waitMs: mcpWaitMs,
      inboxUrl: deps.inboxUrl ?? ownInbox,
    }),
  );
  // One handler serves the API, the inbox page and MCP, as the stack's three functions do behind one HTTP API.
  const handler = createApiHandler(deps, {
    routes: inboxRoutes(settings.inboxSignIn),
    handlers: { mcp: async (input, caller) => (await mcpRoute())(input, caller) },
  });
  const server = createLocalServer({
    handler: handler as Parameters<typeof createLocalServer>[0]['handler'],
    ...allowedHostsOf(host, settings.allowedHosts),
    tenantClaim,
    ...(auth.jwtSecret === undefined ? {} : { jwtSecret: auth.jwtSecret }),
    ...(auth.issuer === undefined ? {} : { issuer: { issuer: auth.issuer, audiences: auth.audiences } }),
    audiences: auth.audiences,
    onError: (error) => logger.error('Local request failed', { error }),
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    raw.destroy();
    await embedded?.close();
    await s3?.close();
    throw listenError(error, host, port);
  }
  const { port: bound } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  ownInbox = `${url}/inbox`;

  // Answer links and the channels' "Open in the inbox" point at HANDBACK_INBOX_URL, or at this service's own inbox
  // page, which it always serves (links are made only with HANDBACK_LINK_SECRET).
  deps.inboxUrl = settings.inboxUrl ?? `${url}/inbox`;
  const webhook = settings.webhookUrl;
  const sinks: EventSink[] = webhook === undefined ? [] : [createWebhookSink(webhook)];
  if (channels.sink !== undefined) sinks.push(channels.sink);
  const emitter = createLifecycleEmitter({
    sinks,
    log: logger,
    countFailure: (count) => logger.warn('Lifecycle events not delivered', { count }),
    ...(links === undefined ? {} : { links }),
    ...(deps.inboxUrl === undefined ? {} : { inboxUrl: deps.inboxUrl }),
  });
  // How decisions are going (§21): the asks each change settled, as the stream counts them on AWS.
  observe = (change) => {
    emitter.observe(change);
    countSettled(metrics, change);
  };

  // The sweep, as the schedule runs it on AWS: reminders, expiries, closings at expiresAt (one at a time). With metrics
  // on, it also counts what waits, on its first tick and then once a minute.
  const sweepEvery = settings.sweepIntervalMs;
  let sweeping: Promise<unknown> | undefined;
  let countedAt = Number.NEGATIVE_INFINITY;
  const sweep = async () => {
    await sweepDue(deps);
    if (!settings.metricsDisabled && Date.now() - countedAt >= 60_000) {
      countedAt = Date.now();
      await reportPending(deps);
    }
  };
  const sweeper = setInterval(() => {
    // One sweep at a time: a slow one is not queued behind, the next tick starts after it.
    sweeping ??= sweep()
      .catch((error: unknown) => logger.error('Sweep failed', { error }))
      .finally(() => {
        metrics.publish();
        sweeping = undefined;
      });
  }, sweepEvery);
  sweeper.unref();

  return {
    url,
    ...(s3 === undefined ? {} : { s3Endpoint: s3.endpoint }),
    async close() {
      clearInterval(sweeper);
      await sweeping;
      await traces?.flush();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      raw.destroy();
      await embedded?.close();
      await s3?.close();
    },
  };
}

/** A listen failure a person can act on, as one line; anything else as it is. */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'EADDRINUSE':
      return new StartError(
        `Port ${port} is in use: stop the other process or set ${S.port.env}=<another port> (e.g. ${S.port.env}=${port === 65535 ? port - 1 : port + 1} npm start).`,
        { cause: error },
      );
    case 'EACCES':
      return new StartError(`Port ${port} needs privileges this process lacks: set ${S.port.env} to one above 1023.`, {
        cause: error,
      });
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartError(
        `${S.host.env}=${host} is not an address of this machine: set ${S.host.env} to one of its addresses (default ${S.host.default}; 0.0.0.0 for all).`,
        { cause: error },
      );
    default:
      return error;
  }
}
