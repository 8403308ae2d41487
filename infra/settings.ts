import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { EventBus, type IEventBus } from 'aws-cdk-lib/aws-events';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { parseRecipientDomains } from '../functions/checkpoints/recipients.ts';
import { tenant as tenantField } from '../functions/fields.ts';
import { ladderSetting } from '../functions/policies/ladder.ts';
import * as S from '../functions/settings.ts';
import { LIMITS } from '../functions/vocabulary.ts';
import * as z from '../functions/zod.ts';
import { type AuthSettings, resolveAuth } from './auth-settings.ts';
import {
  CONTEXT,
  ConfigurationError,
  contextBoolean,
  contextInteger,
  contextList,
  contextString,
  contextWord,
  oneOf,
} from './context.ts';
import { type DirectoryBundle, directoryBundleOf } from './directory.ts';
import type { HandoffTargetProps } from './handoff.ts';
import { type PolicyBundle, policyBundleOf } from './policies.ts';
import type { HandbackStackProps } from './stack-props.ts';
import { resolveThrottles, type Throttle, type ThrottleGroup } from './throttles.ts';

/**
 * Every setting of the stack, resolved: a prop, else its context key (`functions/settings.ts` names each), else the
 * documented default; a setting that cannot work is a `ConfigurationError` naming what to set. The props are
 * `stack-props.ts`, the context's reading `context.ts`, who signs the tokens `auth-settings.ts` and the channels
 * `channel-settings.ts`.
 */

export {
  type AuthSettings,
  DEFAULT_AGENT_TENANT,
  DEFAULT_GROUPS,
  PLACEHOLDER_ISSUER,
  type UserPoolSettings,
} from './auth-settings.ts';
export { type ChannelSettings, resolveChannelSettings } from './channel-settings.ts';
export { CONTEXT, ConfigurationError } from './context.ts';
export type { HandbackStackProps } from './stack-props.ts';

/** Every setting of the stack, resolved: props first, then context, then the documented default. */
export interface Settings {
  auth: AuthSettings;
  tenantClaim: string;
  handoff: HandoffTargetProps;
  logRetention: RetentionDays;
  encryptionKey: HandbackStackProps['encryptionKey'];
  alarmTopic: HandbackStackProps['alarmTopic'];
  pauseExpiry: Duration;
  /** The example agent the stack offers: the workflow's Lambda step, or a durable function (`handback/durable`). */
  exampleAgent: 'workflow' | 'durable';
  eventSource: string;
  removalPolicy: RemovalPolicy;
  resumeRequestsVia: 'queue' | 'function';
  /** The bus lifecycle events go to; undefined = the stack creates its own. */
  eventBus: IEventBus | undefined;
  /** An address the `Pause Created` topic mails; undefined = no subscription. */
  notifyEmail: string | undefined;
  /** The inbox page's public URL for answer links; undefined = the HTTP API's own `/inbox`. */
  inboxUrl: string | undefined;
  /** Bearer routes carry the route table's `AuthorizationScopes` (§13): with a user pool the stack creates, or on request. */
  requireScopes: boolean;
  /** The claim holding a principal's groups. */
  groupsClaim: string;
  /**
   * The recipient domains (§16): an agent names approvers by email, and email recipients, only inside them; every
   * function that pauses or sends gets them (`HANDBACK_RECIPIENT_DOMAINS`). Empty: none.
   */
  recipientDomains: string[];
  /** The IAM principal ARNs that may put events on the resume bus; empty = none. */
  resumeEventPrincipals: string[];
  /** The one tenant whose runs the example agents may read and write. */
  exampleAgentTenant: string;
  /** Days a pause and its audit trail are kept after it expires, before DynamoDB's TTL may delete them. */
  retentionDays: number;
  /**
   * The deployment's Cedar policies (§17, `handback:policies` and its siblings), validated: bundled with the functions
   * that pause. Undefined: none, and no function carries Cedar.
   */
  policies: PolicyBundle | undefined;
  // §21 traces
  /** The OTLP/HTTP endpoint every function exports its spans to (`OTEL_EXPORTER_OTLP_ENDPOINT`); undefined = none. */
  otlpEndpoint: string | undefined;
  /** The deployment's directory file of persons (§20, `handback:directory`), checked: bundled with the functions that decide. */
  directory: DirectoryBundle | undefined;
  /** §23: an AWS Backup plan for the table and the transcript bucket, and the bucket's versioning (`handback:backup`). */
  backup: boolean;
  /** §23: the checkpoint table's class (`handback:tableClass`). */
  tableClass: (typeof S.tableClass.values)[number];
  /** Each group of routes' throttle (§23, `handback:throttles` over the defaults). */
  throttles: Record<ThrottleGroup, Throttle>;
  /** The MCP function's reserved concurrency (§23); undefined: none reserved (`handback:mcpConcurrency=none`). */
  mcpConcurrency: number | undefined;
  /** How long an ask may wait for people before the `OldestPendingAsk` alarm fires (§21). */
  pendingAlarm: Duration;
  // §21 escalation
  /** The default escalation ladder's text (`HANDBACK_ESCALATION`), validated; undefined = none. */
  escalation: string | undefined;
  // §20 SCIM
  /** SCIM at `/scim/v2` (`handback:scim`): the tenant it provisions; undefined = no route, no secret. */
  scim: { tenant: string } | undefined;
}

