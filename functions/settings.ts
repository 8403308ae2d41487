import { HANDOFF_TARGETS, LIMITS, POLICY_DEFAULTS, POLICY_MODES } from './vocabulary.ts';

/**
 * Every setting of Handback, once: its environment variable (one name on Lambda and for `npm start`), who reads it,
 * its type, its default, the CDK context key (and stack prop) that sets it on AWS, and what it does. Two loaders read
 * the environment, `functions/handlers/config.ts` on Lambda and `functions/local/config.ts` for `npm start`; the
 * stack's settings (`infra/settings.ts`) read the context keys; docs/local.md's and docs/deploy.md's tables are
 * generated from this one (`npm run docs:settings`). Adding a setting is a row here and its use.
 *
 * Each row is an export of its own, so a Lambda bundle holds the rows its function reads and no other; `SETTINGS`
 * gathers them for the stack and the docs.
 */

/** Who reads a variable: `npm start` (`local`) or the Lambda functions (`lambda`). */
export type Reader = 'local' | 'lambda';

/** How a setting's text is read. */
export type SettingType = 'string' | 'secret' | 'url' | 'path' | 'integer' | 'boolean' | 'list' | 'words';

/** One setting. */
export interface Setting {
  /** The environment variable, one name wherever it is read; none for a setting only synthesis reads. */
  readonly env?: string;
  /** Who reads the variable. */
  readonly read?: readonly Reader[];
  /** How its text is read: a `list` is comma-separated, `words` one of `values`. */
  readonly type: SettingType;
  /** The words it may be, for `words`. */
  readonly values?: readonly string[];
  /** Its value when unset. */
  readonly default?: string | number | boolean;
  /** What unset means, as the docs' default column says it ("none: no Slack"), after the default when there is one. */
  readonly unset?: string;
  /** The CDK context key that sets it on AWS (`cdk.json` or `-c key=value`). */
  readonly context?: `handback:${string}`;
  /** The `HandbackStackProps` field that sets it instead, in an app of your own; it wins over the context key. */
  readonly prop?: string;
  /** What sets the variable on Lambda: the stack (from its settings), or Lambda itself. */
  readonly setBy?: 'stack' | 'lambda';
  /** What it does, in one line. */
  readonly description: string;
}

const BOTH = ['local', 'lambda'] as const;
const LOCAL = ['local'] as const;
const LAMBDA = ['lambda'] as const;

// The local service: where it listens and what it keeps.

export const port = {
  env: 'PORT',
  read: LOCAL,
  type: 'integer',
  default: 3000,
  description: 'the listening port (`0` = a free one)',
} as const satisfies Setting;

export const host = {
  env: 'HOST',
  read: LOCAL,
  type: 'string',
  default: '127.0.0.1',
  description: 'the listening address (`0.0.0.0` for every interface)',
} as const satisfies Setting;

export const dataDir = {
  env: 'HANDBACK_DATA_DIR',
  read: LOCAL,
  type: 'path',
  unset: 'in memory',
  description:
    'keep the embedded store on disk in this directory (LevelDB): a restart, even after `kill -9`, loses nothing',
} as const satisfies Setting;

export const dynamodbEndpoint = {
  env: 'DYNAMODB_ENDPOINT',
  read: BOTH,
  type: 'url',
  unset: 'the embedded store locally, DynamoDB on AWS',
  description:
    'use this DynamoDB endpoint instead: DynamoDB Local, or a regional AWS endpoint with your usual credentials; locally the table is created if missing',
} as const satisfies Setting;

export const tableName = {
  env: 'TABLE_NAME',
  read: BOTH,
  type: 'string',
  default: 'handback',
  setBy: 'stack',
  description: "the checkpoint table's name (on AWS the stack's table)",
} as const satisfies Setting;

// Who may call (§13, §16).

