import { HANDOFF_TARGETS, LIMITS, POLICY_DEFAULTS, POLICY_MODES } from './vocabulary.ts';

/**
 * Every setting of Handback, once: its environment variable (one name on Lambda and for `npm start`), who reads it,
 * its type, its default, and the CDK context key that sets it on AWS; what each does, what unset means and the stack
 * prop that sets it are its words in `settings-docs.ts`, apart so that no Lambda bundle carries them. Two loaders read
 * the environment, `functions/handlers/config.ts` on Lambda and `functions/local/config.ts` for `npm start`; the
 * stack's settings (`infra/settings.ts`) read the context keys; docs/local.md's and docs/deploy.md's tables are
 * generated from this one (`npm run docs:settings`). Adding a setting is a row here, its words there (the compiler
 * asks for them), and its use.
 *
 * Each row is an export of its own, so a Lambda bundle holds the rows its function reads and no other; `SETTINGS`
 * gathers them for the stack and the docs.
 */

/** Who reads a variable: `npm start` (`local`) or the Lambda functions (`lambda`). */
export type Reader = 'local' | 'lambda';

/** How a setting's text is read. */
export type SettingType = 'string' | 'secret' | 'url' | 'path' | 'integer' | 'boolean' | 'list' | 'words' | 'json';

/** One setting, as its readers read it. */
export interface Setting {
  /** The environment variable, one name wherever it is read; none for a setting only synthesis reads. */
  readonly env?: string;
  /** Who reads the variable. */
  readonly read?: readonly Reader[];
  /** How its text is read: a `list` is comma-separated, `words` one of `values`, `json` a JSON value. */
  readonly type: SettingType;
  /** The words it may be, for `words`. */
  readonly values?: readonly string[];
  /** Its value when unset. */
  readonly default?: string | number | boolean;
  /** The CDK context key that sets it on AWS (`cdk.json` or `-c key=value`). */
  readonly context?: `handback:${string}`;
  /** What sets the variable on Lambda: the stack (from its settings), or Lambda itself. */
  readonly setBy?: 'stack' | 'lambda';
}

const BOTH = ['local', 'lambda'] as const;
const LOCAL = ['local'] as const;
const LAMBDA = ['lambda'] as const;

// The local service: where it listens and what it keeps.

export const port = { env: 'PORT', read: LOCAL, type: 'integer', default: 3000 } as const;
export const host = { env: 'HOST', read: LOCAL, type: 'string', default: '127.0.0.1' } as const;
export const allowedHosts = { env: 'HANDBACK_ALLOWED_HOSTS', read: LOCAL, type: 'list' } as const;
export const dataDir = { env: 'HANDBACK_DATA_DIR', read: LOCAL, type: 'path' } as const;
export const dynamodbEndpoint = { env: 'DYNAMODB_ENDPOINT', read: BOTH, type: 'url' } as const;
export const tableName = {
  env: 'TABLE_NAME',
  read: BOTH,
  type: 'string',
  default: 'handback',
  setBy: 'stack',
} as const;

// Who may call (§13, §16).

