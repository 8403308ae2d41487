import { App, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { CONTEXT, ConfigurationError, resolveSettings } from '../../infra/settings.ts';
import { ACCOUNT, evaluate, resolve } from './iam.ts';
import { synthesize, TEST_JWT } from './synth.ts';

/**
 * SCIM on AWS (§20, `handback:scim`): the secret the stack creates, the API function told where it is and which
 * tenant it provisions and allowed to read that secret alone, `ANY /scim/v2/{proxy+}` without the JWT authorizer in
 * the `scim` throttle group — and none of it without the setting. One synthesis with SCIM (its throttle set too, so
 * the route's budget is seen to come from the group), and the default one.
 */

const SCIM_ROUTE = 'ANY /scim/v2/{proxy+}';
const TENANT = 'acme';

const withScim = synthesize(
  {},
  {
    bundle: false,
    context: {
      [CONTEXT.scim]: TENANT,
      [CONTEXT.throttles]: { scim: { rate: 3, burst: 4 } },
      // Both channels on: Slack's clicks decide, and the deliveries tell delegates and a level's groups.
      'handback:slackSecretName': 'handback/slack',
      'handback:emailFrom': 'approvals@example.org',
    },
  },
);
const without = synthesize({}, { bundle: false });

/** The one resource of `type` in `template`, with its logical id. */
function only(template: Template, type: string): [string, { Properties: Record<string, unknown> }] {
  const found = Object.entries(template.findResources(type));
  expect(found).toHaveLength(1);
  return found[0] as [string, { Properties: Record<string, unknown> }];
}

/** The environment of the function whose logical id starts with `prefix`. */
function environmentOf(template: Template, prefix: string): Record<string, unknown> {
  const [fn] = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([id]) => id.startsWith(prefix));
  expect(fn).toBeDefined();
  return (fn?.[1].Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
}

/** Every statement of the policies attached to each role, by the policy's logical id. */
function statementsByPolicy(template: Template): Map<string, Array<Record<string, unknown>>> {
  return new Map(
    Object.entries(template.findResources('AWS::IAM::Policy')).map(([id, policy]) => [
      id,
      policy.Properties.PolicyDocument.Statement as Array<Record<string, unknown>>,
    ]),
  );
}

const secrets = (template: Template) =>
  Object.entries(template.findResources('AWS::SecretsManager::Secret')).filter(([id]) => id.startsWith('ScimSecret'));
const scimRoutes = (template: Template) =>
  Object.values(template.findResources('AWS::ApiGatewayV2::Route')).filter((route) =>
    String(route.Properties.RouteKey).includes('/scim'),
  );

describe('with handback:scim', () => {
  const { template } = withScim;
  const [secretId, secret] = secrets(template)[0] ?? [];
  const secretArn = resolve({ Ref: secretId });

  it('creates one secret of 64 letters and digits, safe as a bearer token as it is', () => {
    expect(secrets(template)).toHaveLength(1);
    expect(secret?.Properties.GenerateSecretString).toEqual({
      PasswordLength: 64,
      ExcludePunctuation: true,
      IncludeSpace: false,
    });
  });

  it('tells the API function where the secret is and which tenant SCIM provisions', () => {
    expect(environmentOf(template, 'ApiHandlerFunction')).toMatchObject({
      SCIM_SECRET_ARN: { Ref: secretId },
      HANDBACK_SCIM_TENANT: TENANT,
    });
  });

  it.each(['McpHandler', 'StepFunctionsHandler', 'SqsHandler', 'Sweeper'])(
    'tells %s, which decides, the same, so its directory is the table-kept one',
    (name) => {
      expect(environmentOf(template, `${name}Function`)).toMatchObject({
        SCIM_SECRET_ARN: { Ref: secretId },
        HANDBACK_SCIM_TENANT: TENANT,
      });
    },
  );

  it.each(['SlackInteractions', 'SlackEvents', 'EmailEvents'])(
    'tells the channel function %s, which decides or tells people, the same',
    (name) => {
      const found = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([id]) =>
        id.includes(`${name}Function`),
      );
      expect(found).toHaveLength(1);
      expect(found[0]?.[1].Properties.Environment?.Variables).toMatchObject({
        SCIM_SECRET_ARN: { Ref: secretId },
        HANDBACK_SCIM_TENANT: TENANT,
      });
    },
  );

  it('tells the inbox page, which decides nothing, nothing of SCIM', () => {
    expect(Object.keys(environmentOf(template, 'InboxHandlerFunction'))).not.toContain('SCIM_SECRET_ARN');
  });

  it('lets the API function read that secret and no other but the answer-link key', () => {
    const statements = [...statementsByPolicy(template)]
      .filter(([id]) => id.startsWith('ApiHandlerRole'))
      .flatMap(([, list]) => list);
    const read = (resource: string) => evaluate(statements, { action: 'secretsmanager:GetSecretValue', resource });
    expect(read(secretArn)).toBe('allow');
    expect(read(`arn:aws:secretsmanager:${ACCOUNT.region}:${ACCOUNT.account}:secret:another-AbCdEf`)).toBe('implicit');
    const readable = statements
      .filter((statement) => [statement.Action].flat().includes('secretsmanager:GetSecretValue'))
      .flatMap((statement) => [statement.Resource].flat().map(resolve));
    expect(readable.sort()).toEqual([secretArn, resolve({ Ref: answerLinkKeyId(template) })].sort());
  });

  it('lets no other role read the secret', () => {
    for (const [id, statements] of statementsByPolicy(template)) {
      if (id.startsWith('ApiHandlerRole')) continue;
      expect(evaluate(statements, { action: 'secretsmanager:GetSecretValue', resource: secretArn }), id).toBe(
        'implicit',
      );
    }
  });

  it('routes ANY /scim/v2/{proxy+} to the API function without the JWT authorizer', () => {
    const routes = scimRoutes(template);
    expect(routes.map((route) => route.Properties.RouteKey)).toEqual([SCIM_ROUTE]);
    expect(routes[0]?.Properties.AuthorizationType).toBe('NONE');
    expect(routes[0]?.Properties.AuthorizerId).toBeUndefined();
    const target = String(resolve(routes[0]?.Properties.Target));
    const integrationId = /\{(\w+)\}/.exec(target)?.[1];
    const integration = template.findResources('AWS::ApiGatewayV2::Integration')[integrationId ?? ''];
    expect(integration?.Properties.IntegrationUri['Fn::GetAtt'][0]).toMatch(/^ApiHandlerFunction/);
  });

  it('throttles the route as the scim group', () => {
    const [, stage] = only(template, 'AWS::ApiGatewayV2::Stage');
    expect((stage.Properties.RouteSettings as Record<string, unknown>)[SCIM_ROUTE]).toEqual({
      ThrottlingRateLimit: 3,
      ThrottlingBurstLimit: 4,
    });
  });

  it('outputs the SCIM base URL and the secret’s ARN', () => {
    const outputs = template.findOutputs('*');
    expect(outputs.ScimSecretArn?.Value).toEqual({ Ref: secretId });
    expect(JSON.stringify(outputs.ScimUrl?.Value)).toContain('/scim/v2');
  });

  it('passes cdk-nag’s AWS Solutions and Serverless packs', () => {
    expect(withScim.violations).toEqual([]);
  });
});