export const jwtSecret = {
  env: 'HANDBACK_JWT_SECRET',
  read: LOCAL,
  type: 'secret',
  unset: 'none: one tenant, `default`, no auth',
  description:
    'require `Authorization: Bearer <JWT>` signed HS256 with this secret (at least 32 bytes); its tenant claim scopes all data; a missing, bad or expired token, one without `exp` or without a string `sub`, is a 401 problem',
} as const satisfies Setting;

export const jwtIssuer = {
  env: 'HANDBACK_JWT_ISSUER',
  read: BOTH,
  type: 'url',
  context: 'handback:jwtIssuer',
  prop: 'jwtIssuer',
  unset: 'none; on AWS the stack creates a user pool',
  description:
    "the trusted token issuer (`iss`), checked as API Gateway's JWT authorizer checks it: RS256, RS384 or RS512 only, by a key of the JWKS its `/.well-known/openid-configuration` names, with `iss`, `exp` and `nbf` (on AWS an https URL, and no user pool); the inbox signs people in with it",
} as const satisfies Setting;

export const jwtAudience = {
  env: 'HANDBACK_JWT_AUDIENCE',
  read: LOCAL,
  type: 'list',
  context: 'handback:jwtAudience',
  prop: 'jwtAudience',
  unset: 'none: required with an issuer',
  description:
    "the accepted audiences, comma-separated: a token's `aud` or `client_id` must be one — the issuer's tokens and `HANDBACK_JWT_SECRET`'s HS256 tokens alike (§16)",
} as const satisfies Setting;

export const createUserPool = {
  type: 'boolean',
  context: 'handback:createUserPool',
  prop: 'createUserPool',
  unset: '`true` unless an issuer is given',
  description: 'create a Cognito user pool and its app clients and trust them; `false` requires an issuer',
} as const satisfies Setting;

export const groups = {
  type: 'list',
  context: 'handback:groups',
  default: 'approvers',
  description: "the user pool's groups, comma-separated: people in them match `approvers: {groups}` (`cognito:groups`)",
} as const satisfies Setting;

export const agentTenant = {
  env: 'AGENT_TENANT',
  read: LAMBDA,
  type: 'string',
  context: 'handback:agentTenant',
  default: LIMITS.defaultTenant,
  setBy: 'stack',
  description: 'the tenant of every agent token (client credentials) of the user pool',
} as const satisfies Setting;

export const signInDomainPrefix = {
  type: 'string',
  context: 'handback:signInDomainPrefix',
  unset: '`<stack name>-<account id>`',
  description: "the user pool's managed-login domain, `https://<prefix>.auth.<region>.amazoncognito.com`",
} as const satisfies Setting;

export const oidcClientId = {
  env: 'HANDBACK_OIDC_CLIENT_ID',
  read: BOTH,
  type: 'string',
  setBy: 'stack',
  unset: 'none: the inbox asks for a token',
  description: "the inbox's OIDC client id, for its sign-in (on AWS the user pool's inbox client)",
} as const satisfies Setting;

export const oidcScopes = {
  env: 'HANDBACK_OIDC_SCOPES',
  read: BOTH,
  type: 'string',
  default: 'openid email profile',
  setBy: 'stack',
  description: 'the scopes the inbox asks for when it signs a person in, space-separated',
} as const satisfies Setting;

export const oidcEndpointOrigins = {
  env: 'HANDBACK_OIDC_ENDPOINT_ORIGINS',
  read: BOTH,
  type: 'string',
  setBy: 'stack',
  unset: "the issuer's own origin only",
  description:
    "origins the issuer's endpoints live on besides its own, space-separated (Cognito's managed-login domain), which the inbox page may call",
} as const satisfies Setting;

export const ownUserPoolIssuer = {
  env: 'OWN_USER_POOL_ISSUER',
  read: LAMBDA,
  type: 'url',
  setBy: 'stack',
  unset: 'none: no token email is taken as verified',
  description:
    "the stack's own Cognito pool, whose access tokens carry only verified emails (§16): the API takes their email as the person's",
} as const satisfies Setting;

