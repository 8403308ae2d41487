import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { EventBus, type IEventBus } from 'aws-cdk-lib/aws-events';
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import { type IFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { parseDefaults, senderAddress } from '../functions/checkpoints/notify.ts';
import { parseRecipientDomains } from '../functions/checkpoints/recipients.ts';
import { LIMITS } from '../functions/vocabulary.ts';
import { DEFAULT_PAUSE_EXPIRY } from './approval-workflow.ts';
import type { HandoffTargetProps } from './handoff.ts';
import { POLICY_CONTEXT, type PolicyBundle, policyBundleOf } from './policies.ts';

/**
 * Props of {@link HandbackStack}. Each one may instead come from the context key named in `infra/settings.ts`
 * (`handback:…`, in `cdk.json` or `-c`); a prop wins over its context key.
 */
export interface HandbackStackProps extends StackProps {
  /**
   * The JWT issuer the HTTP API trusts (`iss`), e.g. `https://cognito-idp.<region>.amazonaws.com/<pool id>`: an https
   * URL (API Gateway reads its `/.well-known/openid-configuration`); a documentation host (`issuer.example.com`, the
   * placeholder older `cdk.json` files carried) is refused.
   * @default - context `handback:jwtIssuer`; with neither, the stack creates a user pool (see `createUserPool`)
   */
  readonly jwtIssuer?: string;
  /**
   * The audiences the HTTP API accepts (`aud`, or `client_id` for access tokens).
   * @default - context `handback:jwtAudience` (a list, or comma-separated); required with an issuer
   */
  readonly jwtAudience?: string[];
  /**
   * The JWT claim that names the tenant.
   * @default 'tenant'
   */
  readonly tenantClaim?: string;
  /**
   * Where each successful resume's continuation pointer goes.
   * @default - `{ type: 'sqs' }`: a hand-off queue (and its dead-letter queue) the stack creates, so a pointer waits
   * durably for the next invocation
   */
  readonly handoff?: HandoffTargetProps;
  /**
   * How long every log group (functions, API access logs, workflows) keeps logs.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * A customer managed key for the table.
   * @default - an AWS owned key
   */
  readonly encryptionKey?: IKey;
  /**
   * The topic every alarm notifies.
   * @default - none: alarms show in the CloudWatch console only
   */
  readonly alarmTopic?: ITopic;
  /**
   * How long the reference workflow's pauses wait for an answer (the pause's `expiresInSeconds` and the waiting
   * step's timeout); at most 365 days.
   * @default `DEFAULT_PAUSE_EXPIRY` (`LIMITS.expiresInSeconds.default`)
   */
  readonly pauseExpiry?: Duration;
  /**
   * The `source` of the `Resume Requested` events the rule matches.
   * @default 'handback'
   */
  readonly eventSource?: string;
  /**
   * The agent the reference workflow runs (see `ApprovalWorkflowProps.agent` for its input and output).
   * @default - the example agent, `infra/example-agent/handler.ts`
   */
  readonly agent?: IFunction;
  /**
   * What happens to the table and the log groups when they leave the stack; the table keeps deletion protection
   * unless this is `DESTROY`.
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * How `Resume Requested` events reach a resume: `queue` buffers each event's `detail` in the resume queue for the
   * SQS handler (batched, redriven, throttle-proof); `function` deploys the EventBridge handler and has the rule invoke
   * it directly (asynchronously; failed invocations kept in a queue with their error).
   * @default 'queue'
   */
  readonly resumeRequestsVia?: 'queue' | 'function';
  /**
   * Create a Cognito user pool with its app clients (see `HandbackUserPool`) and trust them: the pool's issuer and the
   * clients' ids become the API's JWT issuer and audience, and its tokens carry the tenant in `tenantClaim`. Not with
   * `jwtIssuer` or `jwtAudience`; `false` needs them.
   * @default - context `handback:createUserPool`, else true unless an issuer is given: a first deploy needs no flags
   */
  readonly createUserPool?: boolean;
  /**
   * The EventBridge bus lifecycle events (`Pause Created`, …, source `handback`) go to.
   * @default - context `handback:eventBusName` (an existing bus, by name), else a bus the stack creates
   */
  readonly eventBus?: IEventBus;
  /**
   * An email address the `Pause Created` notification topic sends to (after the person confirms the subscription).
   * @default - context `handback:notifyEmail`, else no subscription
   */
  readonly notifyEmail?: string;
  /**
   * The inbox page's public URL, for answer links (`<inboxUrl>#<token>`), when it is served from elsewhere than the
   * HTTP API (a custom domain, a CDN).
   * @default - context `handback:inboxUrl`, else the HTTP API's own `/inbox`
   */
  readonly inboxUrl?: string;
}

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
  createUserPool: 'handback:createUserPool',
  eventBusName: 'handback:eventBusName',
  notifyEmail: 'handback:notifyEmail',
  inboxUrl: 'handback:inboxUrl',
  exampleAgent: 'handback:exampleAgent',
  requireScopes: 'handback:requireScopes',
  groupsClaim: 'handback:groupsClaim',
  groups: 'handback:groups',
  signInDomainPrefix: 'handback:signInDomainPrefix',
  agentTenant: 'handback:agentTenant',
  slackSecretName: 'handback:slackSecretName',
  slackChannel: 'handback:slackChannel',
  emailFrom: 'handback:emailFrom',
  emailIdentity: 'handback:emailIdentity',
  emailRegion: 'handback:emailRegion',
  emailTo: 'handback:emailTo',
  recipientDomains: 'handback:recipientDomains',
  emailSandbox: 'handback:emailSandbox',
  resumeEventPrincipals: 'handback:resumeEventPrincipals',
  exampleAgentTenant: 'handback:exampleAgentTenant',
  retentionDays: 'handback:retentionDays',
  emailConfigurationSet: 'handback:emailConfigurationSet',
  policies: POLICY_CONTEXT.policies,
  policySchema: POLICY_CONTEXT.schema,
  policyMode: POLICY_CONTEXT.mode,
  policyDefault: POLICY_CONTEXT.default,
} as const;

