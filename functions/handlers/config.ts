/**
 * The Lambda functions' one reader of the environment: each setting by its row of `functions/settings.ts`, at cold
 * start, failing fast (a missing or invalid variable stops the function at init with a message naming it, never at
 * the first request), and what Lambda itself tells a function (its trace header, its log-level control), read when
 * asked. Every other module of a function receives typed values from here.
 */

import { parseRecipientDomains } from '../checkpoints/recipient-domains.ts';
import type { HandoffConfig } from '../handoff/handoff.ts';
import type { InboxSignIn } from '../inbox/assets.ts';
import { type PolicySettings, policySettingsFrom } from '../policies/config.ts';
import type { PolicyFiles } from '../policies/engine-files.ts';
import { type LadderLevel, ladderSetting } from '../policies/ladder.ts';
import type { Setting } from '../settings.ts';
import * as S from '../settings.ts';
import { HANDOFF_TARGETS, isOneOf } from '../vocabulary.ts';

export type { HandoffConfig };

/** The variables a reader reads: the process's, or those a test gives. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** A setting that has a variable. */
export type EnvSetting = Setting & { readonly env: string };

/** Everything the functions that read and write pauses read from the environment. */
export interface Config {
  /** The checkpoint table. */
  tableName: string;
  /** The JWT claim that names the tenant. */
  tenantClaim: string;
  /** The JWT claim holding a principal's groups. */
  groupsClaim: string;
  /** Another DynamoDB endpoint (DynamoDB Local, the embedded store); undefined = AWS. */
  dynamodbEndpoint: string | undefined;
  /** The bucket transcripts over 64 KB go to (§23). */
  transcriptBucket: string;
  /** Another S3 endpoint for it (an S3-compatible server); undefined = S3. */
  s3Endpoint: string | undefined;
  /** The hand-off target and what it needs. */
  handoff: HandoffConfig;
  /** The inbox page's public URL, for answer links; undefined = the API's own `/inbox` (from the request). */
  inboxUrl: string | undefined;
  /** The Secrets Manager secret holding the answer-link key; undefined = no answer links. */
  linkSecretArn: string | undefined;
  /** Where an agent may name approvers and email recipients by address (§16); empty = nowhere. */
  recipientDomains: string[];
  /** The stack's own Cognito pool, whose access tokens carry only verified emails (§16). */
  verifiedEmailIssuer: string | undefined;
  /** How long a pause and its audit trail are kept after it expires, in seconds; undefined = the store's default. */
  retentionSeconds: number | undefined;
  /** The deployment's Cedar policies (§17), bundled with the functions that pause; undefined = none, no Cedar. */
  policies: PolicySettings | undefined;
  /** Where the bundled policy engine's own files are (Handback's schema, Cedar's WebAssembly). */
  policyFiles: PolicyFiles;
  /** The OTLP/HTTP endpoint spans are exported to (§21); undefined = none, and no tracing code is loaded. */
  otlpEndpoint: string | undefined;
  /** The directory file of persons (§20), bundled with the functions that decide; undefined = none. */
  directory: string | undefined;
  // §20 SCIM
  /** The Secrets Manager secret of SCIM's bearer secret and the tenant SCIM provisions; undefined = no `/scim/v2`. */
  scim: { secretArn: string; tenant: string } | undefined;
  // §21 escalation
  /** The escalation ladder of asks no policy escalates (`HANDBACK_ESCALATION`); undefined = none. */
  escalation: LadderLevel[] | undefined;
}

/** A setting's text: its variable trimmed, else its default; undefined when neither (an empty variable is unset). */
export function settingOf(setting: EnvSetting, env: Environment = process.env): string | undefined {
  const value = env[setting.env]?.trim();
  if (value !== undefined && value !== '') return value;
  return setting.default === undefined ? undefined : String(setting.default);
}

/** A setting's text, which this function cannot run without: unset, it throws naming the variable. */
export function requiredSetting(setting: EnvSetting, env: Environment = process.env): string {
  const value = env[setting.env]?.trim();
  if (value === undefined || value === '') {
    throw new Error(`Environment variable ${setting.env} is not set: set it in the function's configuration.`);
  }
  return value;
}

/** A `list` setting's entries, checked by `parse` (which throws on a bad entry); an error names the variable. */
export function listSetting<T>(
  setting: EnvSetting,
  parse: (text: string | undefined) => T,
  env: Environment = process.env,
): T {
  try {
    return parse(settingOf(setting, env));
  } catch (error) {
    throw new Error(`Environment variable ${setting.env}: ${(error as Error).message}`, { cause: error });
  }
}

