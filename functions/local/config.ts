import type { LocalChannelSettings } from '../channels/config.ts';
import { parseDefaults, senderAddress } from '../checkpoints/notify.ts';
import { parseRecipientDomains } from '../checkpoints/recipients.ts';
import {
  type Environment,
  type EnvSetting,
  escalationOf,
  loadHandoffConfig,
  otlpEndpointOf,
  policySettingsOf,
} from '../handlers/config.ts';
import type { HandoffConfig } from '../handoff/handoff.ts';
import type { InboxSignIn } from '../inbox/assets.ts';
import { MIN_LINK_SECRET_BYTES } from '../links/answer-links.ts';
import { mcpWaitMs } from '../mcp/backend.ts';
import type { PolicySettings } from '../policies/config.ts';
import type { LadderLevel } from '../policies/ladder.ts';
import * as S from '../settings.ts';
import { LIMITS } from '../vocabulary.ts';

/**
 * `npm start`'s one reader of the environment: every setting the local service takes, by its row of
 * `functions/settings.ts`, read and checked before anything starts. A setting that cannot work is a `StartError`
 * whose message is the one line `npm start` prints; the service receives the typed `LocalSettings`.
 */

export type { Environment };

/** A start that cannot succeed as configured; its message is the one line `npm start` prints for it. */
export class StartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartError';
  }
}

/** HS256 keys shorter than the hash output (256 bits) weaken it (RFC 7518 §3.2 requires at least that). */
export const MIN_JWT_SECRET_BYTES = 32;

/** Who may call (§13, §16), as the local server and the API handler take it. */
export interface LocalAuth {
  /** HS256 tokens signed with this secret. */
  jwtSecret?: string;
  /** An OIDC issuer whose tokens are checked as API Gateway checks them. */
  issuer?: string;
  /** The audiences a token must name in `aud` or `client_id`. */
  audiences: string[];
  /** The inbox's client, for its sign-in. */
  clientId?: string;
  /** Every bearer route needs one of its scopes. */
  requireScopes: boolean;
  /** The claim holding a person's groups. */
  groupsClaim: string;
  /** No issuer and no secret: one tenant, no auth. */
  anonymous: boolean;
}

/** Everything the local service reads from its environment, checked. */
export interface LocalSettings {
  host: string;
  /** More host names than the loopback ones that the service answers to (§22). */
  allowedHosts: string | undefined;
  port: number;
  auth: LocalAuth;
  tenantClaim: string;
  /** The answer-link key; undefined = no answer links. */
  linkSecret: string | undefined;
  tableName: string;
  logLevel: string;
  /** EMF metrics are for CloudWatch: off locally unless asked for. */
  metricsDisabled: boolean;
  /**
   * The store: a DynamoDB endpoint, with the AWS SDK's own variables its client settings read (region, credentials),
   * or the embedded one (on disk in `dataDir`).
   */
  store: { endpoint: string; sdkEnvironment: Environment } | { dataDir: string | undefined };
  /**
   * Where transcripts over 64 KB go (§23): an S3-compatible endpoint (with the SDK's variables), the embedded S3 server
   * beside the embedded store, or none (with `DYNAMODB_ENDPOINT` and no S3 endpoint: they stay in the table).
   */
  transcripts:
    | { bucket: string; endpoint: string; sdkEnvironment: Environment }
    | { bucket: string; embedded: true }
    | undefined;
  handoff: HandoffConfig;
  /** Whether task tokens and durable callbacks can be completed: only with a region to call. */
  awsCalls: boolean;
  policies: PolicySettings | undefined;
  /** The directory file of persons (§20); undefined = none. */
  directory: string | undefined;
  // §20 SCIM
  /** SCIM provisioning's secret and tenant; undefined = no `/scim/v2`. */
  scim: { token: string; tenant: string } | undefined;
  recipientDomains: string[];
  channels: LocalChannelSettings;
  mcpWaitMs: number;
  /** Where answer links point; undefined = the service's own `/inbox`. */
  inboxUrl: string | undefined;
  webhookUrl: string | undefined;
  sweepIntervalMs: number;
  inboxSignIn: InboxSignIn;
  /** The OTLP/HTTP endpoint spans are exported to (§21); undefined = none. */
  otlpEndpoint: string | undefined;
  // §21 escalation
  /** The escalation ladder of asks no policy escalates (`HANDBACK_ESCALATION`); undefined = none. */
  escalation: LadderLevel[] | undefined;
}