/**
 * The issuer older `cdk.json` files shipped with, to mark where the real one goes: synthesis refuses it (and every
 * other documentation host), since an HTTP API whose authorizer trusts it would refuse every token.
 */
export const PLACEHOLDER_ISSUER = 'https://issuer.example.com/';

/**
 * A setting that cannot work, said in one line that names the prop or context key and what to set. `infra/app.ts`
 * prints the message alone and exits non-zero: a stack trace would only hide it.
 */
export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}

/**
 * Who signs the API's tokens: an issuer the deployment already has, or a Cognito user pool the stack creates (the
 * default), whose issuer and clients become the authorizer's.
 */
export type AuthSettings = { kind: 'issuer'; jwtIssuer: string; jwtAudience: string[] } | UserPoolSettings;

/** The user pool the stack creates, as context configures it (`infra/user-pool.ts`). */
export interface UserPoolSettings {
  kind: 'userPool';
  /** The groups the pool has, for approvers by group (`handback:groups`; default `approvers`). */
  groups: string[];
  /** The prefix of the managed-login domain, `<prefix>.auth.<region>.amazoncognito.com`. */
  domainPrefix: string;
  /** The tenant of every client-credentials (agent) token of the pool (`handback:agentTenant`; default `default`). */
  agentTenant: string;
}

/** The groups a created pool has when `handback:groups` is not set: the one the deploy docs add people to. */
export const DEFAULT_GROUPS = ['approvers'];

/** The tenant of the pool's agent tokens when `handback:agentTenant` is not set: the local service's, with auth off. */
export const DEFAULT_AGENT_TENANT = LIMITS.defaultTenant;

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
   * function that pauses or sends gets them (`RECIPIENT_DOMAINS`). Empty: none.
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
}

/** How long a pause and its audit trail are kept after it expires, unless `handback:retentionDays` says otherwise. */
export const DEFAULT_RETENTION_DAYS = 365;

/** A context value as a non-empty string, or undefined. */
function contextString(scope: Construct, key: string): string | undefined {
  const value: unknown = scope.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new ConfigurationError(`Context ${key} must be a string, not ${JSON.stringify(value)}.`);
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
    throw new ConfigurationError(`Context ${key} must be a positive integer, not ${text}.`);
  return value;
}

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
          contextString(scope, CONTEXT.handoffEventBusName) ?? 'default',
        ),
      };
    case 'lambda': {
      const arn = contextString(scope, CONTEXT.handoffFunctionArn);
      if (!arn)
        throw new ConfigurationError(
          `Context ${CONTEXT.handoff}=lambda needs ${CONTEXT.handoffFunctionArn}, the function to invoke.`,
        );
      return { type, function: LambdaFunction.fromFunctionArn(scope, 'HandoffFunction', arn) };
    }
    default:
      throw new ConfigurationError(`Context ${CONTEXT.handoff} must be sqs, eventbridge, lambda or none, not ${type}.`);
  }
}