export const jwtSecret = { env: 'HANDBACK_JWT_SECRET', read: LOCAL, type: 'secret' } as const;
export const jwtIssuer = {
  env: 'HANDBACK_JWT_ISSUER',
  read: BOTH,
  type: 'url',
  context: 'handback:jwtIssuer',
} as const;
export const jwtAudience = {
  env: 'HANDBACK_JWT_AUDIENCE',
  read: LOCAL,
  type: 'list',
  context: 'handback:jwtAudience',
} as const;
export const createUserPool = { type: 'boolean', context: 'handback:createUserPool' } as const;
export const groups = { type: 'list', context: 'handback:groups', default: 'approvers' } as const;
export const agentTenant = {
  env: 'AGENT_TENANT',
  read: LAMBDA,
  type: 'string',
  context: 'handback:agentTenant',
  default: LIMITS.defaultTenant,
  setBy: 'stack',
} as const;
export const signInDomainPrefix = { type: 'string', context: 'handback:signInDomainPrefix' } as const;
export const oidcClientId = { env: 'HANDBACK_OIDC_CLIENT_ID', read: BOTH, type: 'string', setBy: 'stack' } as const;
export const oidcScopes = {
  env: 'HANDBACK_OIDC_SCOPES',
  read: BOTH,
  type: 'string',
  default: 'openid email profile',
  setBy: 'stack',
} as const;
export const oidcEndpointOrigins = {
  env: 'HANDBACK_OIDC_ENDPOINT_ORIGINS',
  read: BOTH,
  type: 'string',
  setBy: 'stack',
} as const;
export const ownUserPoolIssuer = { env: 'OWN_USER_POOL_ISSUER', read: LAMBDA, type: 'url', setBy: 'stack' } as const;
export const requireScopes = {
  env: 'HANDBACK_REQUIRE_SCOPES',
  read: LOCAL,
  type: 'boolean',
  context: 'handback:requireScopes',
  default: false,
} as const;
export const tenantClaim = {
  env: 'TENANT_CLAIM',
  read: BOTH,
  type: 'string',
  context: 'handback:tenantClaim',
  default: 'tenant',
} as const;
export const groupsClaim = {
  env: 'HANDBACK_GROUPS_CLAIM',
  read: BOTH,
  type: 'string',
  context: 'handback:groupsClaim',
  default: 'cognito:groups',
} as const;
export const recipientDomains = {
  env: 'HANDBACK_RECIPIENT_DOMAINS',
  read: BOTH,
  type: 'list',
  context: 'handback:recipientDomains',
} as const;

// The hand-off (docs/triggers.md).

export const handoff = {
  env: 'HANDOFF_TARGET',
  read: BOTH,
  type: 'words',
  values: HANDOFF_TARGETS,
  context: 'handback:handoff',
} as const;
export const handoffQueueUrl = { env: 'HANDOFF_QUEUE_URL', read: BOTH, type: 'url', setBy: 'stack' } as const;
export const handoffEventBusName = {
  env: 'HANDOFF_EVENT_BUS_NAME',
  read: BOTH,
  type: 'string',
  context: 'handback:handoffEventBusName',
  default: 'default',
} as const;
export const handoffFunction = {
  env: 'HANDOFF_FUNCTION_NAME',
  read: BOTH,
  type: 'string',
  context: 'handback:handoffFunctionArn',
} as const;

// Answer links and the inbox (§11, §12).

export const linkSecret = { env: 'HANDBACK_LINK_SECRET', read: LOCAL, type: 'secret' } as const;
export const linkSecretArn = { env: 'LINK_SECRET_ARN', read: LAMBDA, type: 'string', setBy: 'stack' } as const;
export const inboxUrl = { env: 'HANDBACK_INBOX_URL', read: BOTH, type: 'url', context: 'handback:inboxUrl' } as const;

// Lifecycle events and the sweep (docs/triggers.md).

export const webhookUrl = { env: 'HANDBACK_WEBHOOK_URL', read: LOCAL, type: 'url' } as const;
export const eventBusName = {
  env: 'EVENT_BUS_NAME',
  read: LAMBDA,
  type: 'string',
  context: 'handback:eventBusName',
  setBy: 'stack',
} as const;
export const sweepIntervalMs = {
  env: 'HANDBACK_SWEEP_INTERVAL_MS',
  read: LOCAL,
  type: 'integer',
  default: 1000,
} as const;
export const retentionDays = {
  env: 'HANDBACK_RETENTION_DAYS',
  read: LAMBDA,
  type: 'integer',
  context: 'handback:retentionDays',
  default: 365,
} as const;

// MCP (§18).

export const mcpWaitSeconds = {
  env: 'HANDBACK_MCP_WAIT_SECONDS',
  read: BOTH,
  type: 'integer',
  default: LIMITS.mcpWaitSeconds.http,
} as const;

// The channels (§14, docs/channels.md).

