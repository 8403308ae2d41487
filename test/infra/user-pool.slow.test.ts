import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../functions/vocabulary.ts';
import { ROUTES } from '../../infra/http-api.ts';
import { PLACEHOLDER_ISSUER } from '../../infra/settings.ts';
import { INBOX_SCOPES } from '../../infra/user-pool.ts';
import { synthesize } from './synth.ts';

/** A first deployment: `npx cdk deploy` with no auth context at all (cdk.json's context only). */
const first = synthesize({ jwtIssuer: undefined, jwtAudience: undefined }, { bundle: false });
const { template, violations } = first;

const getAtt = (prefix: string, attribute = 'Arn') => ({
  'Fn::GetAtt': [Match.stringLikeRegexp(`^${prefix}`), attribute],
});
const ref = (prefix: string) => ({ Ref: Match.stringLikeRegexp(`^${prefix}`) });
/** The one logical id of a resource of `type` that starts with `prefix`. */
function logicalId(from: Template, type: string, prefix: string): string {
  const ids = Object.keys(from.findResources(type)).filter((id) => id.startsWith(prefix));
  expect(ids).toHaveLength(1);
  return ids[0] as string;
}
/** A scope of the resource server, as the template spells it: `<the server's Ref>/<name>`. */
const serverScope = (scope: string) => ({
  'Fn::Join': [
    '',
    [
      { Ref: logicalId(template, 'AWS::Cognito::UserPoolResourceServer', 'UsersPoolApi') },
      scope.slice(scope.indexOf('/')),
    ],
  ],
});
/** The inbox URL as the stack makes it: the HTTP API's endpoint and `/inbox`. */
const API_INBOX = {
  'Fn::Join': [
    '',
    [{ 'Fn::GetAtt': [logicalId(template, 'AWS::ApiGatewayV2::Api', 'HttpApi'), 'ApiEndpoint'] }, '/inbox'],
  ],
};

/** The one app client whose logical id starts with `prefix`. */
function client(from: Template, prefix: string): Record<string, unknown> {
  const found = Object.entries(from.findResources('AWS::Cognito::UserPoolClient')).filter(([id]) =>
    id.startsWith(prefix),
  );
  expect(found).toHaveLength(1);
  const [[, resource] = ['', { Properties: {} }]] = found;
  return (resource as { Properties: Record<string, unknown> }).Properties;
}