/** How long a pause and its audit trail are kept after it expires, unless `handback:retentionDays` says otherwise. */
export const DEFAULT_RETENTION_DAYS: number = S.retentionDays.default;

/** `RetentionDays` is a set of allowed day counts; refuse any other so CloudFormation does not. */
function retentionDays(days: number): RetentionDays {
  const allowed = Object.values(RetentionDays).filter((value): value is RetentionDays => typeof value === 'number');
  if (!allowed.includes(days as RetentionDays)) {
    throw new ConfigurationError(
      `Context ${CONTEXT.logRetentionDays} must be one of ${allowed.join(', ')} days, not ${days}.`,
    );
  }
  return days as RetentionDays;
}

/** The hand-off target named by context, importing what it needs. */
function handoffFromContext(scope: Construct): HandoffTargetProps | undefined {
  const type = contextString(scope, CONTEXT.handoff);
  switch (type) {
    case undefined:
      return undefined;
    case 'sqs':
      return { type };
    case 'none':
      return { type };
    case 'eventbridge':
      return {
        type,
        eventBus: EventBus.fromEventBusName(
          scope,
          'HandoffEventBus',
          contextString(scope, CONTEXT.handoffEventBusName) ?? S.handoffEventBusName.default,
        ),
      };
    case 'lambda': {
      const arn = contextString(scope, CONTEXT.handoffFunction);
      if (!arn)
        throw new ConfigurationError(
          `Context ${CONTEXT.handoff}=lambda needs ${CONTEXT.handoffFunction}, the function to invoke.`,
        );
      return { type, function: LambdaFunction.fromFunctionArn(scope, 'HandoffFunction', arn) };
    }
    default:
      throw new ConfigurationError(`Context ${CONTEXT.handoff} must be ${oneOf(S.handoff.values)}, not ${type}.`);
  }
}

/** The protocol of `value` read as a URL (`https:`), or undefined when it is not one. */
function protocolOf(value: string): string | undefined {
  try {
    return new URL(value).protocol;
  } catch {
    return undefined;
  }
}