/** A `boolean` setting: `true`, `1`, `yes`, `on` (any case) and their opposites; undefined when unset. */
export function booleanSetting(setting: EnvSetting, env: Environment = process.env): boolean | undefined {
  const text = settingOf(setting, env)?.toLowerCase();
  if (text === undefined) return undefined;
  if (['1', 'y', 'yes', 't', 'true', 'on'].includes(text)) return true;
  if (['0', 'n', 'no', 'f', 'false', 'off'].includes(text)) return false;
  throw new Error(`Environment variable ${setting.env} is ${JSON.stringify(text)}: use true or false.`);
}

/**
 * `HANDBACK_RETENTION_DAYS` in seconds: how long a pause's items (its decisions, votes and who made them) are kept
 * after its `expiresAt` before DynamoDB's TTL may delete them; unset = the store's default (30 days).
 */
export function retentionSecondsOf(env: Environment = process.env): number | undefined {
  const days = env[S.retentionDays.env]?.trim();
  if (days === undefined || days === '') return undefined;
  if (!/^\d{1,5}$/.test(days) || Number(days) < 1) {
    throw new Error(
      `Environment variable ${S.retentionDays.env} is ${JSON.stringify(days)}: a whole number of days (at least 1) a pause is kept after it expires.`,
    );
  }
  return Number(days) * 24 * 60 * 60;
}

/** The hand-off configuration: `HANDOFF_TARGET` (default `none`) and, for each target, the variable it needs. */
export function loadHandoffConfig(env: Environment = process.env): HandoffConfig {
  const target = env[S.handoff.env]?.trim() || 'none';
  if (!isOneOf(HANDOFF_TARGETS, target)) {
    throw new Error(
      `Environment variable ${S.handoff.env} is ${JSON.stringify(target)}: use one of ${HANDOFF_TARGETS.join(', ')}.`,
    );
  }
  switch (target) {
    case 'sqs':
      return { target, queueUrl: requiredSetting(S.handoffQueueUrl, env) };
    case 'eventbridge':
      return { target, eventBusName: requiredSetting(S.handoffEventBusName, env) };
    case 'lambda':
      return { target, functionName: requiredSetting(S.handoffFunction, env) };
    case 'none':
      return { target };
  }
}

/** The deployment's policies (§17, §19), or undefined when no policy file is named; a bad setting names its variable. */
export function policySettingsOf(env: Environment = process.env): PolicySettings | undefined {
  const text = (setting: EnvSetting) => env[setting.env]?.trim() || undefined;
  return policySettingsFrom(
    {
      policies: text(S.policies),
      schema: text(S.policySchema),
      mode: text(S.policyMode),
      default: text(S.policyDefault),
      timeZone: text(S.policyTimeZone),
      version: text(S.policyVersion),
    },
    {
      policies: S.policies.env,
      schema: S.policySchema.env,
      mode: S.policyMode.env,
      default: S.policyDefault.env,
      timeZone: S.policyTimeZone.env,
      version: S.policyVersion.env,
    },
  );
}

/** Where the policy engine's own files are: the function's copies (`infra/policies.ts`), relative to its code. */
export function policyFilesOf(env: Environment = process.env): PolicyFiles {
  const files: PolicyFiles = {};
  const schema = settingOf(S.cedarSchema, env);
  const wasm = settingOf(S.cedarWasm, env);
  const root = settingOf(S.taskRoot, env);
  if (schema !== undefined) files.schema = schema;
  if (wasm !== undefined) files.wasm = wasm;
  if (root !== undefined) files.root = root;
  return files;
}

/** The whole configuration of the functions that read and write pauses; throws at the first missing or invalid one. */
export function loadConfig(env: Environment = process.env): Config {
  return {
    tableName: requiredSetting(S.tableName, env),
    tenantClaim: settingOf(S.tenantClaim, env) as string,
    groupsClaim: settingOf(S.groupsClaim, env) as string,
    dynamodbEndpoint: settingOf(S.dynamodbEndpoint, env),
    transcriptBucket: settingOf(S.transcriptBucket, env) as string,
    s3Endpoint: settingOf(S.s3Endpoint, env),
    handoff: loadHandoffConfig(env),
    inboxUrl: settingOf(S.inboxUrl, env),
    linkSecretArn: settingOf(S.linkSecretArn, env),
    recipientDomains: listSetting(S.recipientDomains, parseRecipientDomains, env),
    verifiedEmailIssuer: settingOf(S.ownUserPoolIssuer, env),
    retentionSeconds: retentionSecondsOf(env),
    policies: policySettingsOf(env),
    policyFiles: policyFilesOf(env),
    otlpEndpoint: otlpEndpointOf(env),
    directory: settingOf(S.directory, env),
    scim: scimOf(env),
    escalation: escalationOf(env),
  };
}