/** A context value as a boolean: `true`/`false`, or the strings `-c key=true` gives. */
function contextBoolean(scope: Construct, key: string): boolean | undefined {
  const value: unknown = scope.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new ConfigurationError(`Context ${key} must be true or false, not ${JSON.stringify(value)}.`);
}

/** What to do about a missing or unusable issuer, said once for every message that needs it. */
const SET_AN_ISSUER = `set -c ${CONTEXT.jwtIssuer}=https://<your OIDC issuer> (e.g. https://cognito-idp.<region>.amazonaws.com/<pool id>, in cdk.json or on the command line), or remove ${CONTEXT.jwtIssuer} and ${CONTEXT.jwtAudience} to have the stack create a Cognito user pool.`;

/** RFC 2606 names, kept for documentation: no real issuer lives there. */
const EXAMPLE_HOST = /(^|\.)example\.(com|net|org)$|\.example$/i;

/**
 * Refuses an issuer API Gateway could never use: the JWT authorizer fetches `<issuer>/.well-known/openid-configuration`
 * over https, so anything but an https URL of a real host fails every request; the placeholder of `cdk.json` too.
 */
function checkIssuer(issuer: string, fromProps: boolean): void {
  const named = fromProps ? 'The jwtIssuer prop' : `Context ${CONTEXT.jwtIssuer}`;
  const advice = fromProps
    ? 'pass the https URL of your OIDC issuer (e.g. https://cognito-idp.<region>.amazonaws.com/<pool id>), or leave jwtIssuer and jwtAudience out to have the stack create a Cognito user pool.'
    : SET_AN_ISSUER;
  let url: URL | undefined;
  try {
    url = new URL(issuer);
  } catch {
    url = undefined;
  }
  if (url === undefined || url.protocol !== 'https:') {
    throw new ConfigurationError(`${named} must be an https URL, not ${JSON.stringify(issuer)}: ${advice}`);
  }
  if (isPlaceholder(issuer)) {
    throw new ConfigurationError(`${named} is the placeholder ${issuer}: ${advice}`);
  }
}

/** Whether an issuer is cdk.json's placeholder, or another documentation name (RFC 2606) that no issuer uses. */
function isPlaceholder(issuer: string): boolean {
  try {
    return EXAMPLE_HOST.test(new URL(issuer).hostname);
  } catch {
    return false;
  }
}

/**
 * Claims Cognito will not let a pre-token-generation trigger add or override (its own and the standard JWT ones): a
 * tenant claim by one of these names could never be set.
 */
const COGNITO_RESERVED_CLAIMS = new Set([
  'acr',
  'amr',
  'at_hash',
  'aud',
  'auth_time',
  'azp',
  'client_id',
  'device_key',
  'event_id',
  'exp',
  'iat',
  'identities',
  'iss',
  'jti',
  'nbf',
  'nonce',
  'origin_jti',
  'scope',
  'sub',
  'token_use',
  'username',
]);

/**
 * Who signs the tokens: the issuer given, or else a user pool the stack creates (a first deploy needs no flags); fails
 * naming what to set. `createUserPool=true` next to cdk.json's old placeholder issuer still creates the pool.
 */