describe('a stack deployed with no auth context', () => {
  it('creates its user pool, with an inbox client and an agents client', () => {
    template.resourceCountIs('AWS::Cognito::UserPool', 1);
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 2);
  });

  it('trusts the pool as the JWT issuer, and both clients as the audience (API Gateway matches client_id)', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      JwtConfiguration: {
        Issuer: getAtt('UsersPool', 'ProviderURL'),
        Audience: [ref('UsersPoolInboxClient'), ref('UsersPoolAgentsClient')],
      },
    });
  });

  it('has a resource server whose scopes are the two of the vocabulary', () => {
    const [server] = Object.values(template.findResources('AWS::Cognito::UserPoolResourceServer'));
    const { Identifier, Scopes } = (server ?? { Properties: {} }).Properties as {
      Identifier: string;
      Scopes: { ScopeName: string }[];
    };
    expect(Scopes.map((scope) => `${Identifier}/${scope.ScopeName}`)).toEqual(Object.values(SCOPES));
  });

  it('has the approvers group, which tokens list in cognito:groups', () => {
    template.resourceCountIs('AWS::Cognito::UserPoolGroup', 1);
    template.hasResourceProperties('AWS::Cognito::UserPoolGroup', {
      GroupName: 'approvers',
      UserPoolId: ref('UsersPool'),
    });
  });

  it('has a managed-login domain with the newer managed login, named for the stack and the account', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolDomain', {
      Domain: { 'Fn::Join': ['', ['handback-', { Ref: 'AWS::AccountId' }]] },
      ManagedLoginVersion: 2,
      UserPoolId: ref('UsersPool'),
    });
  });

  it("gives the inbox's client Cognito's default branding, which the newer managed login needs to show its pages", () => {
    template.hasResourceProperties('AWS::Cognito::ManagedLoginBranding', {
      ClientId: ref('UsersPoolInboxClient'),
      UserPoolId: ref('UsersPool'),
      UseCognitoProvidedValues: true,
    });
    template.hasResource('AWS::Cognito::ManagedLoginBranding', {
      DependsOn: [logicalId(template, 'AWS::Cognito::UserPoolDomain', 'UsersPoolSignIn')],
    });
  });

  it("makes the inbox's client public, authorization code only, its callback and sign-out URL the inbox page", () => {
    expect(client(template, 'UsersPoolInboxClient')).toMatchObject({
      GenerateSecret: false,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['code'],
      CallbackURLs: [API_INBOX],
      LogoutURLs: [API_INBOX],
      SupportedIdentityProviders: ['COGNITO'],
    });
    template.hasOutput('InboxUrl', { Value: API_INBOX });
  });

  it("lets the inbox's client grant openid, email, profile and handback/decide, and not handback/agent", () => {
    expect(client(template, 'UsersPoolInboxClient').AllowedOAuthScopes).toEqual([
      'openid',
      'email',
      'profile',
      serverScope(SCOPES.decide),
    ]);
    expect(INBOX_SCOPES).toEqual(['openid', 'email', 'profile', SCOPES.decide]);
  });

  it("makes the agents' client confidential, client credentials only, scope handback/agent, with no sign-in of people", () => {
    expect(client(template, 'UsersPoolAgentsClient')).toMatchObject({
      GenerateSecret: true,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['client_credentials'],
      AllowedOAuthScopes: [serverScope(SCOPES.agent)],
      ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
    });
    expect(client(template, 'UsersPoolAgentsClient').CallbackURLs).toBeUndefined();
  });

  it("allows no sign-in through Cognito's API on the inbox's client, SRP included: managed login needs none", () => {
    expect(client(template, 'UsersPoolInboxClient').ExplicitAuthFlows).toEqual(['ALLOW_REFRESH_TOKEN_AUTH']);
  });

  it.each(['UsersPoolInboxClient', 'UsersPoolAgentsClient'])(
    'lets %s write nothing the audit trail shows (name, email, the tenant), and names what it may, since no list means every attribute',
    (id) => {
      const writes = client(template, id).WriteAttributes as string[];
      expect(writes.length).toBeGreaterThan(0);
      for (const audited of ['name', 'email', 'custom:tenant', 'given_name', 'family_name', 'preferred_username']) {
        expect(writes).not.toContain(audited);
      }
    },
  );

  it("points the inbox page's sign-in at the pool, its client, its scopes and the managed-login domain", () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Handback inbox page'),
      Environment: {
        Variables: Match.objectLike({
          HANDBACK_JWT_ISSUER: getAtt('UsersPool', 'ProviderURL'),
          HANDBACK_OIDC_CLIENT_ID: ref('UsersPoolInboxClient'),
          HANDBACK_OIDC_SCOPES: INBOX_SCOPES.join(' '),
          HANDBACK_OIDC_ENDPOINT_ORIGINS: {
            'Fn::Join': [
              '',
              ['https://', ref('UsersPoolSignIn'), '.auth.', { Ref: 'AWS::Region' }, '.amazoncognito.com'],
            ],
          },
        }),
      },
    });
  });

  it.each(ROUTES.authorized.map((route) => [`${route.method} ${route.path}`, route.scopes] as const))(
    'gives %s the AuthorizationScopes %j of the route table',
    (routeKey, scopes) => {
      const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
        (route) => route.Properties as { RouteKey: string; AuthorizationScopes?: string[] },
      );
      expect(routes.find((route) => route.RouteKey === routeKey)?.AuthorizationScopes).toEqual(scopes);
    },
  );

  it('runs the tenant-claim function as its pre-token-generation trigger, event version 3 (client credentials too)', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      LambdaConfig: {
        PreTokenGenerationConfig: { LambdaArn: getAtt('UsersTenantClaimFunction'), LambdaVersion: 'V3_0' },
      },
    });
  });

  it('is on the Essentials plan, which access-token customization (event versions 2 and 3) needs', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', { UserPoolTier: 'ESSENTIALS' });
  });

  it('tells the trigger the claim to fill and the tenant of agent tokens, by default tenant and default', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Role: getAtt('UsersTenantClaimRole'),
      Environment: { Variables: Match.objectLike({ TENANT_CLAIM: 'tenant', AGENT_TENANT: 'default' }) },
    });
  });

  it('keeps the tenant in a custom attribute', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      Schema: [
        { Name: 'tenant', AttributeDataType: 'String', Mutable: true, StringAttributeConstraints: Match.anyValue() },
      ],
    });
  });

  it('lets only administrators create users', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
    });
  });

  it('requires a strong password and a TOTP authenticator', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      Policies: {
        PasswordPolicy: Match.objectLike({
          MinimumLength: 12,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
        }),
      },
    });
  });

  it('gives the trigger nothing but its own logs and tracing', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyName: Match.stringLikeRegexp('^UsersTenantClaimRoleDefaultPolicy'),
      PolicyDocument: {
        Statement: [
          {
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Effect: 'Allow',
            Resource: getAtt('UsersTenantClaimLogs'),
          },
          { Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], Effect: 'Allow', Resource: '*' },
        ],
      },
    });
  });

  it('lets only the pool invoke the trigger', () => {
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: getAtt('UsersTenantClaimFunction'),
      Principal: 'cognito-idp.amazonaws.com',
      SourceArn: getAtt('UsersPool'),
    });
  });

  it('keeps the pool when it leaves the stack, with deletion protection', () => {
    template.hasResource('AWS::Cognito::UserPool', {
      Properties: Match.objectLike({ DeletionProtection: 'ACTIVE' }),
      DeletionPolicy: 'RetainExceptOnCreate',
    });
  });

  it('names in its outputs everything to sign in and to get an agent token', () => {
    const domain = ['https://', ref('UsersPoolSignIn'), '.auth.', { Ref: 'AWS::Region' }, '.amazoncognito.com'];
    template.hasOutput('UserPoolId', { Value: ref('UsersPool') });
    template.hasOutput('SignInDomain', { Value: { 'Fn::Join': ['', domain] } });
    template.hasOutput('InboxClientId', { Value: ref('UsersPoolInboxClient') });
    template.hasOutput('AgentClientId', { Value: ref('UsersPoolAgentsClient') });
    template.hasOutput('TokenEndpoint', {
      Value: { 'Fn::Join': ['', [...domain.slice(0, -1), '.amazoncognito.com/oauth2/token']] },
    });
  });

  it("says how to read the agents' client secret, and never puts the secret itself in the template", () => {
    template.hasOutput('AgentClientSecretCommand', {
      Value: {
        'Fn::Join': [
          '',
          [
            'aws cognito-idp describe-user-pool-client --region ',
            { Ref: 'AWS::Region' },
            ' --user-pool-id ',
            ref('UsersPool'),
            ' --client-id ',
            ref('UsersPoolAgentsClient'),
            ' --query UserPoolClient.ClientSecret --output text',
          ],
        ],
      },
    });
    // Neither `Fn::GetAtt [<client>, ClientSecret]` nor CDK's custom resource that reads it.
    expect(JSON.stringify(template.toJSON())).not.toMatch(/"ClientSecret"\]/);
    template.resourceCountIs('Custom::DescribeCognitoUserPoolClient', 0);
  });

  it('watches the trigger for errors', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: ref('UsersTenantClaimFunction') }],
    });
  });

  it('has no dependency cycle between the HTTP API, its authorizer, the clients and the inbox function', () => {
    // CDK's Template refuses a template CloudFormation could not order: reading this one is the proof.
    expect(() => Template.fromJSON(template.toJSON())).not.toThrow();
    const looped = {
      Resources: {
        Api: { Type: 'AWS::ApiGatewayV2::Api', Properties: { Name: { Ref: 'Client' } } },
        Client: { Type: 'AWS::Cognito::UserPoolClient', Properties: {}, DependsOn: 'Api' },
      },
    };
    expect(() => Template.fromJSON(looped)).toThrow(/dependency cycle: Api -> Client -> Api/);
  });

  it('has no unacknowledged cdk-nag finding', () => {
    expect(violations).toEqual([]);
  });
});

