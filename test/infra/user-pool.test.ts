import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { PLACEHOLDER_ISSUER } from '../../infra/settings.ts';
import { synthesize } from './synth.ts';

/** A first deployment: `-c handback:createUserPool=true`, with cdk.json's placeholder issuer still in the context. */
const { template, violations } = synthesize(
  { jwtIssuer: undefined, jwtAudience: undefined },
  {
    bundle: false,
    context: {
      'handback:createUserPool': 'true',
      'handback:jwtIssuer': PLACEHOLDER_ISSUER,
      'handback:tenantClaim': 'org_id',
    },
  },
);

const getAtt = (prefix: string, attribute = 'Arn') => ({
  'Fn::GetAtt': [Match.stringLikeRegexp(`^${prefix}`), attribute],
});
const ref = (prefix: string) => ({ Ref: Match.stringLikeRegexp(`^${prefix}`) });

describe('a stack that creates its user pool', () => {
  it('has one user pool and one app client', () => {
    template.resourceCountIs('AWS::Cognito::UserPool', 1);
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 1);
  });

  it('trusts the pool as the JWT issuer and the app client as the audience', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      JwtConfiguration: { Issuer: getAtt('UsersPool', 'ProviderURL'), Audience: [ref('UsersPoolApiClient')] },
    });
  });

  it("tells the inbox function the pool's issuer, its client and scopes, for the page's sign-in", () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Handback inbox page'),
      Environment: {
        Variables: Match.objectLike({
          OIDC_ISSUER: getAtt('UsersPool', 'ProviderURL'),
          OIDC_CLIENT_ID: ref('UsersPoolApiClient'),
          OIDC_SCOPES: 'openid email handback/decide',
        }),
      },
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

  it('does not let the app client write the tenant, and names what it may write, since no list means every attribute', () => {
    const [client] = Object.values(template.findResources('AWS::Cognito::UserPoolClient'));
    expect(client?.Properties.WriteAttributes).toEqual(['name']);
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

  it('is on the Essentials plan, which access-token customization needs', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', { UserPoolTier: 'ESSENTIALS' });
  });

  it('runs the tenant-claim function as its pre-token-generation trigger, event version 2', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      LambdaConfig: {
        PreTokenGenerationConfig: { LambdaArn: getAtt('UsersTenantClaimFunction'), LambdaVersion: 'V2_0' },
      },
    });
  });

  it('tells the trigger which claim to fill', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Role: getAtt('UsersTenantClaimRole'),
      Environment: { Variables: Match.objectLike({ TENANT_CLAIM: 'org_id' }) },
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

  it('gives the client no secret and no OAuth flows, and sign-in by SRP or password', () => {
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      AllowedOAuthFlowsUserPoolClient: false,
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
    });
  });

  it('keeps the pool when it leaves the stack, with deletion protection', () => {
    template.hasResource('AWS::Cognito::UserPool', {
      Properties: Match.objectLike({ DeletionProtection: 'ACTIVE' }),
      DeletionPolicy: 'Retain',
    });
  });

  it('gives the pool and client ids as outputs', () => {
    template.hasOutput('UserPoolId', { Value: ref('UsersPool') });
    template.hasOutput('UserPoolClientId', { Value: ref('UsersPoolApiClient') });
  });

  it('watches the trigger for errors', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: ref('UsersTenantClaimFunction') }],
    });
  });

  it('still has no unacknowledged cdk-nag finding', () => {
    expect(violations).toEqual([]);
  });
});