function resolveAuth(scope: Construct, props: HandbackStackProps, tenantClaim: string): AuthSettings {
  const createUserPool = props.createUserPool ?? contextBoolean(scope, CONTEXT.createUserPool);
  const contextIssuer = contextString(scope, CONTEXT.jwtIssuer);
  const contextAudience = contextList(scope, CONTEXT.jwtAudience);
  if (createUserPool === true) {
    if (props.jwtIssuer !== undefined || props.jwtAudience !== undefined) {
      throw new ConfigurationError(
        'createUserPool makes the new user pool the issuer and its clients the audience: drop the jwtIssuer and jwtAudience props, or createUserPool.',
      );
    }
    // An old cdk.json's placeholder may stay where it is; any real issuer next to createUserPool is a contradiction.
    if (contextIssuer !== undefined && !isPlaceholder(contextIssuer)) {
      throw new ConfigurationError(
        `Context ${CONTEXT.createUserPool}=true creates the issuer, but ${CONTEXT.jwtIssuer} is also set (${contextIssuer}): keep one of the two.`,
      );
    }
    return userPoolSettings(scope, tenantClaim);
  }
  const jwtIssuer = props.jwtIssuer ?? contextIssuer;
  const jwtAudience = props.jwtAudience ?? contextAudience;
  if (jwtIssuer === undefined) {
    if (createUserPool === false) {
      throw new ConfigurationError(
        props.createUserPool === false
          ? 'createUserPool: false needs an issuer to trust: pass jwtIssuer and jwtAudience, or leave createUserPool out to have the stack create a Cognito user pool.'
          : `Context ${CONTEXT.createUserPool}=false needs an issuer to trust: set -c ${CONTEXT.jwtIssuer}=https://<your OIDC issuer> and -c ${CONTEXT.jwtAudience}=<client ids> (cdk.json or -c), or drop ${CONTEXT.createUserPool}=false to have the stack create a Cognito user pool.`,
      );
    }
    if (jwtAudience !== undefined) {
      throw new ConfigurationError(
        props.jwtAudience !== undefined
          ? 'The jwtAudience prop is set without jwtIssuer: pass the issuer those audiences belong to, or leave both out to have the stack create a Cognito user pool.'
          : `Context ${CONTEXT.jwtAudience} is set without ${CONTEXT.jwtIssuer}: set the issuer those audiences belong to, or remove ${CONTEXT.jwtAudience} to have the stack create a Cognito user pool.`,
      );
    }
    return userPoolSettings(scope, tenantClaim);
  }
  checkIssuer(jwtIssuer, props.jwtIssuer !== undefined);
  if (!jwtAudience || jwtAudience.length === 0) {
    throw new ConfigurationError(
      `The HTTP API needs the audiences its issuer's tokens carry: pass jwtAudience, or set context ${CONTEXT.jwtAudience} (cdk.json or -c) next to ${CONTEXT.jwtIssuer}.`,
    );
  }
  return { kind: 'issuer', jwtIssuer, jwtAudience };
}

/** A group name: a part of what Cognito takes (1–128 characters), which construct ids and approvers' entries take as they are. */
const GROUP_NAME = /^[\p{L}\p{N}_.@+=,-]{1,128}$/u;

/** Cognito's rule for a domain prefix: lower-case letters, digits and hyphens, and none of its reserved words. */
const DOMAIN_PREFIX = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const RESERVED_IN_PREFIX = /aws|amazon|cognito/;
const MAX_PREFIX = 63;
/** What the default prefix adds to the stack name: `-` and the 12-digit account id, known only at deploy. */
const ACCOUNT_SUFFIX = 13;