/** An https URL setting, or a one-line refusal naming it. */
function httpsUrl(value: string | undefined, key: string): string | undefined {
  if (value === undefined) return undefined;
  const protocol = protocolOf(value);
  if (protocol !== 'https:') {
    throw new ConfigurationError(
      `Context ${key} must be an https URL (the inbox page people open), not ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

/** Resolves every setting: the prop, else the context key, else the default; fails naming what is missing. */
export function resolveSettings(scope: Construct, props: HandbackStackProps): Settings {
  const tenantClaim = props.tenantClaim ?? contextString(scope, CONTEXT.tenantClaim) ?? S.tenantClaim.default;
  const auth = resolveAuth(scope, props, tenantClaim);
  const kmsKeyArn = contextString(scope, CONTEXT.kmsKeyArn);
  const alarmTopicArn = contextString(scope, CONTEXT.alarmTopicArn);
  const logRetentionDays = contextInteger(scope, CONTEXT.logRetentionDays);
  const pauseExpirySeconds = contextInteger(scope, CONTEXT.pauseExpirySeconds);
  const removal = contextWord(scope, S.removalPolicy) ?? S.removalPolicy.default;
  const via = props.resumeRequestsVia ?? contextWord(scope, S.resumeRequestsVia) ?? S.resumeRequestsVia.default;
  const exampleAgent = contextWord(scope, S.exampleAgent) ?? S.exampleAgent.default;
  const eventBusName = contextString(scope, CONTEXT.eventBusName);
  const notifyEmail = props.notifyEmail ?? contextString(scope, CONTEXT.notifyEmail);
  const mcpConcurrency = mcpConcurrencyOf(scope);
  if (notifyEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(notifyEmail)) {
    throw new ConfigurationError(
      `Context ${CONTEXT.notifyEmail} must be an email address, not ${JSON.stringify(notifyEmail)}.`,
    );
  }
  return {
    auth,
    tenantClaim,
    handoff: props.handoff ?? handoffFromContext(scope) ?? { type: 'sqs' },
    logRetention: props.logRetention ?? retentionDays(logRetentionDays ?? S.logRetentionDays.default),
    encryptionKey: props.encryptionKey ?? (kmsKeyArn ? Key.fromKeyArn(scope, 'TableKey', kmsKeyArn) : undefined),
    alarmTopic:
      props.alarmTopic ?? (alarmTopicArn ? Topic.fromTopicArn(scope, 'AlarmTopic', alarmTopicArn) : undefined),
    pauseExpiry: props.pauseExpiry ?? Duration.seconds(pauseExpirySeconds ?? S.pauseExpirySeconds.default),
    eventSource: props.eventSource ?? contextString(scope, CONTEXT.eventSource) ?? S.eventSource.default,
    removalPolicy:
      props.removalPolicy ?? (removal === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE),
    resumeRequestsVia: via,
    exampleAgent,
    eventBus:
      props.eventBus ??
      (eventBusName ? EventBus.fromEventBusName(scope, 'LifecycleEventBus', eventBusName) : undefined),
    notifyEmail,
    inboxUrl: httpsUrl(props.inboxUrl ?? contextString(scope, CONTEXT.inboxUrl), CONTEXT.inboxUrl),
    requireScopes:
      auth.kind === 'userPool' || (contextBoolean(scope, CONTEXT.requireScopes) ?? S.requireScopes.default),
    groupsClaim: contextString(scope, CONTEXT.groupsClaim) ?? S.groupsClaim.default,
    recipientDomains: recipientDomainsOf(scope),
    resumeEventPrincipals: principalArns(scope, CONTEXT.resumeEventPrincipals),
    exampleAgentTenant: contextString(scope, CONTEXT.exampleAgentTenant) ?? S.exampleAgentTenant.default,
    retentionDays: contextInteger(scope, CONTEXT.retentionDays) ?? DEFAULT_RETENTION_DAYS,
    policies: policyBundleOf(scope, (message) => new ConfigurationError(message)),
    otlpEndpoint: otlpEndpointOf(contextString(scope, CONTEXT.otlpEndpoint)),
    directory: directoryBundleOf(scope, (message) => new ConfigurationError(message)),
    backup: contextBoolean(scope, CONTEXT.backup) ?? S.backup.default,
    tableClass: contextWord(scope, S.tableClass) ?? S.tableClass.default,
    throttles: resolveThrottles(
      scope.node.tryGetContext(CONTEXT.throttles),
      mcpConcurrency,
      (problem) => new ConfigurationError(`Context ${CONTEXT.throttles}: ${problem}`),
    ),
    mcpConcurrency,
    pendingAlarm: Duration.minutes(contextInteger(scope, CONTEXT.pendingAlarmMinutes) ?? S.pendingAlarmMinutes.default),
    escalation: escalationOf(contextString(scope, CONTEXT.escalation)),
    scim: scimOf(scope),
  };
}

/**
 * Context `handback:scim` (§20 SCIM): `true` for the default tenant, a tenant's name for that one, unset or `false`
 * for none; refused beside `handback:directory`, as the functions refuse both (the directory is one source at a time).
 */
function scimOf(scope: Construct): { tenant: string } | undefined {
  const value: unknown = scope.node.tryGetContext(CONTEXT.scim);
  if (value === undefined || value === null || value === '' || value === false || value === 'false') return undefined;
  const tenant = value === true || value === 'true' ? S.scimTenant.default : contextString(scope, CONTEXT.scim);
  if (tenant === undefined) return undefined;
  if (!z.safeParse(tenantField, tenant).success) {
    throw new ConfigurationError(
      `Context ${CONTEXT.scim} must be true or the tenant SCIM provisions (1 to ${LIMITS.tenantChars} characters), not ${JSON.stringify(tenant)}.`,
    );
  }
  if (scope.node.tryGetContext(CONTEXT.directory)) {
    throw new ConfigurationError(
      `Context ${CONTEXT.scim} and ${CONTEXT.directory} are both set: the directory is one source at a time, a file or SCIM's table.`,
    );
  }
  return { tenant };
}