/** `OTEL_EXPORTER_OTLP_ENDPOINT` (§21): an http(s) base URL, or undefined when unset; anything else names the variable. */
/** SCIM's secret and tenant (§20), when the stack made the secret; with a directory file too, the config is refused. */
function scimOf(env: Environment): Config['scim'] {
  const secretArn = settingOf(S.scimSecretArn, env);
  if (secretArn === undefined) return undefined;
  if (settingOf(S.directory, env) !== undefined) {
    throw new Error(
      `${S.directory.env} and ${S.scimSecretArn.env} are both set: the directory is one source at a time, a file or SCIM's table.`,
    );
  }
  return { secretArn, tenant: settingOf(S.scimTenant, env) as string };
}

/** The default escalation ladder (§21, `HANDBACK_ESCALATION`), or undefined; a bad one names the variable. */
export function escalationOf(env: Environment = process.env): LadderLevel[] | undefined {
  return ladderSetting(settingOf(S.escalation, env), `Environment variable ${S.escalation.env}`);
}

export function otlpEndpointOf(env: Environment = process.env): string | undefined {
  const text = settingOf(S.otlpEndpoint, env);
  if (text === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new Error(
      `Environment variable ${S.otlpEndpoint.env} is ${JSON.stringify(text)}: use the OTLP/HTTP base URL, e.g. http://localhost:4318.`,
    );
  }
  return text;
}

/** How people sign in to the inbox page: the user pool the stack made, or none (`HANDBACK_JWT_ISSUER`, …). */
export function inboxSignIn(env: Environment = process.env): InboxSignIn {
  return {
    issuer: settingOf(S.jwtIssuer, env),
    clientId: settingOf(S.oidcClientId, env),
    scopes: settingOf(S.oidcScopes, env),
    endpointOrigins: settingOf(S.oidcEndpointOrigins, env),
  };
}

/**
 * What Lambda itself tells a function, from `env` (the process's) and read when asked (the trace header changes with
 * every invocation): its name (set on Lambda only), its log-level control, how its container started, the
 * invocation's X-Ray trace header and the daemon's address, and what the stack sets for the logs and metrics.
 */
export function lambdaRuntimeOf(env: Environment = process.env) {
  return {
    /** Whether this process is a Lambda function. */
    onLambda: (): boolean => settingOf(S.lambdaFunctionName, env) !== undefined,
    /** Lambda's application log-level control (`AWS_LAMBDA_LOG_LEVEL`). */
    logLevel: (): string | undefined => settingOf(S.lambdaLogLevel, env),
    /** The level the stack configures (`POWERTOOLS_LOG_LEVEL`). */
    configuredLogLevel: (): string | undefined => settingOf(S.powertoolsLogLevel, env),
    /** How the container started (`AWS_LAMBDA_INITIALIZATION_TYPE`). */
    initializationType: (): string | undefined => settingOf(S.lambdaInitializationType, env),
    /** The current invocation's X-Ray trace header (`_X_AMZN_TRACE_ID`). */
    traceHeader: (): string | undefined => settingOf(S.traceHeader, env),
    /** The X-Ray daemon's address (`AWS_XRAY_DAEMON_ADDRESS`). */
    xrayDaemonAddress: (): string | undefined => settingOf(S.xrayDaemonAddress, env),
    /** Whether X-Ray subsegments are sent (`POWERTOOLS_TRACE_ENABLED`, default true). */
    tracingEnabled: (): boolean => booleanSetting(S.traceEnabled, env) !== false,
    /** The metrics' namespace (`POWERTOOLS_METRICS_NAMESPACE`). */
    metricsNamespace: (): string => settingOf(S.metricsNamespace, env) as string,
    /** Whether metrics are off (`POWERTOOLS_METRICS_DISABLED`); on by default on Lambda. */
    metricsDisabled: (): boolean => booleanSetting(S.metricsDisabled, env) === true,
  };
}

/** What Lambda tells this function (`lambdaRuntimeOf` the process's environment). */
export const lambdaRuntime = /* @__PURE__ */ lambdaRuntimeOf();
