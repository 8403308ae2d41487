import * as Aws from './settings-aws.ts';
import * as Channels from './settings-channels.ts';
import * as Core from './settings-core.ts';
import * as Identity from './settings-identity.ts';
import * as Policies from './settings-policies.ts';
import * as Telemetry from './settings-telemetry.ts';
import type { HANDOFF_TARGETS } from './vocabulary.ts';

export * from './settings-aws.ts';
export * from './settings-channels.ts';
export * from './settings-core.ts';
export * from './settings-identity.ts';
export * from './settings-policies.ts';
export * from './settings-telemetry.ts';

/**
 * Every setting of Handback, once: its environment variable (one name on Lambda and for `npm start`), who reads it,
 * its type, its default, and the CDK context key that sets it on AWS; what each does, what unset means and the stack
 * prop that sets it are its words in `settings-docs.ts`, apart so that no Lambda bundle carries them. Two loaders read
 * the environment, `functions/handlers/config.ts` on Lambda and `functions/local/config.ts` for `npm start`; the
 * stack's settings (`infra/settings.ts`) read the context keys; docs/local.md's and docs/deploy.md's tables are
 * generated from this one (`npm run docs:settings`).
 *
 * The rows live by section in the settings-*.ts modules, each row an export of its own (re-exported here), so that a
 * Lambda bundle holds the rows its function reads and no other; `SETTINGS` gathers them, by name, for the stack and
 * the docs. Adding a setting is a row in its section's module, its name in `SETTINGS` (the compiler asks for it), its
 * words in `settings-docs.ts` (the compiler asks for them), and its use.
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

/** Every row the settings-*.ts modules export, by its name. */
type Rows = typeof Aws & typeof Channels & typeof Core & typeof Identity & typeof Policies & typeof Telemetry;

/**
 * Every setting, by name, in the order the docs list them: every row the settings-*.ts modules export, and only those,
 * each under its own name, or this fails to compile. Named one by one rather than spread from the modules' sections,
 * which esbuild would keep, whole, in every Lambda bundle.
 */
export const SETTINGS = {
  // settings-core.ts: the local service, where it listens and what it keeps.
  port: Core.port,
  host: Core.host,
  allowedHosts: Core.allowedHosts,
  dataDir: Core.dataDir,
  dynamodbEndpoint: Core.dynamodbEndpoint,
  tableName: Core.tableName,
  // settings-identity.ts: who may call (§13, §16).
  jwtSecret: Identity.jwtSecret,
  jwtIssuer: Identity.jwtIssuer,
  jwtAudience: Identity.jwtAudience,
  createUserPool: Identity.createUserPool,
  groups: Identity.groups,
  agentTenant: Identity.agentTenant,
  signInDomainPrefix: Identity.signInDomainPrefix,
  oidcClientId: Identity.oidcClientId,
  oidcScopes: Identity.oidcScopes,
  oidcEndpointOrigins: Identity.oidcEndpointOrigins,
  ownUserPoolIssuer: Identity.ownUserPoolIssuer,
  requireScopes: Identity.requireScopes,
  tenantClaim: Identity.tenantClaim,
  groupsClaim: Identity.groupsClaim,
  recipientDomains: Identity.recipientDomains,
  // settings-core.ts: the hand-off, answer links and the inbox, lifecycle events and the sweep, MCP.
  handoff: Core.handoff,
  handoffQueueUrl: Core.handoffQueueUrl,
  handoffEventBusName: Core.handoffEventBusName,
  handoffFunction: Core.handoffFunction,
  linkSecret: Core.linkSecret,
  linkSecretArn: Core.linkSecretArn,
  inboxUrl: Core.inboxUrl,
  webhookUrl: Core.webhookUrl,
  eventBusName: Core.eventBusName,
  sweepIntervalMs: Core.sweepIntervalMs,
  retentionDays: Core.retentionDays,
  mcpWaitSeconds: Core.mcpWaitSeconds,
  // settings-channels.ts: the channels (§14).
  channels: Channels.channels,
  slackBotToken: Channels.slackBotToken,
  slackSigningSecret: Channels.slackSigningSecret,
  slackSecretName: Channels.slackSecretName,
  slackChannel: Channels.slackChannel,
  slackApiUrl: Channels.slackApiUrl,
  smtpUrl: Channels.smtpUrl,
  emailFrom: Channels.emailFrom,
  emailIdentity: Channels.emailIdentity,
  emailRegion: Channels.emailRegion,
  emailTo: Channels.emailTo,
  emailSandbox: Channels.emailSandbox,
  emailConfigurationSet: Channels.emailConfigurationSet,
  // settings-policies.ts: the deployment's Cedar policies (§17), their clock and version (§19), escalation (§21).
  policies: Policies.policies,
  policySchema: Policies.policySchema,
  policyMode: Policies.policyMode,
  policyDefault: Policies.policyDefault,
  policyTimeZone: Policies.policyTimeZone,
  policyVersion: Policies.policyVersion,
  escalation: Policies.escalation,
  cedarSchema: Policies.cedarSchema,
  cedarWasm: Policies.cedarWasm,
  // settings-identity.ts: the persons a directory knows, and SCIM (§20).
  directory: Identity.directory,
  scimToken: Identity.scimToken,
  scim: Identity.scim,
  scimSecretArn: Identity.scimSecretArn,
  scimTenant: Identity.scimTenant,
  // settings-telemetry.ts: logs, metrics and traces.
  logLevel: Telemetry.logLevel,
  powertoolsLogLevel: Telemetry.powertoolsLogLevel,
  metricsNamespace: Telemetry.metricsNamespace,
  metricsDisabled: Telemetry.metricsDisabled,
  traceEnabled: Telemetry.traceEnabled,
  otlpEndpoint: Telemetry.otlpEndpoint,
  // settings-aws.ts: what Lambda itself sets, then the stack alone.
  lambdaFunctionName: Aws.lambdaFunctionName,
  lambdaLogLevel: Aws.lambdaLogLevel,
  lambdaInitializationType: Aws.lambdaInitializationType,
  traceHeader: Aws.traceHeader,
  xrayDaemonAddress: Aws.xrayDaemonAddress,
  taskRoot: Aws.taskRoot,
  awsRegion: Aws.awsRegion,
  stackName: Aws.stackName,
  exampleAgent: Aws.exampleAgent,
  exampleAgentTenant: Aws.exampleAgentTenant,
  resumeRequestsVia: Aws.resumeRequestsVia,
  eventSource: Aws.eventSource,
  resumeEventPrincipals: Aws.resumeEventPrincipals,
  notifyEmail: Aws.notifyEmail,
  pauseExpirySeconds: Aws.pauseExpirySeconds,
  logRetentionDays: Aws.logRetentionDays,
  kmsKeyArn: Aws.kmsKeyArn,
  alarmTopicArn: Aws.alarmTopicArn,
  removalPolicy: Aws.removalPolicy,
  // settings-core.ts: transcripts in S3, and backups (§23).
  transcriptBucket: Core.transcriptBucket,
  s3Endpoint: Core.s3Endpoint,
  backup: Core.backup,
  tableClass: Core.tableClass,
  // settings-aws.ts: throughput the operator sets (§23), and how decisions are going (§21).
  throttles: Aws.throttles,
  mcpConcurrency: Aws.mcpConcurrency,
  pendingAlarmMinutes: Aws.pendingAlarmMinutes,
} as const satisfies Rows & Record<string, Setting>;

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
