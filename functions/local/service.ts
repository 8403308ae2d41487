import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { channelsFromEnv } from '../channels/config.ts';
import type { PauseChange } from '../checkpoints/checkpoint-service.ts';
import {
  createDynamoDBCheckpointStore,
  endpointClientConfig,
  storageClientConfig,
} from '../checkpoints/dynamodb-store.ts';
import { parseRecipientDomains } from '../checkpoints/recipients.ts';
import { createLifecycleEmitter, createWebhookSink, type EventSink } from '../events/emitter.ts';
import { loadHandoffConfig, optionalEnv } from '../handlers/config.ts';
import { type ApiDeps, createApiHandler } from '../handlers/http-api.ts';
import { INBOX_ROUTES } from '../handlers/inbox-http.ts';
import { EmfMetrics, JsonLogger } from '../handlers/telemetry.ts';
import { createDynamoDBHandoffClaims } from '../handoff/claims.ts';
import { createHandoff, createHandoffClients, type Handoff } from '../handoff/handoff.ts';
import { createAnswerLinks, MIN_LINK_SECRET_BYTES } from '../links/answer-links.ts';
import { waitMsFromEnv } from '../mcp/backend.ts';
import { once } from '../once.ts';
import { policySettingsOf } from '../policies/config.ts';
import type { PolicyEngine } from '../policies/port.ts';
import { sweepDue } from '../resume/resume.ts';
import { LIMITS } from '../vocabulary.ts';
import { createTable, startEmbeddedDynamoDB } from './embedded-dynamodb.ts';
import type { IssuerOptions } from './issuer-tokens.ts';
import { createLocalServer } from './server.ts';

/**
 * The local service: the Lambda's API handler behind a local listener, on the embedded DynamoDB-compatible store
 * (in memory, or on disk under `HANDBACK_DATA_DIR`) or on `DYNAMODB_ENDPOINT`. `npm start` runs it from
 * `main.ts`; the demo starts it in-process.
 */

/** A running local service. */
export interface LocalService {
  /** `http://<HOST>:<port>` */
  url: string;
  /** Stops listening, then stops the embedded store (flushing it to disk when it has a data dir). */
  close(): Promise<void>;
}

/** A start that cannot succeed as configured; its message is the one line `npm start` prints for it. */
export class StartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartError';
  }
}

/** HS256 keys shorter than the hash output (256 bits) weaken it (RFC 7518 §3.2 requires at least that). */
export const MIN_JWT_SECRET_BYTES = 32;

/**
 * Starts the local service from `env` (HOST, PORT, HANDBACK_DATA_DIR, DYNAMODB_ENDPOINT, HANDBACK_JWT_SECRET,
 * HANDBACK_JWT_ISSUER and the other auth settings of `localAuth`, HANDOFF_*). A setting that cannot work, or a port in use, rejects with a `StartError`.
 */