describe('without handback:scim', () => {
  const { template } = without;

  it('has no SCIM secret, route, route setting, variable or output', () => {
    expect(secrets(template)).toEqual([]);
    expect(scimRoutes(template)).toEqual([]);
    const [, stage] = only(template, 'AWS::ApiGatewayV2::Stage');
    expect(Object.keys(stage.Properties.RouteSettings as object).filter((key) => key.includes('/scim'))).toEqual([]);
    const text = JSON.stringify(template.toJSON());
    expect(text).not.toContain('SCIM_SECRET_ARN');
    expect(text).not.toContain('HANDBACK_SCIM_TENANT');
    expect(Object.keys(template.findOutputs('*')).filter((key) => key.startsWith('Scim'))).toEqual([]);
  });
});

describe('handback:scim as the stack reads it', () => {
  const scimWith = (context: Record<string, unknown>) =>
    resolveSettings(new Stack(new App({ context }), 'Settings'), {
      jwtIssuer: TEST_JWT.issuer,
      jwtAudience: [...TEST_JWT.audience],
    }).scim;

  it.each([
    [true, { tenant: 'default' }],
    ['true', { tenant: 'default' }],
    [TENANT, { tenant: TENANT }],
    [false, undefined],
    ['false', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('reads %j as %j', (value, scim) => {
    expect(scimWith({ [CONTEXT.scim]: value })).toEqual(scim);
  });

  it.each([
    ['a tenant longer than a tenant may be', { [CONTEXT.scim]: 'x'.repeat(1000) }, /^Context handback:scim must be/],
    ['an object', { [CONTEXT.scim]: { tenant: 'acme' } }, /^Context handback:scim must be a string/],
    [
      'a directory file beside it',
      { [CONTEXT.scim]: true, [CONTEXT.directory]: 'test/fixtures/directory/people.json' },
      /^Context handback:scim and handback:directory are both set/,
    ],
  ])('refuses %s, naming the key', (_, context, message) => {
    expect(() => scimWith(context)).toThrow(ConfigurationError);
    expect(() => scimWith(context)).toThrow(message);
  });
});

/** The answer-link key's logical id (the API function's other secret). */
function answerLinkKeyId(template: Template): string {
  const [id] = Object.keys(template.findResources('AWS::SecretsManager::Secret')).filter((key) =>
    key.startsWith('AnswerLinkKey'),
  );
  expect(id).toBeDefined();
  return id as string;
}