/** The local service's settings from `env`; throws a `StartError` naming the first that cannot work. */
export function localSettings(env: Environment = process.env): LocalSettings {
  const text = (setting: EnvSetting) => textOf(setting, env);
  const jwtSecret = env[S.jwtSecret.env] || undefined;
  if (jwtSecret !== undefined && Buffer.byteLength(jwtSecret) < MIN_JWT_SECRET_BYTES) {
    throw new StartError(
      `${S.jwtSecret.env} is ${Buffer.byteLength(jwtSecret)} bytes; an HS256 key needs at least ${MIN_JWT_SECRET_BYTES} (256 bits): e.g. ${S.jwtSecret.env}=$(openssl rand -base64 32)`,
    );
  }
  const linkSecret = env[S.linkSecret.env] || undefined;
  if (linkSecret !== undefined && Buffer.byteLength(linkSecret) < MIN_LINK_SECRET_BYTES) {
    throw new StartError(
      `${S.linkSecret.env} is ${Buffer.byteLength(linkSecret)} bytes; the answer-link key needs at least ${MIN_LINK_SECRET_BYTES} (256 bits): e.g. ${S.linkSecret.env}=$(openssl rand -base64 32)`,
    );
  }
  const endpoint = text(S.dynamodbEndpoint);
  // §20 SCIM
  const scimToken = env[S.scimToken.env] || undefined;
  if (scimToken !== undefined && Buffer.byteLength(scimToken) < MIN_LINK_SECRET_BYTES) {
    throw new StartError(
      `${S.scimToken.env} is ${Buffer.byteLength(scimToken)} bytes; the SCIM secret needs at least ${MIN_LINK_SECRET_BYTES}: e.g. ${S.scimToken.env}=$(openssl rand -base64 32)`,
    );
  }
  if (scimToken !== undefined && text(S.directory) !== undefined) {
    throw new StartError(
      `${S.directory.env} and ${S.scimToken.env} are both set: the directory is one source at a time, a file or SCIM's table; unset one.`,
    );
  }
  return {
    host: text(S.host) ?? S.host.default,
    allowedHosts: text(S.allowedHosts),
    port: listeningPort(text(S.port) ?? String(S.port.default)),
    auth: localAuth(env, jwtSecret),
    tenantClaim: text(S.tenantClaim) ?? S.tenantClaim.default,
    linkSecret,
    tableName: text(S.tableName) ?? S.tableName.default,
    logLevel: text(S.logLevel) ?? S.logLevel.default,
    metricsDisabled: !/^(0|n|no|f|false|off)$/i.test(text(S.metricsDisabled) ?? 'true'),
    store: endpoint === undefined ? { dataDir: text(S.dataDir) } : { endpoint, sdkEnvironment: env },
    transcripts: transcriptsOf(text(S.s3Endpoint), text(S.transcriptBucket) ?? S.transcriptBucket.default, {
      embeddedStore: endpoint === undefined,
      env,
    }),
    handoff: checked(() => loadHandoffConfig(env)),
    awsCalls: text(S.awsRegion) !== undefined,
    policies: checked(() => policySettingsOf(env)),
    directory: text(S.directory),
    scim:
      scimToken === undefined ? undefined : { token: scimToken, tenant: text(S.scimTenant) ?? S.scimTenant.default },
    recipientDomains: checked(() => parseRecipientDomains(text(S.recipientDomains)), S.recipientDomains),
    channels: channelSettings(env, linkSecret !== undefined),
    mcpWaitMs: checked(() => mcpWaitMs(text(S.mcpWaitSeconds), LIMITS.mcpWaitSeconds.http)),
    inboxUrl: text(S.inboxUrl),
    webhookUrl: text(S.webhookUrl),
    sweepIntervalMs: Number(text(S.sweepIntervalMs) ?? S.sweepIntervalMs.default),
    inboxSignIn: {
      issuer: text(S.jwtIssuer),
      clientId: text(S.oidcClientId),
      scopes: text(S.oidcScopes),
      endpointOrigins: text(S.oidcEndpointOrigins),
    },
    otlpEndpoint: checked(() => otlpEndpointOf(env)),
    escalation: checked(() => escalationOf(env)),
  };
}

/** Where the local service keeps large transcripts: an S3 endpoint, the embedded server beside the embedded store, or none. */
function transcriptsOf(
  s3Endpoint: string | undefined,
  bucket: string,
  { embeddedStore, env }: { embeddedStore: boolean; env: Environment },
): LocalSettings['transcripts'] {
  if (s3Endpoint !== undefined) return { bucket, endpoint: s3Endpoint, sdkEnvironment: env };
  return embeddedStore ? { bucket, embedded: true } : undefined;
}

/** `process.env` with `overrides` on top: what the demo and `handback start --port` start the service with. */
export function localEnvironment(overrides: Record<string, string>): Environment {
  return { ...process.env, ...overrides };
}

/** Whether `env` names a DynamoDB endpoint, so the embedded store (dynalite) is not needed. */
export function usesStoreEndpoint(env: Environment = process.env): boolean {
  return textOf(S.dynamodbEndpoint, env) !== undefined;
}

/**
 * The AWS SDK's nine-line notice that its releases after January 2027 need Node 22 would open every start; this is
 * AWS's documented switch for it (aws/aws-sdk-js-v3#7983), set unless the environment says otherwise (anything but
 * "true" shows the notice again).
 */
export function quietAwsSdk(): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}

