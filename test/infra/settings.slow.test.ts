import { App, Duration, Stack } from 'aws-cdk-lib';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { HandbackStack } from '../../infra/handback-stack.ts';
import { CONTEXT, ConfigurationError, PLACEHOLDER_ISSUER, resolveSettings } from '../../infra/settings.ts';
import { synthesizeWithChecks } from './synth.ts';

const JWT = { jwtIssuer: 'https://issuer.test/', jwtAudience: ['handback-test'] };

/** A bare stack with the given context, to resolve settings against. */
function stackWith(context: Record<string, unknown> = {}): Stack {
  return new Stack(new App({ context }), 'Settings');
}

describe('resolveSettings', () => {
  it('documents every default: tenant claim, SQS hand-off, 30 days of logs, 7-day pauses, source handback, retain except on create, own bus, no email, the API inbox', () => {
    const settings = resolveSettings(stackWith(), JWT);
    expect({
      eventBus: settings.eventBus,
      notifyEmail: settings.notifyEmail,
      inboxUrl: settings.inboxUrl,
      tenantClaim: settings.tenantClaim,
      handoff: settings.handoff,
      logRetention: settings.logRetention,
      pauseExpiry: settings.pauseExpiry.toSeconds(),
      eventSource: settings.eventSource,
      removalPolicy: settings.removalPolicy,
      encryptionKey: settings.encryptionKey,
      alarmTopic: settings.alarmTopic,
    }).toEqual({
      eventBus: undefined,
      notifyEmail: undefined,
      inboxUrl: undefined,
      tenantClaim: 'tenant',
      handoff: { type: 'sqs' },
      logRetention: RetentionDays.ONE_MONTH,
      pauseExpiry: 604_800,
      eventSource: 'handback',
      removalPolicy: 'retain-on-update-or-delete',
      encryptionKey: undefined,
      alarmTopic: undefined,
    });
  });

  it('prefers a prop over its context key', () => {
    const settings = resolveSettings(stackWith({ [CONTEXT.tenantClaim]: 'from_context' }), {
      ...JWT,
      tenantClaim: 'from_props',
    });
    expect(settings.tenantClaim).toBe('from_props');
  });

  it('reads a comma-separated audience from context', () => {
    const settings = resolveSettings(
      stackWith({ [CONTEXT.jwtIssuer]: 'https://issuer.test/', [CONTEXT.jwtAudience]: 'web, cli' }),
      {},
    );
    expect(settings.auth).toEqual({ kind: 'issuer', jwtIssuer: 'https://issuer.test/', jwtAudience: ['web', 'cli'] });
  });

  it('creates a user pool when no issuer is given: the approvers group, a domain for the stack and account, agents of tenant default', () => {
    const stack = stackWith();
    expect(resolveSettings(stack, {}).auth).toEqual({
      kind: 'userPool',
      groups: ['approvers'],
      domainPrefix: `settings-${stack.account}`,
      agentTenant: 'default',
    });
  });

  it('requires scopes on the routes when it creates the user pool', () => {
    expect(resolveSettings(stackWith(), {}).requireScopes).toBe(true);
  });

  it('trusts an issuer in context, and creates no user pool', () => {
    const context = { [CONTEXT.jwtIssuer]: 'https://issuer.test/', [CONTEXT.jwtAudience]: 'web' };
    expect(resolveSettings(stackWith(context), {}).auth.kind).toBe('issuer');
  });

  it('refuses createUserPool=false without an issuer, naming what to set', () => {
    expect(() => resolveSettings(stackWith({ [CONTEXT.createUserPool]: 'false' }), {})).toThrow(
      new ConfigurationError(
        'Context handback:createUserPool=false needs an issuer to trust: set -c handback:jwtIssuer=https://<your OIDC issuer> and -c handback:jwtAudience=<client ids> (cdk.json or -c), or drop handback:createUserPool=false to have the stack create a Cognito user pool.',
      ),
    );
  });

  it.each([
    [{ createUserPool: false }, /^createUserPool: false needs an issuer to trust/],
    [{ jwtAudience: ['web'] }, /^The jwtAudience prop is set without jwtIssuer/],
  ])('names the prop, not a context key, when %j comes from props', (props, message) => {
    expect(() => resolveSettings(stackWith(), props)).toThrow(message);
  });

  it('refuses an audience without an issuer, which would otherwise be ignored', () => {
    expect(() => resolveSettings(stackWith({ [CONTEXT.jwtAudience]: 'handback' }), {})).toThrow(
      /^Context handback:jwtAudience is set without handback:jwtIssuer/,
    );
  });

  it('refuses an issuer without an audience, naming the key', () => {
    expect(() => resolveSettings(stackWith({ [CONTEXT.jwtIssuer]: 'https://issuer.test/' }), {})).toThrow(
      /pass jwtAudience, or set context handback:jwtAudience/,
    );
  });

  it('reads the groups, the domain prefix and the agent tenant of the pool from context', () => {
    const context = {
      [CONTEXT.groups]: 'finance,legal',
      [CONTEXT.signInDomainPrefix]: 'acme-approvals',
      [CONTEXT.agentTenant]: 'acme',
    };
    expect(resolveSettings(stackWith(context), {}).auth).toEqual({
      kind: 'userPool',
      groups: ['finance', 'legal'],
      domainPrefix: 'acme-approvals',
      agentTenant: 'acme',
    });
  });

  it.each([
    [
      'a group with a space',
      { [CONTEXT.groups]: ['finance team'] },
      /^Context handback:groups names the group "finance team"/,
    ],
    ['a group twice', { [CONTEXT.groups]: 'legal,legal' }, /^Context handback:groups names a group twice/],
    [
      'a domain prefix with capitals',
      { [CONTEXT.signInDomainPrefix]: 'Acme' },
      /^Context handback:signInDomainPrefix must be a domain prefix, not "Acme"/,
    ],
    [
      'a domain prefix with a reserved word',
      { [CONTEXT.signInDomainPrefix]: 'acme-cognito' },
      /without "aws", "amazon" or "cognito"/,
    ],
  ])('refuses %s for the pool, naming the key', (_, context, message) => {
    expect(() => resolveSettings(stackWith(context), {})).toThrow(message);
  });

  it('refuses a stack name that cannot make the default domain prefix, and says which key to set', () => {
    const stack = new Stack(new App(), 'MyAwsHandback');
    expect(() => resolveSettings(stack, {})).toThrow(
      /^The stack name MyAwsHandback makes the sign-in domain prefix myawshandback-<account id>, .*: set -c handback:signInDomainPrefix=<prefix>\.$/,
    );
  });

  it('refuses the placeholder issuer of older cdk.json files in one line naming the key and what to set', () => {
    const context = { [CONTEXT.jwtIssuer]: PLACEHOLDER_ISSUER, [CONTEXT.jwtAudience]: 'handback' };
    expect(() => resolveSettings(stackWith(context), {})).toThrow(
      new ConfigurationError(
        'Context handback:jwtIssuer is the placeholder https://issuer.example.com/: set -c handback:jwtIssuer=https://<your OIDC issuer> (e.g. https://cognito-idp.<region>.amazonaws.com/<pool id>, in cdk.json or on the command line), or remove handback:jwtIssuer and handback:jwtAudience to have the stack create a Cognito user pool.',
      ),
    );
  });

  it.each(['not-a-url', 'http://issuer.test/', 'issuer.test'])(
    'refuses the issuer %s, which is not an https URL',
    (issuer) => {
      const context = { [CONTEXT.jwtIssuer]: issuer, [CONTEXT.jwtAudience]: 'handback' };
      expect(() => resolveSettings(stackWith(context), {})).toThrow(
        `Context handback:jwtIssuer must be an https URL, not ${JSON.stringify(issuer)}: set -c handback:jwtIssuer=https://`,
      );
    },
  );

  it('says which prop is wrong when the issuer comes from props', () => {
    expect(() => resolveSettings(stackWith(), { jwtIssuer: 'not-a-url', jwtAudience: ['a'] })).toThrow(
      /^The jwtIssuer prop must be an https URL/,
    );
  });

  it('makes every refusal a ConfigurationError, which the app prints as its one line', () => {
    expect(() => resolveSettings(stackWith({ [CONTEXT.handoff]: 'kinesis' }), JWT)).toThrow(ConfigurationError);
  });

  it('creates a user pool instead of trusting an issuer when createUserPool is true, past the cdk.json placeholder', () => {
    const context = { [CONTEXT.createUserPool]: 'true', [CONTEXT.jwtIssuer]: PLACEHOLDER_ISSUER };
    expect(resolveSettings(stackWith(context), {}).auth.kind).toBe('userPool');
  });

  it('refuses createUserPool next to a real issuer, naming both keys', () => {
    const context = { [CONTEXT.createUserPool]: true, [CONTEXT.jwtIssuer]: 'https://issuer.test/' };
    expect(() => resolveSettings(stackWith(context), {})).toThrow(
      'Context handback:createUserPool=true creates the issuer, but handback:jwtIssuer is also set (https://issuer.test/): keep one of the two.',
    );
  });

  it('refuses createUserPool next to the issuer props', () => {
    expect(() => resolveSettings(stackWith(), { ...JWT, createUserPool: true })).toThrow(
      /drop the jwtIssuer and jwtAudience props/,
    );
  });

  it.each(['sub', 'aud', 'cognito:groups'])(
    'refuses the tenant claim %s for the pool it creates by default, which Cognito will not let a trigger set',
    (claim) => {
      const context = { [CONTEXT.tenantClaim]: claim };
      expect(() => resolveSettings(stackWith(context), {})).toThrow(/a claim Cognito does not let a trigger set/);
    },
  );

  it('refuses a createUserPool that is neither true nor false', () => {
    expect(() => resolveSettings(stackWith({ [CONTEXT.createUserPool]: 'yes' }), {})).toThrow(
      'Context handback:createUserPool must be true or false, not "yes".',
    );
  });

  it('refuses a notification address that is not one', () => {
    expect(() => resolveSettings(stackWith({ [CONTEXT.notifyEmail]: 'approvers' }), JWT)).toThrow(
      'Context handback:notifyEmail must be an email address, not "approvers".',
    );
  });

  it('refuses an inbox URL that is not https', () => {
    expect(() => resolveSettings(stackWith({ [CONTEXT.inboxUrl]: 'http://inbox.test/' }), JWT)).toThrow(
      /^Context handback:inboxUrl must be an https URL/,
    );
  });

  // §21
  it('exports no spans unless context names an OTLP endpoint, and reads a plain-http collector beside the functions', () => {
    expect(resolveSettings(stackWith(), JWT).otlpEndpoint).toBeUndefined();
    expect(resolveSettings(stackWith({ [CONTEXT.otlpEndpoint]: 'http://localhost:4318' }), JWT).otlpEndpoint).toBe(
      'http://localhost:4318',
    );
  });

  it('refuses an OTLP endpoint that is not an http(s) URL, naming the key', () => {
    for (const value of ['localhost:4318', 'grpc://collector:4317', 'not a url']) {
      expect(() => resolveSettings(stackWith({ [CONTEXT.otlpEndpoint]: value }), JWT)).toThrow(
        `Context handback:otlpEndpoint must be the OTLP/HTTP base URL spans are sent to (e.g. https://otlp.example.com), not ${JSON.stringify(value)}.`,
      );
    }
  });

  // §21 escalation
  it('has no default ladder unless context names one, and keeps a valid one as written for the functions', () => {
    expect(resolveSettings(stackWith(), JWT).escalation).toBeUndefined();
    const ladder = 'PT30M group:finance-leads; PT2H manager; PT8H email:cfo@example.com';
    expect(resolveSettings(stackWith({ [CONTEXT.escalation]: ladder }), JWT).escalation).toBe(ladder);
  });

  it('refuses a bad ladder at synthesis, naming the key and the column', () => {
    expect(() => resolveSettings(stackWith({ [CONTEXT.escalation]: 'PT30M group:a; PT2H boss:x' }), JWT)).toThrow(
      'Context handback:escalation at column 21: approver "boss:x": "boss:" is none of group:, email:, sub: and slack:.',
    );
  });

  it('imports the lifecycle bus named by context', () => {
    const settings = resolveSettings(stackWith({ [CONTEXT.eventBusName]: 'handback-lifecycle' }), JWT);
    expect(settings.eventBus?.eventBusName).toBe('handback-lifecycle');
  });

  it('refuses an unknown hand-off target', () => {
    expect(() => resolveSettings(stackWith({ [CONTEXT.handoff]: 'kinesis' }), JWT)).toThrow(
      'Context handback:handoff must be sqs, eventbridge, lambda or none, not kinesis.',
    );
  });

  it('needs the function ARN for a Lambda hand-off', () => {
    expect(() => resolveSettings(stackWith({ [CONTEXT.handoff]: 'lambda' }), JWT)).toThrow(
      /handback:handoffFunctionArn/,
    );
  });

  it('refuses a log retention CloudWatch does not offer', () => {
    expect(() => resolveSettings(stackWith({ [CONTEXT.logRetentionDays]: 31 }), JWT)).toThrow(/must be one of/);
  });
});

describe('HandbackStack', () => {
  it("refuses a pause expiry whose wait would not fit Step Functions' one-year execution limit", () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => new HandbackStack(app, 'TooLong', { ...JWT, pauseExpiry: Duration.days(365) })).toThrow(
      new ConfigurationError(
        "pauseExpiry (context handback:pauseExpirySeconds) is 31536000 seconds: at most 31532400, so that the reference workflow's wait (the expiry and the sweep's bound) fits Step Functions' one-year execution limit.",
      ),
    );
  });
});

describe('the validation report reader', () => {
  it('sees an unacknowledged cdk-nag warning, so an empty report means a clean stack', () => {
    // Synthesis in tests throws at the first finding; this app asks CDK to report instead, so the reader is exercised.
    const app = new App({ context: { '@aws-cdk/core:failSynthOnValidationErrors': false } });
    new LogGroup(new Stack(app, 'Leaky'), 'ForeverLogs', { retention: RetentionDays.INFINITE });
    const { violations } = synthesizeWithChecks(app);
    expect(violations).toContainEqual(
      expect.objectContaining({ rule: 'Serverless-CloudWatchLogGroupRetentionPeriod', severity: 'warning' }),
    );
  });
});