/** The settings of the user pool the stack creates, from context; fails naming the key that cannot work. */
function userPoolSettings(scope: Construct, tenantClaim: string): UserPoolSettings {
  if (COGNITO_RESERVED_CLAIMS.has(tenantClaim) || tenantClaim.startsWith('cognito:')) {
    throw new ConfigurationError(
      `Context ${CONTEXT.tenantClaim} is ${tenantClaim}, a claim Cognito does not let a trigger set: choose another name (e.g. tenant) for the user pool the stack creates.`,
    );
  }
  const groups = contextList(scope, CONTEXT.groups) ?? DEFAULT_GROUPS;
  for (const group of groups) {
    if (!GROUP_NAME.test(group)) {
      throw new ConfigurationError(
        `Context ${CONTEXT.groups} names the group ${JSON.stringify(group)}: a group name is 1 to 128 letters, digits or _.@+=,- characters.`,
      );
    }
  }
  if (new Set(groups).size !== groups.length) {
    throw new ConfigurationError(`Context ${CONTEXT.groups} names a group twice: ${groups.join(', ')}.`);
  }
  const stack = Stack.of(scope);
  const given = contextString(scope, CONTEXT.signInDomainPrefix);
  // By default unique per stack and account: <stack name>-<account id>.
  const checked = given ?? stack.stackName.toLowerCase();
  const room = given === undefined ? MAX_PREFIX - ACCOUNT_SUFFIX : MAX_PREFIX;
  if (!DOMAIN_PREFIX.test(checked) || checked.length > room || RESERVED_IN_PREFIX.test(checked)) {
    const why = `a Cognito domain prefix is at most ${MAX_PREFIX} lower-case letters, digits and inner hyphens, without "aws", "amazon" or "cognito"`;
    throw new ConfigurationError(
      given === undefined
        ? `The stack name ${stack.stackName} makes the sign-in domain prefix ${checked}-<account id>, but ${why}: set -c ${CONTEXT.signInDomainPrefix}=<prefix>.`
        : `Context ${CONTEXT.signInDomainPrefix} must be a domain prefix, not ${JSON.stringify(given)}: ${why}.`,
    );
  }
  const agentTenant = contextString(scope, CONTEXT.agentTenant) ?? DEFAULT_AGENT_TENANT;
  return {
    kind: 'userPool',
    groups,
    domainPrefix: given ?? `${checked}-${stack.account}`,
    agentTenant,
  };
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
    throw new ConfigurationError(
      `Context ${key} must be an https URL (the inbox page people open), not ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

/** Resolves every setting: the prop, else the context key, else the default; fails naming what is missing. */
export function resolveSettings(scope: Construct, props: HandbackStackProps): Settings {
  const tenantClaim = props.tenantClaim ?? contextString(scope, CONTEXT.tenantClaim) ?? 'tenant';
  const auth = resolveAuth(scope, props, tenantClaim);
  const kmsKeyArn = contextString(scope, CONTEXT.kmsKeyArn);
  const alarmTopicArn = contextString(scope, CONTEXT.alarmTopicArn);
  const logRetentionDays = contextInteger(scope, CONTEXT.logRetentionDays);
  const pauseExpirySeconds = contextInteger(scope, CONTEXT.pauseExpirySeconds);
  const removal = contextString(scope, CONTEXT.removalPolicy);
  if (removal !== undefined && removal !== 'retain' && removal !== 'destroy') {
    throw new ConfigurationError(`Context ${CONTEXT.removalPolicy} must be retain or destroy, not ${removal}.`);
  }
  const via = props.resumeRequestsVia ?? contextString(scope, CONTEXT.resumeRequestsVia) ?? 'queue';
  if (via !== 'queue' && via !== 'function') {
    throw new ConfigurationError(`Context ${CONTEXT.resumeRequestsVia} must be queue or function, not ${via}.`);
  }
  const exampleAgent = contextString(scope, CONTEXT.exampleAgent) ?? 'workflow';
  if (exampleAgent !== 'workflow' && exampleAgent !== 'durable') {
    throw new ConfigurationError(`Context ${CONTEXT.exampleAgent} must be workflow or durable, not ${exampleAgent}.`);
  }
  const eventBusName = contextString(scope, CONTEXT.eventBusName);
  const notifyEmail = props.notifyEmail ?? contextString(scope, CONTEXT.notifyEmail);
  if (notifyEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(notifyEmail)) {
    throw new ConfigurationError(
      `Context ${CONTEXT.notifyEmail} must be an email address, not ${JSON.stringify(notifyEmail)}.`,
    );
  }
  return {
    auth,
    tenantClaim,
    handoff: props.handoff ?? handoffFromContext(scope) ?? { type: 'sqs' },
    logRetention: props.logRetention ?? (logRetentionDays ? retentionDays(logRetentionDays) : RetentionDays.ONE_MONTH),
    encryptionKey: props.encryptionKey ?? (kmsKeyArn ? Key.fromKeyArn(scope, 'TableKey', kmsKeyArn) : undefined),
    alarmTopic:
      props.alarmTopic ?? (alarmTopicArn ? Topic.fromTopicArn(scope, 'AlarmTopic', alarmTopicArn) : undefined),
    pauseExpiry:
      props.pauseExpiry ?? (pauseExpirySeconds ? Duration.seconds(pauseExpirySeconds) : DEFAULT_PAUSE_EXPIRY),
    eventSource: props.eventSource ?? contextString(scope, CONTEXT.eventSource) ?? 'handback',
    removalPolicy:
      props.removalPolicy ?? (removal === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE),
    resumeRequestsVia: via,
    exampleAgent,
    eventBus:
      props.eventBus ??
      (eventBusName ? EventBus.fromEventBusName(scope, 'LifecycleEventBus', eventBusName) : undefined),
    notifyEmail,
    inboxUrl: httpsUrl(props.inboxUrl ?? contextString(scope, CONTEXT.inboxUrl), CONTEXT.inboxUrl),
    requireScopes: auth.kind === 'userPool' || (contextBoolean(scope, CONTEXT.requireScopes) ?? false),
    groupsClaim: contextString(scope, CONTEXT.groupsClaim) ?? 'cognito:groups',
    recipientDomains: recipientDomainsOf(scope),
    resumeEventPrincipals: principalArns(scope, CONTEXT.resumeEventPrincipals),
    exampleAgentTenant: contextString(scope, CONTEXT.exampleAgentTenant) ?? DEFAULT_AGENT_TENANT,
    retentionDays: contextInteger(scope, CONTEXT.retentionDays) ?? DEFAULT_RETENTION_DAYS,
    policies: policyBundleOf(scope, (message) => new ConfigurationError(message)),
  };
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

/** The channels a deployment turns on (§14), from context; a channel without its key creates nothing. */
export interface ChannelSettings {
  /** Slack, when `handback:slackSecretName` names the app's secret (a name or a full ARN). */
  slack?: { secretName: string; defaultChannels: string[] };
  /** Email by SES, when `handback:emailFrom` names the sender. */
  email?: {
    /** The sender as the emails name it: an address, or `Name <address>`. */
    from: string;
    /** The sender's address (`ses:FromAddress`). */
    address: string;
    identity: string;
    region?: string;
    defaultRecipients: string[];
    /**
     * Whether the account's SES may still be in the sandbox, where SES also authorizes `SendEmail` against each
     * recipient's identity: then the grant covers the account's identities too, for this sender only.
     */
    sandbox: boolean;
    /** A configuration set every email is sent with, when one is named; the grant covers it. */
    configurationSet?: string;
  };
}

/** What a channel's default recipients are: the list, each checked as a pause's `notify` entry is. */
function channelDefaults(scope: Construct, key: string, check: (value: string | undefined) => string[]): string[] {
  try {
    return check(contextString(scope, key));
  } catch (error) {
    throw new ConfigurationError(`Context ${key}: ${(error as Error).message}`);
  }
}

/**
 * The channels' settings: Slack by the name of a Secrets Manager secret the operator made and filled (JSON
 * `{botToken, signingSecret}`), email by a verified SES identity; each default recipient checked as `notify`'s are.
 */
export function resolveChannelSettings(scope: Construct): ChannelSettings {
  const settings: ChannelSettings = {};
  const secretName = contextString(scope, CONTEXT.slackSecretName);
  const slackChannels = channelDefaults(scope, CONTEXT.slackChannel, (value) => parseDefaults('slack', value));
  if (secretName !== undefined) settings.slack = { secretName, defaultChannels: slackChannels };
  else if (slackChannels.length > 0) {
    throw new ConfigurationError(
      `Context ${CONTEXT.slackChannel} needs ${CONTEXT.slackSecretName}, the secret holding the Slack app's bot token and signing secret.`,
    );
  }
  const from = contextString(scope, CONTEXT.emailFrom);
  const emailTo = channelDefaults(scope, CONTEXT.emailTo, (value) => parseDefaults('email', value));
  const identity = contextString(scope, CONTEXT.emailIdentity);
  const region = contextString(scope, CONTEXT.emailRegion);
  const sandbox = contextBoolean(scope, CONTEXT.emailSandbox);
  const configurationSet = contextString(scope, CONTEXT.emailConfigurationSet);
  if (from === undefined) {
    const orphan = [
      emailTo.length > 0 ? CONTEXT.emailTo : undefined,
      identity && CONTEXT.emailIdentity,
      region && CONTEXT.emailRegion,
      sandbox !== undefined ? CONTEXT.emailSandbox : undefined,
      configurationSet && CONTEXT.emailConfigurationSet,
    ]
      .filter(Boolean)
      .join(', ');
    if (orphan !== '') {
      throw new ConfigurationError(
        `Context ${orphan} needs ${CONTEXT.emailFrom}, the verified SES address the emails come from.`,
      );
    }
    return settings;
  }
  let address: string;
  try {
    address = senderAddress(from);
  } catch (error) {
    throw new ConfigurationError(`Context ${CONTEXT.emailFrom} ${(error as Error).message}.`);
  }
  if (region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) {
    throw new ConfigurationError(
      `Context ${CONTEXT.emailRegion} must be an AWS region such as eu-west-1, not ${JSON.stringify(region)}.`,
    );
  }
  // SES's own rule for a configuration set's name: letters, digits, _ and -, at most 64.
  if (configurationSet !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(configurationSet)) {
    throw new ConfigurationError(
      `Context ${CONTEXT.emailConfigurationSet} must be an SES configuration set's name (letters, digits, _ and -, at most 64), not ${JSON.stringify(configurationSet)}.`,
    );
  }
  settings.email = {
    from,
    address,
    identity: identity ?? address,
    ...(region === undefined ? {} : { region }),
    defaultRecipients: emailTo,
    sandbox: sandbox ?? true,
    ...(configurationSet === undefined ? {} : { configurationSet }),
  };
  return settings;
}