/** A variable's value, trimmed; undefined when unset or empty. */
function textOf(setting: EnvSetting, env: Environment): string | undefined {
  const value = env[setting.env]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** `read()`, its error a `StartError` (prefixed with the variable, when `setting` names one). */
function checked<T>(read: () => T, setting?: EnvSetting): T {
  try {
    return read();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new StartError(setting === undefined ? message : `${setting.env}: ${message}`, { cause: error });
  }
}

/**
 * Who may call (§13, §16): `HANDBACK_JWT_ISSUER` with `HANDBACK_JWT_AUDIENCE` (tokens checked as API Gateway checks
 * them; the audiences bind `HANDBACK_JWT_SECRET`'s HS256 tokens too), `HANDBACK_OIDC_CLIENT_ID` (the inbox's client,
 * for its sign-in), `HANDBACK_REQUIRE_SCOPES` and `HANDBACK_GROUPS_CLAIM`. Settings that cannot work together are a
 * `StartError`.
 */
function localAuth(env: Environment, jwtSecret: string | undefined): LocalAuth {
  const issuer = textOf(S.jwtIssuer, env);
  const audiences = (textOf(S.jwtAudience, env) ?? '')
    .split(',')
    .map((audience) => audience.trim())
    .filter(Boolean);
  const clientId = textOf(S.oidcClientId, env);
  const requireScopes = textOf(S.requireScopes, env) ?? String(S.requireScopes.default);
  if (issuer !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(issuer);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      throw new StartError(`${S.jwtIssuer.env}=${issuer} is not a URL: set it to your OIDC issuer's URL (its iss).`);
    }
    if (audiences.length === 0) {
      throw new StartError(
        `${S.jwtIssuer.env} needs ${S.jwtAudience.env}: the audiences (comma-separated) a token must name in aud or client_id.`,
      );
    }
  }
  if (requireScopes !== 'true' && requireScopes !== 'false') {
    throw new StartError(`${S.requireScopes.env}=${requireScopes} must be true or false.`);
  }
  const anonymous = issuer === undefined && jwtSecret === undefined;
  if (requireScopes === 'true' && anonymous) {
    throw new StartError(
      `${S.requireScopes.env}=true needs tokens: set ${S.jwtIssuer.env} (and ${S.jwtAudience.env}) or ${S.jwtSecret.env}.`,
    );
  }
  return {
    ...(jwtSecret === undefined ? {} : { jwtSecret }),
    ...(issuer === undefined ? {} : { issuer }),
    audiences,
    ...(clientId === undefined ? {} : { clientId }),
    requireScopes: requireScopes === 'true',
    groupsClaim: textOf(S.groupsClaim, env) ?? S.groupsClaim.default,
    anonymous,
  };
}

/**
 * The channels (§14): Slack with `HANDBACK_SLACK_BOT_TOKEN` and `HANDBACK_SLACK_SIGNING_SECRET` (both, or neither),
 * at `HANDBACK_SLACK_API_URL`, defaulting to `HANDBACK_SLACK_CHANNEL`; email with `HANDBACK_SMTP_URL` from
 * `HANDBACK_EMAIL_FROM`, defaulting to `HANDBACK_EMAIL_TO` (it needs answer links: `HANDBACK_LINK_SECRET`).
 */
function channelSettings(env: Environment, withLinks: boolean): LocalChannelSettings {
  const settings: LocalChannelSettings = {};
  const token = env[S.slackBotToken.env];
  const secret = env[S.slackSigningSecret.env];
  if ((token === undefined) !== (secret === undefined)) {
    throw new StartError(`Slack needs both ${S.slackBotToken.env} and ${S.slackSigningSecret.env}, or neither.`);
  }
  if (token !== undefined && secret !== undefined) {
    settings.slack = {
      botToken: token,
      signingSecret: secret,
      apiUrl: textOf(S.slackApiUrl, env) ?? S.slackApiUrl.default,
      defaultChannels: checked(() => parseDefaults('slack', textOf(S.slackChannel, env)), S.slackChannel),
    };
  }
  const smtpUrl = textOf(S.smtpUrl, env);
  if (smtpUrl === undefined) return settings;
  checkSmtpUrl(smtpUrl);
  const from = textOf(S.emailFrom, env);
  if (from === undefined) throw new StartError(`Email by ${S.smtpUrl.env} needs ${S.emailFrom.env}.`);
  try {
    senderAddress(from);
  } catch (error) {
    throw new StartError(`${S.emailFrom.env} ${(error as Error).message}.`, { cause: error });
  }
  if (!withLinks) {
    throw new StartError(`Email carries each recipient’s own answer link: set ${S.linkSecret.env} too.`);
  }
  settings.email = {
    smtpUrl,
    from,
    defaultRecipients: checked(() => parseDefaults('email', textOf(S.emailTo, env)), S.emailTo),
  };
  return settings;
}

/** Refuses an SMTP URL nodemailer cannot use (it would fail at the first send, or at start with a message of its own). */
function checkSmtpUrl(url: string): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'smtp:' && protocol !== 'smtps:') {
    throw new StartError(
      `${S.smtpUrl.env} must be an smtp:// or smtps:// URL, such as smtp://127.0.0.1:1025 or smtps://user:password@host:465, not ${JSON.stringify(url.slice(0, 80))}.`,
    );
  }
}

function listeningPort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65535) {
    throw new StartError(
      `${S.port.env}=${value} is not a port number: set ${S.port.env} to one from 0 to 65535 (0 picks a free one).`,
    );
  }
  return port;
}
