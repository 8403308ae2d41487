import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { EventBus, type IEventBus } from 'aws-cdk-lib/aws-events';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { DEFAULT_PAUSE_EXPIRY } from './approval-workflow.ts';
import type { HandbackStackProps } from './handback-stack.ts';
import type { HandoffTargetProps } from './handoff.ts';

/**
 * The context keys that configure the stack from `cdk.json` or `-c key=value`, for deployments that do not write
 * their own `app.ts`. A stack prop, when given, wins over its context key.
 */
export const CONTEXT = {
  jwtIssuer: 'handback:jwtIssuer',
  jwtAudience: 'handback:jwtAudience',
  tenantClaim: 'handback:tenantClaim',
  handoff: 'handback:handoff',
  handoffEventBusName: 'handback:handoffEventBusName',
  handoffFunctionArn: 'handback:handoffFunctionArn',
  logRetentionDays: 'handback:logRetentionDays',
  kmsKeyArn: 'handback:kmsKeyArn',
  alarmTopicArn: 'handback:alarmTopicArn',
  pauseExpirySeconds: 'handback:pauseExpirySeconds',
  eventSource: 'handback:eventSource',
  removalPolicy: 'handback:removalPolicy',
  resumeRequestsVia: 'handback:resumeRequestsVia',
  eventBusName: 'handback:eventBusName',
  notifyEmail: 'handback:notifyEmail',
  inboxUrl: 'handback:inboxUrl',
} as const;

/** Every setting of the stack, resolved: props first, then context, then the documented default. */
export interface Settings {
  jwtIssuer: string;
  jwtAudience: string[];
  tenantClaim: string;
  handoff: HandoffTargetProps;
  logRetention: RetentionDays;
  encryptionKey: HandbackStackProps['encryptionKey'];
  alarmTopic: HandbackStackProps['alarmTopic'];
  pauseExpiry: Duration;
  eventSource: string;
  removalPolicy: RemovalPolicy;
  resumeRequestsVia: 'queue' | 'function';
  /** The bus lifecycle events go to; undefined = the stack creates its own. */
  eventBus: IEventBus | undefined;
  /** An address the `Pause Created` topic mails; undefined = no subscription. */
  notifyEmail: string | undefined;
  /** The inbox page's public URL for answer links; undefined = the HTTP API's own `/inbox`. */
  inboxUrl: string | undefined;
}

/** A context value as a non-empty string, or undefined. */
function contextString(scope: Construct, key: string): string | undefined {
  const value: unknown = scope.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new Error(`Context ${key} must be a string, not ${JSON.stringify(value)}.`);
  }
  return String(value);
}

/** A context value as a list: a JSON array, or a comma-separated string (what `-c key=a,b` gives). */
function contextList(scope: Construct, key: string): string[] | undefined {
  const value: unknown = scope.node.tryGetContext(key);
  if (Array.isArray(value)) return value.map(String);
  const text = contextString(scope, key);
  return text === undefined
    ? undefined
    : text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
}

/** A context value as a positive integer. */
function contextInteger(scope: Construct, key: string): number | undefined {
  const text = contextString(scope, key);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`Context ${key} must be a positive integer, not ${text}.`);
  return value;
}

/** `RetentionDays` is a set of allowed day counts; refuse any other so CloudFormation does not. */
function retentionDays(days: number): RetentionDays {
  const allowed = Object.values(RetentionDays).filter((value): value is RetentionDays => typeof value === 'number');
  if (!allowed.includes(days as RetentionDays)) {
    throw new Error(`Context ${CONTEXT.logRetentionDays} must be one of ${allowed.join(', ')} days, not ${days}.`);
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
          contextString(scope, CONTEXT.handoffEventBusName) ?? 'default',
        ),
      };
    case 'lambda': {
      const arn = contextString(scope, CONTEXT.handoffFunctionArn);
      if (!arn)
        throw new Error(
          `Context ${CONTEXT.handoff}=lambda needs ${CONTEXT.handoffFunctionArn}, the function to invoke.`,
        );
      return { type, function: LambdaFunction.fromFunctionArn(scope, 'HandoffFunction', arn) };
    }
    default:
      throw new Error(`Context ${CONTEXT.handoff} must be sqs, eventbridge, lambda or none, not ${type}.`);
  }
}