export const requireScopes = {
  env: 'HANDBACK_REQUIRE_SCOPES',
  read: LOCAL,
  type: 'boolean',
  context: 'handback:requireScopes',
  default: false,
  unset: 'on AWS always on when the stack creates the user pool',
  description:
    'every bearer route needs one of its scopes from the route table (`handback/agent`, `handback/decide`): a token without one is refused 403 (on AWS by API Gateway `AuthorizationScopes`)',
} as const satisfies Setting;

export const tenantClaim = {
  env: 'TENANT_CLAIM',
  read: BOTH,
  type: 'string',
  context: 'handback:tenantClaim',
  prop: 'tenantClaim',
  default: 'tenant',
  description: 'the JWT claim that scopes all data',
} as const satisfies Setting;

export const groupsClaim = {
  env: 'HANDBACK_GROUPS_CLAIM',
  read: BOTH,
  type: 'string',
  context: 'handback:groupsClaim',
  default: 'cognito:groups',
  description: "the claim holding a person's groups (a list, or a string split on spaces only), for approvers by group",
} as const satisfies Setting;

export const recipientDomains = {
  env: 'HANDBACK_RECIPIENT_DOMAINS',
  read: BOTH,
  type: 'list',
  context: 'handback:recipientDomains',
  unset: 'none: an agent names approvers by subject and group only',
  description:
    'the recipient domains (§16), comma-separated: an agent names approvers by email, and email `notify` recipients, only inside them (exactly, or below: `example.com` takes `ops.example.com`); else 400 `recipient_not_allowed`',
} as const satisfies Setting;

// The hand-off (docs/triggers.md).

export const handoff = {
  env: 'HANDOFF_TARGET',
  read: BOTH,
  type: 'words',
  values: HANDOFF_TARGETS,
  context: 'handback:handoff',
  prop: 'handoff',
  unset: 'locally `none` (the closing is logged); on AWS `sqs`, a queue the stack creates',
  description: 'where each continuation pointer goes: `sqs`, `eventbridge`, `lambda` or `none`',
} as const satisfies Setting;

export const handoffQueueUrl = {
  env: 'HANDOFF_QUEUE_URL',
  read: BOTH,
  type: 'url',
  setBy: 'stack',
  description: 'the queue, for `sqs` (on AWS the stack creates it)',
} as const satisfies Setting;

export const handoffEventBusName = {
  env: 'HANDOFF_EVENT_BUS_NAME',
  read: BOTH,
  type: 'string',
  context: 'handback:handoffEventBusName',
  default: 'default',
  description: 'the bus, for `eventbridge`',
} as const satisfies Setting;

export const handoffFunction = {
  env: 'HANDOFF_FUNCTION_NAME',
  read: BOTH,
  type: 'string',
  context: 'handback:handoffFunctionArn',
  unset: 'none',
  description: 'the function, for `lambda` (invoked asynchronously; on AWS the context names its ARN)',
} as const satisfies Setting;

// Answer links and the inbox (§11, §12).

export const linkSecret = {
  env: 'HANDBACK_LINK_SECRET',
  read: LOCAL,
  type: 'secret',
  unset: 'none: no answer links',
  description:
    "the answer-link key (at least 32 bytes, e.g. `$(openssl rand -base64 32)`): a pause's 201 and its `Pause Created` event carry `answerUrl`",
} as const satisfies Setting;

export const linkSecretArn = {
  env: 'LINK_SECRET_ARN',
  read: LAMBDA,
  type: 'string',
  setBy: 'stack',
  unset: 'none: no answer links',
  description: 'the Secrets Manager secret holding the answer-link key, read on first use',
} as const satisfies Setting;

