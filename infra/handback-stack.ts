import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import * as S from '../functions/settings.ts';
import { ApprovalWorkflow, MAX_PAUSE_EXPIRY, ResumeWorkflow } from './approval-workflow.ts';
import { HandbackChannels } from './channels.ts';
import { CheckpointTable } from './checkpoint-table.ts';
import { DecisionsDashboard } from './decisions-dashboard.ts';
import { durableExampleAgent, exampleAgent } from './example-agents.ts';
import { HandbackFunction } from './handback-function.ts';
import { Handoff } from './handoff.ts';
import { HandbackHttpApi } from './http-api.ts';
import { LifecycleEvents } from './lifecycle-events.ts';
import { ENTRY } from './paths.ts';
import { acknowledgeSynchronous, pauseFunctions } from './pause-functions.ts';
import { ResumeTriggers } from './resume-triggers.ts';
import {
  ConfigurationError,
  type HandbackStackProps,
  resolveChannelSettings,
  resolveSettings,
  type Settings,
} from './settings.ts';
import { stackAlarms } from './stack-alarms.ts';
import { stackOutputs } from './stack-outputs.ts';
import { TranscriptBucket } from './transcript-bucket.ts';
import { HandbackUserPool, INBOX_SCOPES } from './user-pool.ts';

export type { HandbackStackProps };

/**
 * Handback on AWS: the checkpoint table, the HTTP API (with the inbox page and answer links), the resume triggers
 * (Step Functions task, SQS, EventBridge), the hand-off target, the sweep that acts on expiries and reminders,
 * lifecycle events on a bus with an example notification, a reference approval workflow, and alarms.
 * Environment-agnostic: nothing is looked up at synthesis. Each concern is made by a construct or a function of its
 * own; the constructor wires them.
 */
