import type { SettingName } from './settings.ts';
import { LIMITS } from './vocabulary.ts';

/** What the docs say of one setting. */
export interface SettingDocs {
  /** What it does, in one line. */
  readonly description: string;
  /** What unset means, as the docs' default column says it ("none: no Slack"), after the default when there is one. */
  readonly unset?: string;
  /** The `HandbackStackProps` field that sets it instead, in an app of your own; it wins over the context key. */
  readonly prop?: string;
}

/**
 * What the docs say of each setting of `functions/settings.ts`, by its name there: what it does, what unset means, and
 * the stack prop that sets it. Apart from the rows so that a Lambda bundle, which holds the rows its function reads,
 * holds none of the words; a row without its words here fails to compile. `npm run docs:settings` writes the docs'
 * tables from both.
 */
export const SETTING_DOCS: Record<SettingName, SettingDocs> = {
  port: { description: 'the listening port (`0` = a free one)' },
  host: { description: 'the listening address (`0.0.0.0` for every interface)' },
  allowedHosts: {
    description:
      'more host names the service answers to, comma-separated: on a loopback address (and wherever this is set) it answers only requests whose `Host`, and `Origin` when sent, is `localhost`, `127.0.0.1`, `[::1]` or one of these (any port), else 403 — so a web page cannot reach it by DNS rebinding (§22)',
    unset: 'none',
  },
  dataDir: {
    description:
      'keep the embedded store on disk in this directory (LevelDB): a restart, even after `kill -9`, loses nothing',
    unset: 'in memory',
  },
  dynamodbEndpoint: {
    description:
      'use this DynamoDB endpoint instead: DynamoDB Local, or a regional AWS endpoint with your usual credentials; locally the table is created if missing',
    unset: 'the embedded store locally, DynamoDB on AWS',
  },
  tableName: { description: "the checkpoint table's name (on AWS the stack's table)" },
  jwtSecret: {
    description:
      'require `Authorization: Bearer <JWT>` signed HS256 with this secret (at least 32 bytes); its tenant claim scopes all data; a missing, bad or expired token, one without `exp` or without a string `sub`, is a 401 problem',
    unset: 'none: one tenant, `default`, no auth',
  },
  jwtIssuer: {
    description:
      "the trusted token issuer (`iss`), checked as API Gateway's JWT authorizer checks it: RS256, RS384 or RS512 only, by a key of the JWKS its `/.well-known/openid-configuration` names, with `iss`, `exp` and `nbf` (on AWS an https URL, and no user pool); the inbox signs people in with it",
    unset: 'none; on AWS the stack creates a user pool',
    prop: 'jwtIssuer',
  },
  jwtAudience: {
    description:
      "the accepted audiences, comma-separated: a token's `aud` or `client_id` must be one — the issuer's tokens and `HANDBACK_JWT_SECRET`'s HS256 tokens alike (§16)",
    unset: 'none: required with an issuer',
    prop: 'jwtAudience',
  },
  createUserPool: {
    description: 'create a Cognito user pool and its app clients and trust them; `false` requires an issuer',
    unset: '`true` unless an issuer is given',
    prop: 'createUserPool',
  },
  groups: {
    description:
      "the user pool's groups, comma-separated: people in them match `approvers: {groups}` (`cognito:groups`)",
  },
  agentTenant: { description: 'the tenant of every agent token (client credentials) of the user pool' },
  signInDomainPrefix: {
    description: "the user pool's managed-login domain, `https://<prefix>.auth.<region>.amazoncognito.com`",
    unset: '`<stack name>-<account id>`',
  },
  oidcClientId: {
    description: "the inbox's OIDC client id, for its sign-in (on AWS the user pool's inbox client)",
    unset: 'none: the inbox asks for a token',
  },
  oidcScopes: { description: 'the scopes the inbox asks for when it signs a person in, space-separated' },
  oidcEndpointOrigins: {
    description:
      "origins the issuer's endpoints live on besides its own, space-separated (Cognito's managed-login domain), which the inbox page may call",
    unset: "the issuer's own origin only",
  },
  ownUserPoolIssuer: {
    description:
      "the stack's own Cognito pool, whose access tokens carry only verified emails (§16): the API takes their email as the person's",
    unset: 'none: no token email is taken as verified',
  },
  requireScopes: {
    description:
      'every bearer route needs one of its scopes from the route table (`handback/agent`, `handback/decide`): a token without one is refused 403 (on AWS by API Gateway `AuthorizationScopes`)',
    unset: 'on AWS always on when the stack creates the user pool',
  },
  tenantClaim: { description: 'the JWT claim that scopes all data', prop: 'tenantClaim' },
  groupsClaim: {
    description:
      "the claim holding a person's groups (a list, or a string split on spaces only), for approvers by group",
  },
  recipientDomains: {
    description:
      'the recipient domains (§16), comma-separated: an agent names approvers by email, and email `notify` recipients, only inside them (exactly, or below: `example.com` takes `ops.example.com`); else 400 `recipient_not_allowed`',
    unset: 'none: an agent names approvers by subject and group only',
  },
  handoff: {
    description: 'where each continuation pointer goes: `sqs`, `eventbridge`, `lambda` or `none`',
    unset: 'locally `none` (the closing is logged); on AWS `sqs`, a queue the stack creates',
    prop: 'handoff',
  },
  handoffQueueUrl: { description: 'the queue, for `sqs` (on AWS the stack creates it)' },
  handoffEventBusName: { description: 'the bus, for `eventbridge`' },
  handoffFunction: {
    description: 'the function, for `lambda` (invoked asynchronously; on AWS the context names its ARN)',
    unset: 'none',
  },
  linkSecret: {
    description:
      "the answer-link key (at least 32 bytes, e.g. `$(openssl rand -base64 32)`): a pause's 201 and its `Pause Created` event carry `answerUrl`",
    unset: 'none: no answer links',
  },
  linkSecretArn: {
    description: 'the Secrets Manager secret holding the answer-link key, read on first use',
    unset: 'none: no answer links',
  },
  inboxUrl: {
    description: 'where answer links point, when the inbox is served elsewhere (on AWS an https URL)',
    unset: "the service's own `/inbox` (on AWS the HTTP API's)",
    prop: 'inboxUrl',
  },
  webhookUrl: {
    description:
      'POST every lifecycle event here as JSON (4 attempts, backoff from 250 ms) ([triggers](triggers.md#lifecycle-events))',
    unset: 'none: events are only logged',
  },
  eventBusName: {
    description: 'an existing bus for lifecycle events, by name',
    unset: 'a bus the stack creates',
    prop: 'eventBus',
  },
  sweepIntervalMs: {
    description: 'how often the sweep runs, in milliseconds (reminders, expiries, `onExpiry: "reject"` closings)',
  },
  retentionDays: {
    description:
      "days a pause and its audit trail (decisions, votes, who made them) are kept after it expires, before DynamoDB's TTL deletes them ([below](#the-audit-trail-and-its-retention))",
  },
  mcpWaitSeconds: {
    description: `how long one call of \`POST /mcp\` waits for people before it answers that the pause still waits ([MCP](mcp.md)); at most ${LIMITS.mcpWaitSeconds.http}`,
  },
  channels: { description: "the channels the stack turned on: a pause's `notify` may name only these", unset: 'none' },
  slackBotToken: {
    description:
      "Slack's bot token (`xoxb-…`), with the signing secret: pauses reach Slack ([channels](channels.md#try-it-locally))",
    unset: 'none: no Slack',
  },
  slackSigningSecret: {
    description: "Slack's signing secret, with the bot token: `/channels/slack/interactions` checks each click with it",
    unset: 'none: no Slack',
  },
  slackSecretName: {
    description:
      'the Slack channel ([docs/channels.md](channels.md#on-aws)): the name (or full ARN) of a Secrets Manager secret you made, JSON `{"botToken", "signingSecret"}`',
    unset: 'none: no Slack',
  },
  slackChannel: {
    description:
      'the Slack channel ids a pause without `notify` is posted in, comma-separated (on AWS needs `slackSecretName`)',
    unset: 'none',
  },
  slackApiUrl: { description: "Slack's Web API base URL" },
  smtpUrl: {
    description:
      "the SMTP server that carries each recipient's email (needs `HANDBACK_EMAIL_FROM` and `HANDBACK_LINK_SECRET`)",
    unset: 'none: no email',
  },
  emailFrom: {
    description:
      'the sender of the emails: an address, or `Name <address>` (on AWS SES-verified, or an address of a verified domain: the email channel)',
    unset: 'none: no email',
  },
  emailIdentity: {
    description: 'the SES identity `ses:SendEmail` is granted on: the address, or its verified domain',
    unset: '`emailFrom`',
  },
  emailRegion: { description: 'the region of the SES identity', unset: "the stack's region" },
  emailTo: {
    description: 'the addresses a pause without `notify` is mailed to, comma-separated (on AWS needs `emailFrom`)',
    unset: 'none',
  },
  emailSandbox: {
    description:
      "the account's SES may be in the sandbox: the grant also covers recipients' identities, for mail from `emailFrom` only ([docs/channels.md](channels.md#the-ses-sandbox)); `false` once the account has left it",
  },
  emailConfigurationSet: {
    description: 'an SES configuration set every email is sent with (`ConfigurationSetName`); the grant covers it',
    unset: 'none',
  },
  policies: {
    description:
      'a Cedar policy file run before people (§17); on AWS validated at synthesis and bundled with the functions that pause ([policies](policies.md))',
    unset: 'none: every ask waits for people',
  },
  policySchema: {
    description: "a Cedar schema file declaring the tools' `Handback::Args` (needs the policy file)",
    unset: 'none',
  },
  policyMode: {
    description: "`enforce`, or `shadow`: the policies' outcomes recorded, people asked as if there were none",
  },
  policyDefault: { description: 'an approval no policy matches: `ask` (it waits) or `reject`' },
  policyTimeZone: {
    description:
      "the IANA time zone of the policies' `context.clock` (weekday, hour, minute: §19), e.g. `Europe/Paris`; a zone that is not one refuses the start and the synthesis",
  },
  policyVersion: {
    description: "the policy set's version on the audit trail (§19), 1–64 visible ASCII characters, e.g. a release tag",
    unset: 'the first 16 hex digits of the SHA-256 of the policy file, the schemas, the mode and the default',
  },
  escalation: {
    description:
      'the escalation ladder of asks no policy escalates (§21): `PT30M group:leads; PT2H manager; PT8H email:cfo@example.com`, validated at start and at synthesis ([policies](policies.md))',
    unset: 'none: an ask waits for its approvers until it expires',
  },
  cedarSchema: {
    description: "Handback's own Cedar schema, the copy in the function's asset",
    unset: "the installed package's `handback.cedarschema`",
  },
  cedarWasm: {
    description: "Cedar's WebAssembly module, the copy in the function's asset",
    unset: "the installed package's",
  },
  // §20
  directory: {
    description:
      'a directory file of persons, `{"people": [...]}` (§20): principals resolve to them, an address alone is no person; checked at start (on AWS at synthesis) and bundled with the functions that decide, pause or tell people ([identities](identities.md#the-directory))',
    unset: 'none: tokens and Slack users are persons, an address alone decides no four-eyes or quorum ask',
  },
  // §20 SCIM
  scimToken: {
    description:
      'the SCIM secret (at least 32 bytes): an identity provider provisions persons and groups at `/scim/v2` with it as its bearer token, kept in the table; not with `HANDBACK_DIRECTORY` ([identities](identities.md#scim-20-provisioning))',
    unset: 'none: no `/scim/v2`',
  },
  scim: {
    description:
      '`true` serves SCIM at `/scim/v2` for the default tenant, any other value for that tenant: the stack creates the SCIM secret in Secrets Manager and gives the API function it and the tenant; not with `handback:directory` ([identities](identities.md#scim-20-provisioning))',
    unset: 'none: no `/scim/v2`, no secret',
  },
  scimSecretArn: {
    description: 'the Secrets Manager secret holding the SCIM secret, created by the stack, read on first use',
    unset: 'none: no `/scim/v2`',
  },
  scimTenant: {
    description: 'the tenant whose persons and groups SCIM provisions (on AWS from `handback:scim`)',
  },
  logLevel: { description: '`DEBUG`, `INFO`, `WARN`, `ERROR`, `SILENT`' },
  powertoolsLogLevel: { description: "the level of the functions' logs, below Lambda's own log-level control" },
  metricsNamespace: { description: "the CloudWatch namespace of Handback's metrics" },
  metricsDisabled: {
    description: 'write no EMF metrics (`true`, `1`, `yes`, `on`, …), or write them locally too (`false`)',
    unset: 'metrics written on Lambda, not locally',
  },
  traceEnabled: { description: "`false` sends no X-Ray subsegment of the functions' AWS calls" },
  otlpEndpoint: {
    description:
      'export the spans `handback.pause` and `handback.ask` over OTLP/HTTP (JSON) to this base URL (`/v1/traces` is appended) ([observability](observability.md))',
    unset: 'none: no span is made, and no tracing code is loaded',
  },
  lambdaFunctionName: { description: "the function's name: set on Lambda only" },
  lambdaLogLevel: { description: "Lambda's application log-level control, which wins over every other level" },
  lambdaInitializationType: {
    description: '`on-demand`, `provisioned-concurrency` or `snap-start`: only on-demand has cold starts',
  },
  traceHeader: { description: "the invocation's X-Ray trace header (read per invocation)" },
  xrayDaemonAddress: { description: "the X-Ray daemon's UDP address" },
  taskRoot: {
    description: "the function's code directory, where relative paths start",
    unset: 'the working directory',
  },
  awsRegion: {
    description: "the AWS SDK's region; locally, task tokens are completed only when it is set",
    unset: 'none: locally no task token is completed (the hand-off logs that it was not)',
  },
  stackName: { description: 'the stack name (read by `infra/app.ts`)' },
  exampleAgent: {
    description:
      '`durable` also deploys the example agent as a Lambda durable function ([docs/durable.md](durable.md))',
  },
  exampleAgentTenant: {
    description: 'the one tenant whose runs the example agents may read and write (`dynamodb:LeadingKeys`)',
  },
  resumeRequestsVia: {
    description:
      '`Resume Requested` events buffered in the resume queue (`queue`) or sent to the EventBridge handler (`function`)',
    prop: 'resumeRequestsVia',
  },
  eventSource: { description: 'the `source` of `Resume Requested` events', prop: 'eventSource' },
  resumeEventPrincipals: {
    description:
      'the IAM principal ARNs (roles, users, `…:root`; wildcards allowed) that may put `Resume Requested` events on the resume bus, comma-separated; the bus refuses every other principal',
    unset: 'none: no one may put events',
  },
  notifyEmail: {
    description: 'an address the `Pause Created` topic mails (confirmed from a first email)',
    unset: 'none',
    prop: 'notifyEmail',
  },
  pauseExpirySeconds: {
    description: "how long the reference workflow's pauses wait, in seconds (at most 31,532,400)",
    unset: '7 days',
    prop: 'pauseExpiry',
  },
  logRetentionDays: {
    description: 'retention of every log group (a CloudWatch retention value)',
    prop: 'logRetention',
  },
  kmsKeyArn: {
    description: 'a customer managed KMS key for the table and the link key',
    unset: 'an AWS owned key',
    prop: 'encryptionKey',
  },
  alarmTopicArn: {
    description: 'an SNS topic every alarm notifies',
    unset: 'none: alarms show in the console only',
    prop: 'alarmTopic',
  },
  removalPolicy: {
    description:
      '`destroy` lets `cdk destroy` delete the table (deletion protection off), the user pool, the key and the log groups',
    prop: 'removalPolicy',
  },
  // §23
  transcriptBucket: {
    description:
      "the bucket transcripts over 64 KB compressed go to, beside the table ([storage](storage.md#transcripts-in-s3)); on AWS the stack's `TranscriptBucket`, locally one on the embedded S3 server or `HANDBACK_S3_ENDPOINT`",
  },
  s3Endpoint: {
    description:
      'use this S3-compatible endpoint for transcripts instead (MinIO, s3rver, or a regional S3 endpoint with your usual credentials)',
    unset: 'the embedded S3 server (none with `DYNAMODB_ENDPOINT`); S3 on AWS',
  },
  backup: {
    description:
      'an AWS Backup plan (daily, kept 35 days) for the table and the transcript bucket, and versioning on the bucket ([deploy](deploy.md#recovery))',
  },
  tableClass: {
    description:
      "the checkpoint table's class: `standard-ia` (Standard-Infrequent Access: storage 60% cheaper, requests 25% dearer) or `standard`; a year of audit trail makes storage most of what a decided pause costs ([what it costs](deploy.md#what-it-costs-at-rest))",
  },
  throttles: {
    description:
      'the HTTP API\'s throttles by group of routes, JSON `{"<group>": {"rate": <requests/s>, "burst": <requests>}}`, each route of a group its own budget; a group left out keeps its default ([the groups](#throttles-and-cloudfront-and-waf-in-front))',
    unset: '1,000 / 1,000 on each bearer route; the other groups [below](#throttles-and-cloudfront-and-waf-in-front)',
  },
  mcpConcurrency: {
    description:
      "the MCP function's reserved concurrency: at most this many `/mcp` calls run, and wait, at once, taken from the account's unreserved concurrency ([below](#the-mcp-functions-reserved-concurrency)); `none` reserves nothing",
  },
  pendingAlarmMinutes: {
    description:
      "minutes an ask may wait for people before the `OldestPendingAsk` alarm fires (§21: the sweep's `OldestPendingSeconds`)",
  },
};