export const inboxUrl = {
  env: 'HANDBACK_INBOX_URL',
  read: BOTH,
  type: 'url',
  context: 'handback:inboxUrl',
  prop: 'inboxUrl',
  unset: "the service's own `/inbox` (on AWS the HTTP API's)",
  description: 'where answer links point, when the inbox is served elsewhere (on AWS an https URL)',
} as const satisfies Setting;

// Lifecycle events and the sweep (docs/triggers.md).

export const webhookUrl = {
  env: 'HANDBACK_WEBHOOK_URL',
  read: LOCAL,
  type: 'url',
  unset: 'none: events are only logged',
  description:
    'POST every lifecycle event here as JSON (4 attempts, backoff from 250 ms) ([triggers](triggers.md#lifecycle-events))',
} as const satisfies Setting;

export const eventBusName = {
  env: 'EVENT_BUS_NAME',
  read: LAMBDA,
  type: 'string',
  context: 'handback:eventBusName',
  prop: 'eventBus',
  setBy: 'stack',
  unset: 'a bus the stack creates',
  description: 'an existing bus for lifecycle events, by name',
} as const satisfies Setting;

export const sweepIntervalMs = {
  env: 'HANDBACK_SWEEP_INTERVAL_MS',
  read: LOCAL,
  type: 'integer',
  default: 1000,
  description: 'how often the sweep runs, in milliseconds (reminders, expiries, `onExpiry: "reject"` closings)',
} as const satisfies Setting;

export const retentionDays = {
  env: 'HANDBACK_RETENTION_DAYS',
  read: LAMBDA,
  type: 'integer',
  context: 'handback:retentionDays',
  default: 365,
  description:
    "days a pause and its audit trail (decisions, votes, who made them) are kept after it expires, before DynamoDB's TTL deletes them ([below](#the-audit-trail-and-its-retention))",
} as const satisfies Setting;

// MCP (§18).

export const mcpWaitSeconds = {
  env: 'HANDBACK_MCP_WAIT_SECONDS',
  read: BOTH,
  type: 'integer',
  default: LIMITS.mcpWaitSeconds.http,
  description: `how long one call of \`POST /mcp\` waits for people before it answers that the pause still waits ([MCP](mcp.md)); at most ${LIMITS.mcpWaitSeconds.http}`,
} as const satisfies Setting;

// The channels (§14, docs/channels.md).

export const channels = {
  env: 'HANDBACK_CHANNELS',
  read: LAMBDA,
  type: 'list',
  setBy: 'stack',
  unset: 'none',
  description: "the channels the stack turned on: a pause's `notify` may name only these",
} as const satisfies Setting;

export const slackBotToken = {
  env: 'HANDBACK_SLACK_BOT_TOKEN',
  read: LOCAL,
  type: 'secret',
  unset: 'none: no Slack',
  description:
    "Slack's bot token (`xoxb-…`), with the signing secret: pauses reach Slack ([channels](channels.md#try-it-locally))",
} as const satisfies Setting;

export const slackSigningSecret = {
  env: 'HANDBACK_SLACK_SIGNING_SECRET',
  read: LOCAL,
  type: 'secret',
  unset: 'none: no Slack',
  description: "Slack's signing secret, with the bot token: `/channels/slack/interactions` checks each click with it",
} as const satisfies Setting;

export const slackSecretName = {
  env: 'SLACK_SECRET_ID',
  read: LAMBDA,
  type: 'string',
  context: 'handback:slackSecretName',
  setBy: 'stack',
  unset: 'none: no Slack',
  description:
    'the Slack channel ([docs/channels.md](channels.md#on-aws)): the name (or full ARN) of a Secrets Manager secret you made, JSON `{"botToken", "signingSecret"}`',
} as const satisfies Setting;

export const slackChannel = {
  env: 'HANDBACK_SLACK_CHANNEL',
  read: BOTH,
  type: 'list',
  context: 'handback:slackChannel',
  unset: 'none',
  description:
    'the Slack channel ids a pause without `notify` is posted in, comma-separated (on AWS needs `slackSecretName`)',
} as const satisfies Setting;