export class HandbackStack extends Stack {
  constructor(scope: Construct, id: string, props: HandbackStackProps = {}) {
    super(scope, id, props);
    const settings = resolveSettings(this, props);
    checkPauseExpiry(settings);
    const logging = { logRetention: settings.logRetention, logRemovalPolicy: settings.removalPolicy };

    const { table } = new CheckpointTable(this, 'Checkpoints', {
      encryptionKey: settings.encryptionKey,
      removalPolicy: settings.removalPolicy,
      tableClass: settings.tableClass,
    });
    // Transcripts over 64 KB compressed (§23), and with handback:backup the table's and their backups.
    const transcripts = new TranscriptBucket(this, 'Transcripts', {
      retentionDays: settings.retentionDays,
      encryptionKey: settings.encryptionKey,
      removalPolicy: settings.removalPolicy,
      ...(settings.backup ? { backupTable: table } : {}),
    }).bucket;
    const handoff = new Handoff(this, 'Handoff', { target: settings.handoff });
    const linkKey = answerLinkKey(this, settings);
    const fns = pauseFunctions(this, { settings, table, transcripts, handoff, logging });
    fns.api.grantSecretRead(linkKey);

    const agent = props.agent ?? exampleAgent(this, { settings, table, transcripts, logging });
    const approval = new ApprovalWorkflow(this, 'ApprovalWorkflow', {
      agent,
      pauseExpiry: settings.pauseExpiry,
      ...logging,
    });
    const resume = new ResumeWorkflow(this, 'ResumeWorkflow', {
      resumeFunction: fns.stepFunctions.function,
      ...logging,
    });
    // The channels (§14): Slack and email, each only when its context turns it on.
    const channels = new HandbackChannels(this, 'Channels', {
      table,
      transcripts,
      handoff,
      settings: resolveChannelSettings(this),
      ...(settings.inboxUrl === undefined ? {} : { inboxUrl: settings.inboxUrl }),
      ...(settings.policies === undefined ? {} : { policies: settings.policies }),
      ...(settings.directory === undefined ? {} : { directory: settings.directory }),
      ...logging,
    });
    if (channels.names.length > 0) {
      for (const fn of [fns.api, fns.mcp]) fn.function.addEnvironment(S.channels.env, channels.names.join(','));
    }
    const resumers = [...channels.deciders, ...fns.resumers];
    for (const fn of resumers) fn.grantTaskCallbacks(approval.stateMachine);
    if (settings.exampleAgent === 'durable')
      durableExampleAgent(this, { settings, table, transcripts, logging }, resumers);

    const { userPool, jwt } = whoSignsTokens(this, settings, fns.api);
    // The inbox page's files on a function of their own: the API function's bundle and cold start stay without them.
    const inbox = new HandbackFunction(this, 'InboxHandler', {
      entry: ENTRY.inbox,
      description: 'Handback inbox page (static files, payload 2.0)',
      timeout: Duration.seconds(10),
      ...logging,
    });
    acknowledgeSynchronous(inbox, 'API Gateway invokes it synchronously and returns its errors to the caller');
    const httpApi = new HandbackHttpApi(this, 'Http', {
      handler: fns.api.function,
      inboxHandler: inbox.function,
      mcpHandler: fns.mcp.function,
      ...(channels.slackInteractions ? { slackHandler: channels.slackInteractions.function } : {}),
      ...jwt,
      requireScopes: settings.requireScopes,
      scim: settings.scim !== undefined,
      throttles: settings.throttles,
      ...logging,
    });
    const inboxUrl = settings.inboxUrl ?? `${httpApi.api.apiEndpoint}/inbox`;
    if (userPool) signInWithPool(userPool, inbox, inboxUrl);

    const lifecycle = new LifecycleEvents(this, 'Lifecycle', {
      table,
      transcripts,
      linkKey,
      inboxUrl,
      eventBus: settings.eventBus,
      notifyEmail: settings.notifyEmail,
      ...logging,
    });
    channels.deliverFrom({
      eventBus: lifecycle.eventBus,
      linkKey,
      inboxUrl,
      recipientDomains: settings.recipientDomains,
      api: fns.api,
    });
    // After the deliveries are made: they are told too (§20 SCIM).
    const scimSecret =
      settings.scim === undefined
        ? undefined
        : serveScim(this, settings, settings.scim, fns.api, [
            ...new Set([...fns.resumers, fns.mcp].map((fn) => fn.function)),
            ...Object.values(channels.functions),
          ]);
    const triggers = new ResumeTriggers(this, 'ResumeRequests', {
      handler: fns.sqs.function,
      handlerTimeout: Duration.seconds(60),
      eventSource: settings.eventSource,
      eventBridgeHandler: fns.eventBridge?.function,
      putEventsPrincipals: settings.resumeEventPrincipals,
    });

    // §21: every function exports its spans to the deployment's OTLP endpoint, when it has one.
    if (settings.otlpEndpoint !== undefined) {
      for (const fn of this.node.findAll().filter((node) => node instanceof HandbackFunction)) {
        fn.function.addEnvironment(S.otlpEndpoint.env, settings.otlpEndpoint);
      }
    }
    // §21 escalation: the default ladder, read by the functions that pause (recorded on each ask at its pause).
    if (settings.escalation !== undefined) {
      for (const fn of this.node.findAll().filter((node) => node instanceof HandbackFunction)) {
        fn.function.addEnvironment(S.escalation.env, settings.escalation);
      }
    }

    const parts = { table, handoff, lifecycle, triggers, approval, resume, userPool, httpApi };
    // §21: how decisions are going, and the alarm on the oldest waiting ask.
    const decisions = new DecisionsDashboard(this, 'Decisions', { pendingAlarm: settings.pendingAlarm });
    stackAlarms(this, { ...parts, fns, inbox, channels, agent, decisions, topic: settings.alarmTopic });
    stackOutputs(this, { ...parts, inboxUrl, scimSecret });
  }
}

/** The reference workflow waits for a pause's expiry and the sweep's bound, inside Step Functions' one year. */
function checkPauseExpiry(settings: Settings): void {
  if (settings.pauseExpiry.toSeconds() > MAX_PAUSE_EXPIRY.toSeconds()) {
    throw new ConfigurationError(
      `pauseExpiry (context ${S.pauseExpirySeconds.context}) is ${settings.pauseExpiry.toSeconds()} seconds: at most ${MAX_PAUSE_EXPIRY.toSeconds()}, so that the reference workflow's wait (the expiry and the sweep's bound) fits Step Functions' one-year execution limit.`,
    );
  }
}