export async function startLocalService(
  env: NodeJS.ProcessEnv = process.env,
  extra: { handoff?: Handoff } = {},
): Promise<LocalService> {
  const host = optionalEnv(env, 'HOST', '127.0.0.1');
  const port = listeningPort(optionalEnv(env, 'PORT', '3000'));
  const jwtSecret = optionalEnv(env, 'HANDBACK_JWT_SECRET');
  if (jwtSecret !== undefined && Buffer.byteLength(jwtSecret) < MIN_JWT_SECRET_BYTES) {
    throw new StartError(
      `HANDBACK_JWT_SECRET is ${Buffer.byteLength(jwtSecret)} bytes; an HS256 key needs at least ${MIN_JWT_SECRET_BYTES} (256 bits): e.g. HANDBACK_JWT_SECRET=$(openssl rand -base64 32)`,
    );
  }
  const auth = localAuth(env, jwtSecret !== undefined);
  const linkSecret = optionalEnv(env, 'HANDBACK_LINK_SECRET');
  if (linkSecret !== undefined && Buffer.byteLength(linkSecret) < MIN_LINK_SECRET_BYTES) {
    throw new StartError(
      `HANDBACK_LINK_SECRET is ${Buffer.byteLength(linkSecret)} bytes; the answer-link key needs at least ${MIN_LINK_SECRET_BYTES} (256 bits): e.g. HANDBACK_LINK_SECRET=$(openssl rand -base64 32)`,
    );
  }
  const links = linkSecret === undefined ? undefined : createAnswerLinks(new TextEncoder().encode(linkSecret));
  const tableName = optionalEnv(env, 'TABLE_NAME', 'handback');
  const logger = new JsonLogger({ serviceName: 'handback-local', logLevel: optionalEnv(env, 'LOG_LEVEL', 'INFO') });
  // EMF lines are for CloudWatch; locally they are off unless POWERTOOLS_METRICS_DISABLED=false.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  // The AWS SDK's nine-line notice that its releases after January 2027 need Node 22 would open every start; this is
  // AWS's documented switch for it (aws/aws-sdk-js-v3#7983). Set it to anything but "true" to see the notice again.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const metrics = new EmfMetrics({ namespace: 'Handback', serviceName: 'handback-local' });

  const configuredEndpoint = optionalEnv(env, 'DYNAMODB_ENDPOINT');
  const dataDir = optionalEnv(env, 'HANDBACK_DATA_DIR');
  const embedded =
    configuredEndpoint === undefined
      ? await startEmbeddedDynamoDB({ tableName, ...(dataDir === undefined ? {} : { path: dataDir }) })
      : undefined;
  const raw =
    embedded?.client() ??
    new DynamoDBClient(storageClientConfig(endpointClientConfig(configuredEndpoint as string, env)));
  // DynamoDB Local starts empty; on AWS the table usually exists already (then this is a no-op).
  if (embedded === undefined) await createTable(raw, tableName);
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });

  const handoffConfig = loadHandoffConfig(env);
  const handoff =
    extra.handoff ??
    createHandoff(
      handoffConfig,
      // Without AWS_REGION there is no Step Functions to complete task tokens with: the hand-off logs that instead.
      await createHandoffClients(handoffConfig.target, {
        withStepFunctions: env.AWS_REGION !== undefined,
        withDurableCallbacks: env.AWS_REGION !== undefined,
        targetModule: () => import('../handoff/target.ts'),
      }),
      logger,
    );
  // The deployment's Cedar policies (§17): loaded and checked now, so a bad file stops the start, naming its line.
  let engine: PolicyEngine | undefined;
  try {
    const settings = policySettingsOf(env);
    if (settings !== undefined) {
      const { loadLoggedPolicyEngine } = await import('../policies/engine-files.ts');
      engine = loadLoggedPolicyEngine(settings, logger, env);
    }
  } catch (error) {
    await embedded?.close();
    throw new StartError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  const tenantClaim = optionalEnv(env, 'TENANT_CLAIM', 'tenant');
  let recipientDomains: string[];
  try {
    recipientDomains = parseRecipientDomains(optionalEnv(env, 'HANDBACK_RECIPIENT_DOMAINS'));
  } catch (error) {
    throw new StartError(`HANDBACK_RECIPIENT_DOMAINS: ${(error as Error).message}`, { cause: error });
  }
  // Lifecycle events: the store tells of each committed change; the emitter is wired once the URL is known.
  let observe: (change: PauseChange) => void = () => {};
  const deps: ApiDeps = {
    store: createDynamoDBCheckpointStore({
      client,
      tableName,
      onChange: (change) => observe(change),
      ...(engine === undefined ? {} : { policies: async () => engine as PolicyEngine }),
      recipientDomains,
    }),
    handoff,
    claims: createDynamoDBHandoffClaims({ client, tableName }),
    logger,
    metrics,
    tenantClaim,
    ...(links === undefined ? {} : { links }),
    ...auth.deps,
  };
  // The channels (§14) from HANDBACK_SLACK_* and HANDBACK_SMTP_URL: one more consumer of the lifecycle events.
  let channels: ReturnType<typeof channelsFromEnv>;
  try {
    channels = channelsFromEnv(env, { useCases: deps, client, tableName, recipientDomains });
  } catch (error) {
    // Each is a setting that cannot work (docs/channels.md): one line naming it, as for every other setting.
    throw new StartError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  deps.channels = channels.names;
  if (channels.slack !== undefined) deps.slack = channels.slack;
  if (channels.deliverLink !== undefined) deps.deliverLink = channels.deliverLink;
  // `POST /mcp` (§18), as the stack's MCP function serves it; the MCP SDK loads with its first request.
  let mcpWaitMs: number;
  try {
    const seconds = optionalEnv(env, 'HANDBACK_MCP_WAIT_SECONDS');
    mcpWaitMs = waitMsFromEnv(
      seconds === undefined ? {} : { HANDBACK_MCP_WAIT_SECONDS: seconds },
      LIMITS.mcpWaitSeconds.http,
    );
  } catch (error) {
    throw new StartError(error instanceof Error ? error.message : String(error), { cause: error });
  }
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
    routes: INBOX_ROUTES,
    handlers: { mcp: async (input, caller) => (await mcpRoute())(input, caller) },
  });
  const server = createLocalServer({
    handler: handler as Parameters<typeof createLocalServer>[0]['handler'],
    tenantClaim,
    ...(jwtSecret === undefined ? {} : { jwtSecret }),
    ...(auth.issuer === undefined ? {} : { issuer: auth.issuer }),
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
    throw listenError(error, host, port);
  }
  const { port: bound } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  ownInbox = `${url}/inbox`;

  // Answer links and the channels' "Open in the inbox" point at HANDBACK_INBOX_URL, or at this service's own inbox
  // page, which it always serves (links are made only with HANDBACK_LINK_SECRET).
  deps.inboxUrl = optionalEnv(env, 'HANDBACK_INBOX_URL', `${url}/inbox`);
  const webhook = optionalEnv(env, 'HANDBACK_WEBHOOK_URL');
  const sinks: EventSink[] = webhook === undefined ? [] : [createWebhookSink(webhook)];
  if (channels.sink !== undefined) sinks.push(channels.sink);
  const emitter = createLifecycleEmitter({
    sinks,
    log: logger,
    countFailure: (count) => logger.warn('Lifecycle events not delivered', { count }),
    ...(links === undefined ? {} : { links }),
    ...(deps.inboxUrl === undefined ? {} : { inboxUrl: deps.inboxUrl }),
  });
  observe = (change) => emitter.observe(change);

  // The sweep, as the schedule runs it on AWS: reminders, expiries, closings at expiresAt (one at a time).
  const sweepEvery = Number(optionalEnv(env, 'HANDBACK_SWEEP_INTERVAL_MS', '1000'));
  let sweeping: Promise<unknown> | undefined;
  const sweeper = setInterval(() => {
    // One sweep at a time: a slow one is not queued behind, the next tick starts after it.
    sweeping ??= sweepDue(deps)
      .catch((error: unknown) => logger.error('Sweep failed', { error }))
      .finally(() => {
        sweeping = undefined;
      });
  }, sweepEvery);
  sweeper.unref();

  return {
    url,
    async close() {
      clearInterval(sweeper);
      await sweeping;
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
 * Who may call (§13, §16): `HANDBACK_JWT_ISSUER` with `HANDBACK_JWT_AUDIENCE` (tokens checked as API Gateway checks
 * them; the audiences bind `HANDBACK_JWT_SECRET`'s HS256 tokens too),
 * `HANDBACK_OIDC_CLIENT_ID` (the inbox's client, for its sign-in), `HANDBACK_REQUIRE_SCOPES` and
 * `HANDBACK_GROUPS_CLAIM`. Settings that cannot work together are a `StartError`.
 */
function localAuth(
  env: NodeJS.ProcessEnv,
  withSecret: boolean,
): {
  issuer?: IssuerOptions;
  audiences: string[];
  deps: Pick<ApiDeps, 'anonymous' | 'requireScopes' | 'groupsClaim' | 'oidc'>;
} {
  const issuer = optionalEnv(env, 'HANDBACK_JWT_ISSUER');
  const audiences = (optionalEnv(env, 'HANDBACK_JWT_AUDIENCE') ?? '')
    .split(',')
    .map((audience) => audience.trim())
    .filter(Boolean);
  const clientId = optionalEnv(env, 'HANDBACK_OIDC_CLIENT_ID');
  const requireScopes = optionalEnv(env, 'HANDBACK_REQUIRE_SCOPES', 'false');
  const groupsClaim = optionalEnv(env, 'HANDBACK_GROUPS_CLAIM');
  if (issuer !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(issuer);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      throw new StartError(`HANDBACK_JWT_ISSUER=${issuer} is not a URL: set it to your OIDC issuer's URL (its iss).`);
    }
    if (audiences.length === 0) {
      throw new StartError(
        'HANDBACK_JWT_ISSUER needs HANDBACK_JWT_AUDIENCE: the audiences (comma-separated) a token must name in aud or client_id.',
      );
    }
  }
  if (requireScopes !== 'true' && requireScopes !== 'false') {
    throw new StartError(`HANDBACK_REQUIRE_SCOPES=${requireScopes} must be true or false.`);
  }
  const anonymous = issuer === undefined && !withSecret;
  if (requireScopes === 'true' && anonymous) {
    throw new StartError(
      'HANDBACK_REQUIRE_SCOPES=true needs tokens: set HANDBACK_JWT_ISSUER (and HANDBACK_JWT_AUDIENCE) or HANDBACK_JWT_SECRET.',
    );
  }
  return {
    ...(issuer === undefined ? {} : { issuer: { issuer, audiences } }),
    audiences,
    deps: {
      ...(anonymous ? { anonymous } : {}),
      ...(requireScopes === 'true' ? { requireScopes: true } : {}),
      ...(groupsClaim === undefined ? {} : { groupsClaim }),
      ...(issuer === undefined ? {} : { oidc: { issuer, ...(clientId === undefined ? {} : { clientId }) } }),
    },
  };
}

function listeningPort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65535) {
    throw new StartError(`PORT=${value} is not a port number: set PORT to one from 0 to 65535 (0 picks a free one).`);
  }
  return port;
}

/** A listen failure a person can act on, as one line; anything else as it is. */
function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'EADDRINUSE':
      return new StartError(
        `Port ${port} is in use: stop the other process or set PORT=<another port> (e.g. PORT=${port === 65535 ? port - 1 : port + 1} npm start).`,
        { cause: error },
      );
    case 'EACCES':
      return new StartError(`Port ${port} needs privileges this process lacks: set PORT to one above 1023.`, {
        cause: error,
      });
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartError(
        `HOST=${host} is not an address of this machine: set HOST to one of its addresses (default 127.0.0.1; 0.0.0.0 for all).`,
        { cause: error },
      );
    default:
      return error;
  }
}