export const slackApiUrl = {
  env: 'HANDBACK_SLACK_API_URL',
  read: BOTH,
  type: 'url',
  default: 'https://slack.com/api/',
  description: "Slack's Web API base URL",
} as const satisfies Setting;

export const smtpUrl = {
  env: 'HANDBACK_SMTP_URL',
  read: LOCAL,
  type: 'url',
  unset: 'none: no email',
  description:
    "the SMTP server that carries each recipient's email (needs `HANDBACK_EMAIL_FROM` and `HANDBACK_LINK_SECRET`)",
} as const satisfies Setting;

export const emailFrom = {
  env: 'HANDBACK_EMAIL_FROM',
  read: BOTH,
  type: 'string',
  context: 'handback:emailFrom',
  unset: 'none: no email',
  description:
    'the sender of the emails: an address, or `Name <address>` (on AWS SES-verified, or an address of a verified domain: the email channel)',
} as const satisfies Setting;

export const emailIdentity = {
  type: 'string',
  context: 'handback:emailIdentity',
  unset: '`emailFrom`',
  description: 'the SES identity `ses:SendEmail` is granted on: the address, or its verified domain',
} as const satisfies Setting;

export const emailRegion = {
  env: 'SES_REGION',
  read: LAMBDA,
  type: 'string',
  context: 'handback:emailRegion',
  unset: "the stack's region",
  description: 'the region of the SES identity',
} as const satisfies Setting;

export const emailTo = {
  env: 'HANDBACK_EMAIL_TO',
  read: BOTH,
  type: 'list',
  context: 'handback:emailTo',
  unset: 'none',
  description: 'the addresses a pause without `notify` is mailed to, comma-separated (on AWS needs `emailFrom`)',
} as const satisfies Setting;

export const emailSandbox = {
  type: 'boolean',
  context: 'handback:emailSandbox',
  default: true,
  description:
    "the account's SES may be in the sandbox: the grant also covers recipients' identities, for mail from `emailFrom` only ([docs/channels.md](channels.md#the-ses-sandbox)); `false` once the account has left it",
} as const satisfies Setting;

export const emailConfigurationSet = {
  env: 'SES_CONFIGURATION_SET',
  read: LAMBDA,
  type: 'string',
  context: 'handback:emailConfigurationSet',
  unset: 'none',
  description: 'an SES configuration set every email is sent with (`ConfigurationSetName`); the grant covers it',
} as const satisfies Setting;

// The deployment's Cedar policies (§17, docs/policies.md).

export const policies = {
  env: 'HANDBACK_POLICIES',
  read: BOTH,
  type: 'path',
  context: 'handback:policies',
  unset: 'none: every ask waits for people',
  description:
    'a Cedar policy file run before people (§17); on AWS validated at synthesis and bundled with the functions that pause ([policies](policies.md))',
} as const satisfies Setting;

export const policySchema = {
  env: 'HANDBACK_POLICY_SCHEMA',
  read: BOTH,
  type: 'path',
  context: 'handback:policySchema',
  unset: 'none',
  description: "a Cedar schema file declaring the tools' `Handback::Args` (needs the policy file)",
} as const satisfies Setting;

export const policyMode = {
  env: 'HANDBACK_POLICY_MODE',
  read: BOTH,
  type: 'words',
  values: POLICY_MODES,
  context: 'handback:policyMode',
  default: 'enforce',
  description: "`enforce`, or `shadow`: the policies' outcomes recorded, people asked as if there were none",
} as const satisfies Setting;

export const policyDefault = {
  env: 'HANDBACK_POLICY_DEFAULT',
  read: BOTH,
  type: 'words',
  values: POLICY_DEFAULTS,
  context: 'handback:policyDefault',
  default: 'ask',
  description: 'an approval no policy matches: `ask` (it waits) or `reject`',
} as const satisfies Setting;