export const channels = { env: 'HANDBACK_CHANNELS', read: LAMBDA, type: 'list', setBy: 'stack' } as const;
export const slackBotToken = { env: 'HANDBACK_SLACK_BOT_TOKEN', read: LOCAL, type: 'secret' } as const;
export const slackSigningSecret = { env: 'HANDBACK_SLACK_SIGNING_SECRET', read: LOCAL, type: 'secret' } as const;
export const slackSecretName = {
  env: 'SLACK_SECRET_ID',
  read: LAMBDA,
  type: 'string',
  context: 'handback:slackSecretName',
  setBy: 'stack',
} as const;
export const slackChannel = {
  env: 'HANDBACK_SLACK_CHANNEL',
  read: BOTH,
  type: 'list',
  context: 'handback:slackChannel',
} as const;
export const slackApiUrl = {
  env: 'HANDBACK_SLACK_API_URL',
  read: BOTH,
  type: 'url',
  default: 'https://slack.com/api/',
} as const;
export const smtpUrl = { env: 'HANDBACK_SMTP_URL', read: LOCAL, type: 'url' } as const;
export const emailFrom = {
  env: 'HANDBACK_EMAIL_FROM',
  read: BOTH,
  type: 'string',
  context: 'handback:emailFrom',
} as const;
export const emailIdentity = { type: 'string', context: 'handback:emailIdentity' } as const;
export const emailRegion = {
  env: 'SES_REGION',
  read: LAMBDA,
  type: 'string',
  context: 'handback:emailRegion',
} as const;
export const emailTo = { env: 'HANDBACK_EMAIL_TO', read: BOTH, type: 'list', context: 'handback:emailTo' } as const;
export const emailSandbox = { type: 'boolean', context: 'handback:emailSandbox', default: true } as const;
export const emailConfigurationSet = {
  env: 'SES_CONFIGURATION_SET',
  read: LAMBDA,
  type: 'string',
  context: 'handback:emailConfigurationSet',
} as const;

// The deployment's Cedar policies (§17, docs/policies.md).

export const policies = { env: 'HANDBACK_POLICIES', read: BOTH, type: 'path', context: 'handback:policies' } as const;
export const policySchema = {
  env: 'HANDBACK_POLICY_SCHEMA',
  read: BOTH,
  type: 'path',
  context: 'handback:policySchema',
} as const;
export const policyMode = {
  env: 'HANDBACK_POLICY_MODE',
  read: BOTH,
  type: 'words',
  values: POLICY_MODES,
  context: 'handback:policyMode',
  default: 'enforce',
} as const;
export const policyDefault = {
  env: 'HANDBACK_POLICY_DEFAULT',
  read: BOTH,
  type: 'words',
  values: POLICY_DEFAULTS,
  context: 'handback:policyDefault',
  default: 'ask',
} as const;
// §19: the policies' clock and version.
export const policyTimeZone = {
  env: 'HANDBACK_POLICY_TIMEZONE',
  read: BOTH,
  type: 'string',
  context: 'handback:policyTimeZone',
  default: 'UTC',
} as const;
export const policyVersion = {
  env: 'HANDBACK_POLICY_VERSION',
  read: BOTH,
  type: 'string',
  context: 'handback:policyVersion',
} as const;
// §21 escalation
export const escalation = {
  env: 'HANDBACK_ESCALATION',
  read: BOTH,
  type: 'string',
  context: 'handback:escalation',
} as const;
export const cedarSchema = { env: 'HANDBACK_CEDAR_SCHEMA', read: LAMBDA, type: 'path', setBy: 'stack' } as const;
export const cedarWasm = { env: 'HANDBACK_CEDAR_WASM', read: LAMBDA, type: 'path', setBy: 'stack' } as const;

// §20: persons known to a directory (docs/identities.md).

export const directory = {
  env: 'HANDBACK_DIRECTORY',
  read: BOTH,
  type: 'path',
  context: 'handback:directory',
} as const;
// §20 SCIM: provisioning from an identity provider (docs/identities.md).
export const scimToken = { env: 'HANDBACK_SCIM_TOKEN', read: LOCAL, type: 'secret' } as const;
export const scim = { type: 'string', context: 'handback:scim' } as const;
export const scimSecretArn = { env: 'SCIM_SECRET_ARN', read: LAMBDA, type: 'string', setBy: 'stack' } as const;
export const scimTenant = {
  env: 'HANDBACK_SCIM_TENANT',
  read: BOTH,
  type: 'string',
  default: LIMITS.defaultTenant,
  setBy: 'stack',
} as const;

// Logs, metrics and traces.