/** The answer-link key (§11): letters and digits only, so the value is safe in any header or URL it meets. */
function answerLinkKey(stack: Stack, settings: Settings): Secret {
  const linkKey = new Secret(stack, 'AnswerLinkKey', {
    description: 'Handback answer-link key: HMAC-SHA256 key of the signed links to the inbox page',
    generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    encryptionKey: settings.encryptionKey,
    removalPolicy: settings.removalPolicy,
  });
  Validations.of(linkKey).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'The key signs answer links that stay valid until their pause closes (up to a year): rotating it would void every open link at once, so people could no longer decide from the emails and messages they already have. Rotate it by hand, knowing that.',
  });
  return linkKey;
}

/**
 * SCIM (§20) on the API function: the secret an identity provider sends as its bearer token (generated, letters and
 * digits only, so it is safe in an `Authorization` header as it is), the function told where it is and which tenant
 * it provisions, and allowed to read that one secret. Every function that decides, pauses or tells people (`deciders`:
 * the set a directory file goes to, the channels' functions too) is told the same two variables, which make its
 * directory the table-kept one, so a person SCIM deactivated decides nothing from any door and a delivery finds the
 * delegates; only the API function may read the secret. The persons are in the checkpoint table, which each of them
 * already reads (and the API function writes).
 */
function serveScim(
  stack: Stack,
  settings: Settings,
  scim: { tenant: string },
  api: HandbackFunction,
  deciders: readonly HandbackFunction['function'][],
): Secret {
  const secret = new Secret(stack, 'ScimSecret', {
    description:
      'Handback SCIM secret: the bearer token an identity provider provisions persons and groups with at /scim/v2',
    generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    encryptionKey: settings.encryptionKey,
    removalPolicy: settings.removalPolicy,
  });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason:
      'The identity provider holds a copy of the secret: a rotation by Secrets Manager would stop provisioning until someone pasted the new value into the provider. Rotate it by hand, putting a new value and giving it to the provider (the function reads it again within five minutes).',
  });
  api.grantSecretRead(secret, S.scimSecretArn.env);
  for (const fn of deciders) {
    fn.addEnvironment(S.scimSecretArn.env, secret.secretArn);
    fn.addEnvironment(S.scimTenant.env, scim.tenant);
  }
  return secret;
}

/**
 * Who signs the API's tokens: the user pool the stack creates (its issuer and clients the authorizer's; its
 * pre-token trigger puts only verified emails in its access tokens, so the API may trust them, §16), or the issuer
 * the settings name.
 */
function whoSignsTokens(
  stack: Stack,
  settings: Settings,
  api: HandbackFunction,
): { userPool: HandbackUserPool | undefined; jwt: { jwtIssuer: string; jwtAudience: string[] } } {
  if (settings.auth.kind !== 'userPool') {
    return { userPool: undefined, jwt: { jwtIssuer: settings.auth.jwtIssuer, jwtAudience: settings.auth.jwtAudience } };
  }
  const userPool = new HandbackUserPool(stack, 'Users', {
    tenantClaim: settings.tenantClaim,
    groups: settings.auth.groups,
    domainPrefix: settings.auth.domainPrefix,
    agentTenant: settings.auth.agentTenant,
    removalPolicy: settings.removalPolicy,
    logRetention: settings.logRetention,
  });
  api.function.addEnvironment(S.ownUserPoolIssuer.env, userPool.issuer);
  return { userPool, jwt: { jwtIssuer: userPool.issuer, jwtAudience: userPool.audience } };
}

/**
 * The inbox page signs people in with the pool (§13): `GET /inbox/config.json` tells it the issuer, its client and
 * scopes; the token endpoint lives on the managed-login domain, which the page's policy must let it call.
 */
function signInWithPool(userPool: HandbackUserPool, inbox: HandbackFunction, inboxUrl: string): void {
  const inboxClient = userPool.addInboxClient(inboxUrl);
  inbox.function.addEnvironment(S.jwtIssuer.env, userPool.issuer);
  inbox.function.addEnvironment(S.oidcClientId.env, inboxClient.userPoolClientId);
  inbox.function.addEnvironment(S.oidcScopes.env, INBOX_SCOPES.join(' '));
  inbox.function.addEnvironment(S.oidcEndpointOrigins.env, userPool.signInUrl);
}