/** Context `handback:escalation` (§21): a ladder, parsed now so that a bad one fails the synthesis, naming the key. */
function escalationOf(value: string | undefined): string | undefined {
  try {
    return ladderSetting(value, `Context ${CONTEXT.escalation}`) === undefined ? undefined : value;
  } catch (error) {
    throw new ConfigurationError((error as Error).message);
  }
}

/** Context `handback:otlpEndpoint` (§21): an http(s) URL (a collector beside the functions may be plain http). */
function otlpEndpointOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const protocol = protocolOf(value);
  if (protocol !== 'https:' && protocol !== 'http:') {
    throw new ConfigurationError(
      `Context ${CONTEXT.otlpEndpoint} must be the OTLP/HTTP base URL spans are sent to (e.g. https://otlp.example.com), not ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

/** The MCP function's reserved concurrency: a positive integer, or `none`; unset, the default. */
function mcpConcurrencyOf(scope: Construct): number | undefined {
  const text = contextString(scope, CONTEXT.mcpConcurrency);
  if (text === undefined) return S.mcpConcurrency.default;
  if (text === 'none') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigurationError(
      `Context ${CONTEXT.mcpConcurrency} must be a positive integer (the MCP function's reserved concurrent executions) or none, not ${text}.`,
    );
  }
  return value;
}

/** The recipient domains of context `handback:recipientDomains` (a list, or comma-separated), each checked. */
function recipientDomainsOf(scope: Construct): string[] {
  try {
    return parseRecipientDomains((contextList(scope, CONTEXT.recipientDomains) ?? []).join(','));
  } catch (error) {
    throw new ConfigurationError(`Context ${CONTEXT.recipientDomains}: ${(error as Error).message}`);
  }
}

/** An IAM principal's ARN, as `aws:PrincipalArn` holds it: a role, a user or an account's root (wildcards allowed). */
const PRINCIPAL_ARN = /^arn:aws[a-z-]*:iam::(\d{12}|\*):(root|role\/.+|user\/.+)$/;

/** A context list of IAM principal ARNs, each checked. */
function principalArns(scope: Construct, key: string): string[] {
  const arns = contextList(scope, key) ?? [];
  for (const arn of arns) {
    if (!PRINCIPAL_ARN.test(arn)) {
      throw new ConfigurationError(
        `Context ${key} names ${JSON.stringify(arn)}: each entry is an IAM role, user or root ARN (arn:aws:iam::<account>:role/<name>, wildcards allowed), as aws:PrincipalArn holds it.`,
      );
    }
  }
  return arns;
}