export const logLevel = {
  env: 'LOG_LEVEL',
  read: LOCAL,
  type: 'words',
  values: ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'],
  default: 'INFO',
} as const;
export const powertoolsLogLevel = {
  env: 'POWERTOOLS_LOG_LEVEL',
  read: LAMBDA,
  type: 'string',
  default: 'INFO',
  setBy: 'stack',
} as const;
export const metricsNamespace = {
  env: 'POWERTOOLS_METRICS_NAMESPACE',
  read: LAMBDA,
  type: 'string',
  default: 'Handback',
  setBy: 'stack',
} as const;
export const metricsDisabled = { env: 'POWERTOOLS_METRICS_DISABLED', read: BOTH, type: 'boolean' } as const;
export const traceEnabled = { env: 'POWERTOOLS_TRACE_ENABLED', read: LAMBDA, type: 'boolean', default: true } as const;
// §21 traces
export const otlpEndpoint = {
  env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
  read: BOTH,
  type: 'url',
  context: 'handback:otlpEndpoint',
} as const;

// What Lambda itself sets: read, never set by you or the stack.

export const lambdaFunctionName = {
  env: 'AWS_LAMBDA_FUNCTION_NAME',
  read: LAMBDA,
  type: 'string',
  setBy: 'lambda',
} as const;
export const lambdaLogLevel = { env: 'AWS_LAMBDA_LOG_LEVEL', read: LAMBDA, type: 'string', setBy: 'lambda' } as const;
export const lambdaInitializationType = {
  env: 'AWS_LAMBDA_INITIALIZATION_TYPE',
  read: LAMBDA,
  type: 'string',
  setBy: 'lambda',
} as const;
export const traceHeader = { env: '_X_AMZN_TRACE_ID', read: LAMBDA, type: 'string', setBy: 'lambda' } as const;
export const xrayDaemonAddress = {
  env: 'AWS_XRAY_DAEMON_ADDRESS',
  read: LAMBDA,
  type: 'string',
  default: '127.0.0.1:2000',
  setBy: 'lambda',
} as const;
export const taskRoot = { env: 'LAMBDA_TASK_ROOT', read: LAMBDA, type: 'path', setBy: 'lambda' } as const;
export const awsRegion = { env: 'AWS_REGION', read: LOCAL, type: 'string' } as const;

// The stack alone (`infra/settings.ts`).

export const stackName = { type: 'string', context: 'handback:stackName', default: 'Handback' } as const;
export const exampleAgent = {
  type: 'words',
  values: ['workflow', 'durable'],
  context: 'handback:exampleAgent',
  default: 'workflow',
} as const;
export const exampleAgentTenant = {
  type: 'string',
  context: 'handback:exampleAgentTenant',
  default: LIMITS.defaultTenant,
} as const;
export const resumeRequestsVia = {
  type: 'words',
  values: ['queue', 'function'],
  context: 'handback:resumeRequestsVia',
  default: 'queue',
} as const;
export const eventSource = { type: 'string', context: 'handback:eventSource', default: 'handback' } as const;
export const resumeEventPrincipals = { type: 'list', context: 'handback:resumeEventPrincipals' } as const;
export const notifyEmail = { type: 'string', context: 'handback:notifyEmail' } as const;
export const pauseExpirySeconds = {
  type: 'integer',
  context: 'handback:pauseExpirySeconds',
  default: LIMITS.expiresInSeconds.default,
} as const;
export const logRetentionDays = { type: 'integer', context: 'handback:logRetentionDays', default: 30 } as const;
export const kmsKeyArn = { type: 'string', context: 'handback:kmsKeyArn' } as const;
export const alarmTopicArn = { type: 'string', context: 'handback:alarmTopicArn' } as const;
export const removalPolicy = {
  type: 'words',
  values: ['retain', 'destroy'],
  context: 'handback:removalPolicy',
  default: 'retain',
} as const;

// §23: transcripts in S3, and backups.

export const transcriptBucket = {
  env: 'TRANSCRIPT_BUCKET',
  read: BOTH,
  type: 'string',
  default: 'handback-transcripts',
  setBy: 'stack',
} as const;
export const s3Endpoint = { env: 'HANDBACK_S3_ENDPOINT', read: BOTH, type: 'url' } as const;
export const backup = { type: 'boolean', context: 'handback:backup', default: false } as const;
/** The table's class: `standard-ia` by `npm run bench -- cost` (a year of retention makes storage most of the bill). */
export const tableClass = {
  type: 'words',
  values: ['standard-ia', 'standard'],
  context: 'handback:tableClass',
  default: 'standard-ia',
} as const;