export const cedarSchema = {
  env: 'HANDBACK_CEDAR_SCHEMA',
  read: LAMBDA,
  type: 'path',
  setBy: 'stack',
  unset: "the installed package's `handback.cedarschema`",
  description: "Handback's own Cedar schema, the copy in the function's asset",
} as const satisfies Setting;

export const cedarWasm = {
  env: 'HANDBACK_CEDAR_WASM',
  read: LAMBDA,
  type: 'path',
  setBy: 'stack',
  unset: "the installed package's",
  description: "Cedar's WebAssembly module, the copy in the function's asset",
} as const satisfies Setting;

// Logs, metrics and traces.

export const logLevel = {
  env: 'LOG_LEVEL',
  read: LOCAL,
  type: 'words',
  values: ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'],
  default: 'INFO',
  description: '`DEBUG`, `INFO`, `WARN`, `ERROR`, `SILENT`',
} as const satisfies Setting;

export const powertoolsLogLevel = {
  env: 'POWERTOOLS_LOG_LEVEL',
  read: LAMBDA,
  type: 'string',
  default: 'INFO',
  setBy: 'stack',
  description: "the level of the functions' logs, below Lambda's own log-level control",
} as const satisfies Setting;

export const metricsNamespace = {
  env: 'POWERTOOLS_METRICS_NAMESPACE',
  read: LAMBDA,
  type: 'string',
  default: 'Handback',
  setBy: 'stack',
  description: "the CloudWatch namespace of Handback's metrics",
} as const satisfies Setting;

export const metricsDisabled = {
  env: 'POWERTOOLS_METRICS_DISABLED',
  read: BOTH,
  type: 'boolean',
  unset: 'metrics written on Lambda, not locally',
  description: 'write no EMF metrics (`true`, `1`, `yes`, `on`, …), or write them locally too (`false`)',
} as const satisfies Setting;

export const traceEnabled = {
  env: 'POWERTOOLS_TRACE_ENABLED',
  read: LAMBDA,
  type: 'boolean',
  default: true,
  description: "`false` sends no X-Ray subsegment of the functions' AWS calls",
} as const satisfies Setting;

// What Lambda itself sets: read, never set by you or the stack.

export const lambdaFunctionName = {
  env: 'AWS_LAMBDA_FUNCTION_NAME',
  read: LAMBDA,
  type: 'string',
  setBy: 'lambda',
  description: "the function's name: set on Lambda only",
} as const satisfies Setting;

export const lambdaLogLevel = {
  env: 'AWS_LAMBDA_LOG_LEVEL',
  read: LAMBDA,
  type: 'string',
  setBy: 'lambda',
  description: "Lambda's application log-level control, which wins over every other level",
} as const satisfies Setting;

export const lambdaInitializationType = {
  env: 'AWS_LAMBDA_INITIALIZATION_TYPE',
  read: LAMBDA,
  type: 'string',
  setBy: 'lambda',
  description: '`on-demand`, `provisioned-concurrency` or `snap-start`: only on-demand has cold starts',
} as const satisfies Setting;

export const traceHeader = {
  env: '_X_AMZN_TRACE_ID',
  read: LAMBDA,
  type: 'string',
  setBy: 'lambda',
  description: "the invocation's X-Ray trace header (read per invocation)",
} as const satisfies Setting;

export const xrayDaemonAddress = {
  env: 'AWS_XRAY_DAEMON_ADDRESS',
  read: LAMBDA,
  type: 'string',
  default: '127.0.0.1:2000',
  setBy: 'lambda',
  description: "the X-Ray daemon's UDP address",
} as const satisfies Setting;

export const taskRoot = {
  env: 'LAMBDA_TASK_ROOT',
  read: LAMBDA,
  type: 'path',
  setBy: 'lambda',
  unset: 'the working directory',
  description: "the function's code directory, where relative paths start",
} as const satisfies Setting;