describe('a stack that creates its user pool, configured through context', () => {
  const configured = synthesize(
    { jwtIssuer: undefined, jwtAudience: undefined },
    {
      bundle: false,
      context: {
        // An old cdk.json's placeholder issuer next to createUserPool=true still means the pool.
        'handback:createUserPool': 'true',
        'handback:jwtIssuer': PLACEHOLDER_ISSUER,
        'handback:tenantClaim': 'org_id',
        'handback:groups': 'finance, legal',
        'handback:agentTenant': 'acme',
        'handback:signInDomainPrefix': 'acme-approvals',
        'handback:inboxUrl': 'https://approvals.acme.test/inbox',
      },
    },
  );

  it('has the groups named by handback:groups', () => {
    const groups = Object.values(configured.template.findResources('AWS::Cognito::UserPoolGroup')).map(
      (group) => group.Properties.GroupName,
    );
    expect(groups).toEqual(['finance', 'legal']);
  });

  it('tells the trigger the configured claim and agent tenant', () => {
    configured.template.hasResourceProperties('AWS::Lambda::Function', {
      Role: getAtt('UsersTenantClaimRole'),
      Environment: { Variables: Match.objectLike({ TENANT_CLAIM: 'org_id', AGENT_TENANT: 'acme' }) },
    });
  });

  it('takes its domain prefix from handback:signInDomainPrefix', () => {
    configured.template.hasResourceProperties('AWS::Cognito::UserPoolDomain', { Domain: 'acme-approvals' });
  });

  it("sends people back to the configured inbox URL, which the inbox's client allows", () => {
    expect(client(configured.template, 'UsersPoolInboxClient')).toMatchObject({
      CallbackURLs: ['https://approvals.acme.test/inbox'],
      LogoutURLs: ['https://approvals.acme.test/inbox'],
    });
  });

  it('has no unacknowledged cdk-nag finding', () => {
    expect(configured.violations).toEqual([]);
  });
});