// §23: throughput the operator sets (`infra/throttles.ts`).

export const throttles = { type: 'json', context: 'handback:throttles' } as const;
export const mcpConcurrency = { type: 'integer', context: 'handback:mcpConcurrency', default: 50 } as const;

// §21: how decisions are going.

export const pendingAlarmMinutes = {
  type: 'integer',
  context: 'handback:pendingAlarmMinutes',
  default: 1440,
} as const;

/** Every setting, by name, in the order the docs list them. */
export const SETTINGS = {
  port,
  host,
  allowedHosts,
  dataDir,
  dynamodbEndpoint,
  tableName,
  jwtSecret,
  jwtIssuer,
  jwtAudience,
  createUserPool,
  groups,
  agentTenant,
  signInDomainPrefix,
  oidcClientId,
  oidcScopes,
  oidcEndpointOrigins,
  ownUserPoolIssuer,
  requireScopes,
  tenantClaim,
  groupsClaim,
  recipientDomains,
  handoff,
  handoffQueueUrl,
  handoffEventBusName,
  handoffFunction,
  linkSecret,
  linkSecretArn,
  inboxUrl,
  webhookUrl,
  eventBusName,
  sweepIntervalMs,
  retentionDays,
  mcpWaitSeconds,
  channels,
  slackBotToken,
  slackSigningSecret,
  slackSecretName,
  slackChannel,
  slackApiUrl,
  smtpUrl,
  emailFrom,
  emailIdentity,
  emailRegion,
  emailTo,
  emailSandbox,
  emailConfigurationSet,
  policies,
  policySchema,
  policyMode,
  policyDefault,
  policyTimeZone,
  policyVersion,
  escalation,
  cedarSchema,
  cedarWasm,
  // §20
  directory,
  // §20 SCIM
  scimToken,
  scim,
  scimSecretArn,
  scimTenant,
  logLevel,
  powertoolsLogLevel,
  metricsNamespace,
  metricsDisabled,
  traceEnabled,
  otlpEndpoint,
  lambdaFunctionName,
  lambdaLogLevel,
  lambdaInitializationType,
  traceHeader,
  xrayDaemonAddress,
  taskRoot,
  awsRegion,
  stackName,
  exampleAgent,
  exampleAgentTenant,
  resumeRequestsVia,
  eventSource,
  resumeEventPrincipals,
  notifyEmail,
  pauseExpirySeconds,
  logRetentionDays,
  kmsKeyArn,
  alarmTopicArn,
  removalPolicy,
  // §23
  transcriptBucket,
  s3Endpoint,
  backup,
  tableClass,
  throttles,
  mcpConcurrency,
  pendingAlarmMinutes,
} as const satisfies Record<string, Setting>;

/** A setting's name in `SETTINGS`. */
export type SettingName = keyof typeof SETTINGS;

/** The names of the settings a context key sets, each to its key: `CONTEXT.jwtIssuer` is `handback:jwtIssuer`. */
export type ContextKeys = {
  [K in SettingName as (typeof SETTINGS)[K] extends { context: string } ? K : never]: (typeof SETTINGS)[K] extends {
    context: infer C;
  }
    ? C
    : never;
};

/**
 * What a Lambda bundle was built for, as esbuild `define`s (`infra/lambda-bundle.ts`) replace them at bundling: read
 * as `(globalThis as BundleDefines).NAME` at each use, so that each comparison folds to a constant there and the code
 * it guards is left out of the bundle. Unbundled (tests, `npm start`, a library user) both are undefined.
 */
export interface BundleDefines {
  /** The hand-off target the bundle carries a client for. */
  HANDBACK_BUNDLED_HANDOFF_TARGET?: (typeof HANDOFF_TARGETS)[number];
  /** Whether the bundle carries the policy engine (§17): `'false'` leaves it out. */
  HANDBACK_BUNDLED_POLICIES?: 'true' | 'false';
}