/** An https URL setting, or a one-line refusal naming it. */
function httpsUrl(value: string | undefined, key: string): string | undefined {
  if (value === undefined) return undefined;
  let protocol: string | undefined;
  try {
    protocol = new URL(value).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'https:') {
    throw new Error(`Context ${key} must be an https URL (the inbox page people open), not ${JSON.stringify(value)}.`);
  }
  return value;
}

/** Resolves every setting: the prop, else the context key, else the default; fails naming what is missing. */
export function resolveSettings(scope: Construct, props: HandbackStackProps): Settings {
  const jwtIssuer = props.jwtIssuer ?? contextString(scope, CONTEXT.jwtIssuer);
  const jwtAudience = props.jwtAudience ?? contextList(scope, CONTEXT.jwtAudience);
  if (!jwtIssuer || !jwtAudience || jwtAudience.length === 0) {
    throw new Error(
      `The HTTP API needs a JWT issuer and audience: pass jwtIssuer and jwtAudience, or set context ${CONTEXT.jwtIssuer} and ${CONTEXT.jwtAudience} (cdk.json or -c).`,
    );
  }
  const kmsKeyArn = contextString(scope, CONTEXT.kmsKeyArn);
  const alarmTopicArn = contextString(scope, CONTEXT.alarmTopicArn);
  const logRetentionDays = contextInteger(scope, CONTEXT.logRetentionDays);
  const pauseExpirySeconds = contextInteger(scope, CONTEXT.pauseExpirySeconds);
  const removal = contextString(scope, CONTEXT.removalPolicy);
  if (removal !== undefined && removal !== 'retain' && removal !== 'destroy') {
    throw new Error(`Context ${CONTEXT.removalPolicy} must be retain or destroy, not ${removal}.`);
  }
  const via = props.resumeRequestsVia ?? contextString(scope, CONTEXT.resumeRequestsVia) ?? 'queue';
  if (via !== 'queue' && via !== 'function') {
    throw new Error(`Context ${CONTEXT.resumeRequestsVia} must be queue or function, not ${via}.`);
  }
  const eventBusName = contextString(scope, CONTEXT.eventBusName);
  const notifyEmail = props.notifyEmail ?? contextString(scope, CONTEXT.notifyEmail);
  if (notifyEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(notifyEmail)) {
    throw new Error(`Context ${CONTEXT.notifyEmail} must be an email address, not ${JSON.stringify(notifyEmail)}.`);
  }
  return {
    jwtIssuer,
    jwtAudience,
    tenantClaim: props.tenantClaim ?? contextString(scope, CONTEXT.tenantClaim) ?? 'tenant',
    handoff: props.handoff ?? handoffFromContext(scope) ?? { type: 'sqs' },
    logRetention: props.logRetention ?? (logRetentionDays ? retentionDays(logRetentionDays) : RetentionDays.ONE_MONTH),
    encryptionKey: props.encryptionKey ?? (kmsKeyArn ? Key.fromKeyArn(scope, 'TableKey', kmsKeyArn) : undefined),
    alarmTopic:
      props.alarmTopic ?? (alarmTopicArn ? Topic.fromTopicArn(scope, 'AlarmTopic', alarmTopicArn) : undefined),
    pauseExpiry:
      props.pauseExpiry ?? (pauseExpirySeconds ? Duration.seconds(pauseExpirySeconds) : DEFAULT_PAUSE_EXPIRY),
    eventSource: props.eventSource ?? contextString(scope, CONTEXT.eventSource) ?? 'handback',
    removalPolicy: props.removalPolicy ?? (removal === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN),
    resumeRequestsVia: via,
    eventBus:
      props.eventBus ??
      (eventBusName ? EventBus.fromEventBusName(scope, 'LifecycleEventBus', eventBusName) : undefined),
    notifyEmail,
    inboxUrl: httpsUrl(props.inboxUrl ?? contextString(scope, CONTEXT.inboxUrl), CONTEXT.inboxUrl),
  };
}