export const awsRegion = {
  env: 'AWS_REGION',
  read: LOCAL,
  type: 'string',
  unset: 'none: locally no task token is completed (the hand-off logs that it was not)',
  description: "the AWS SDK's region; locally, task tokens are completed only when it is set",
} as const satisfies Setting;

// The stack alone (`infra/settings.ts`).

export const stackName = {
  type: 'string',
  context: 'handback:stackName',
  default: 'Handback',
  description: 'the stack name (read by `infra/app.ts`)',
} as const satisfies Setting;

export const exampleAgent = {
  type: 'words',
  values: ['workflow', 'durable'],
  context: 'handback:exampleAgent',
  default: 'workflow',
  description: '`durable` also deploys the example agent as a Lambda durable function ([docs/durable.md](durable.md))',
} as const satisfies Setting;

export const exampleAgentTenant = {
  type: 'string',
  context: 'handback:exampleAgentTenant',
  default: LIMITS.defaultTenant,
  description: 'the one tenant whose runs the example agents may read and write (`dynamodb:LeadingKeys`)',
} as const satisfies Setting;

export const resumeRequestsVia = {
  type: 'words',
  values: ['queue', 'function'],
  context: 'handback:resumeRequestsVia',
  prop: 'resumeRequestsVia',
  default: 'queue',
  description:
    '`Resume Requested` events buffered in the resume queue (`queue`) or sent to the EventBridge handler (`function`)',
} as const satisfies Setting;

export const eventSource = {
  type: 'string',
  context: 'handback:eventSource',
  prop: 'eventSource',
  default: 'handback',
  description: 'the `source` of `Resume Requested` events',
} as const satisfies Setting;

export const resumeEventPrincipals = {
  type: 'list',
  context: 'handback:resumeEventPrincipals',
  unset: 'none: no one may put events',
  description:
    'the IAM principal ARNs (roles, users, `…:root`; wildcards allowed) that may put `Resume Requested` events on the resume bus, comma-separated; the bus refuses every other principal',
} as const satisfies Setting;

export const notifyEmail = {
  type: 'string',
  context: 'handback:notifyEmail',
  prop: 'notifyEmail',
  unset: 'none',
  description: 'an address the `Pause Created` topic mails (confirmed from a first email)',
} as const satisfies Setting;

export const pauseExpirySeconds = {
  type: 'integer',
  context: 'handback:pauseExpirySeconds',
  prop: 'pauseExpiry',
  default: LIMITS.expiresInSeconds.default,
  unset: '7 days',
  description: "how long the reference workflow's pauses wait, in seconds (at most 31,532,400)",
} as const satisfies Setting;

export const logRetentionDays = {
  type: 'integer',
  context: 'handback:logRetentionDays',
  prop: 'logRetention',
  default: 30,
  description: 'retention of every log group (a CloudWatch retention value)',
} as const satisfies Setting;

export const kmsKeyArn = {
  type: 'string',
  context: 'handback:kmsKeyArn',
  prop: 'encryptionKey',
  unset: 'an AWS owned key',
  description: 'a customer managed KMS key for the table and the link key',
} as const satisfies Setting;

export const alarmTopicArn = {
  type: 'string',
  context: 'handback:alarmTopicArn',
  prop: 'alarmTopic',
  unset: 'none: alarms show in the console only',
  description: 'an SNS topic every alarm notifies',
} as const satisfies Setting;

export const removalPolicy = {
  type: 'words',
  values: ['retain', 'destroy'],
  context: 'handback:removalPolicy',
  prop: 'removalPolicy',
  default: 'retain',
  description:
    '`destroy` lets `cdk destroy` delete the table (deletion protection off), the user pool, the key and the log groups',
} as const satisfies Setting;

/** Every setting, by name, in the order the docs list them. */
export const SETTINGS = {
  port,
  host,
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
  cedarSchema,
  cedarWasm,
  logLevel,
  powertoolsLogLevel,
  metricsNamespace,
  metricsDisabled,
  traceEnabled,
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
