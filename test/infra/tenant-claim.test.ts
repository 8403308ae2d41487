import type { PreTokenGenerationV3TriggerEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TenantClaimEvent } from '../../infra/tenant-claim/handler.ts';

let handler: (event: TenantClaimEvent) => Promise<TenantClaimEvent>;

beforeAll(async () => {
  // The trigger reads its settings once, at cold start, as the stack configures them.
  process.env.TENANT_CLAIM = 'org_id';
  process.env.AGENT_TENANT = 'acme-agents';
  ({ handler } = await import('../../infra/tenant-claim/handler.ts'));
});

/** A pre-token-generation event for a person with these attributes, as Cognito sends it on a sign-in. */
function signIn(userAttributes: Record<string, string>): TenantClaimEvent {
  return {
    version: '2',
    triggerSource: 'TokenGeneration_HostedAuth',
    region: 'eu-west-1',
    userPoolId: 'eu-west-1_example',
    userName: 'ada',
    callerContext: { awsSdkVersion: 'aws-sdk-unknown-unknown', clientId: 'inbox-client' },
    request: { userAttributes, groupConfiguration: { groupsToOverride: [], iamRolesToOverride: [] }, scopes: [] },
    response: { claimsAndScopeOverrideDetails: {} },
  };
}

/** A client-credentials event (event version 3), as Cognito sends it when an agent asks for a token. */
function clientCredentials(): PreTokenGenerationV3TriggerEvent {
  return {
    version: '3',
    triggerSource: 'TokenGeneration_ClientCredentials',
    region: 'eu-west-1',
    userPoolId: 'eu-west-1_example',
    userName: 'agents-client',
    callerContext: { awsSdkVersion: 'aws-sdk-unknown-unknown', clientId: 'agents-client' },
    request: { userAttributes: {}, groupConfiguration: {}, scopes: ['handback/agent'] },
    response: { claimsAndScopeOverrideDetails: {} },
  };
}

const ANN = { sub: 'u1', 'custom:tenant': 'acme', email: 'ann@example.com', email_verified: 'true', name: 'Ann' };

describe('the tenant-claim trigger', () => {
  it("puts a person's custom:tenant into the configured claim of the ID token", async () => {
    const out = await handler(signIn(ANN));
    expect(out.response.claimsAndScopeOverrideDetails.idTokenGeneration?.claimsToAddOrOverride).toEqual({
      org_id: 'acme',
    });
  });

  it('puts the tenant, the verified email and the name into the access token, which the inbox calls the API with', async () => {
    const out = await handler(signIn(ANN));
    expect(out.response.claimsAndScopeOverrideDetails.accessTokenGeneration?.claimsToAddOrOverride).toEqual({
      org_id: 'acme',
      email: 'ann@example.com',
      name: 'Ann',
    });
  });

  it.each([
    ['an unverified email', { ...ANN, email_verified: 'false' }],
    ['no email', { sub: 'u1', 'custom:tenant': 'acme', name: 'Ann' }],
  ])('leaves the email out of the access token for %s, so approvers by email never match it', async (_, attributes) => {
    const out = await handler(signIn(attributes));
    expect(out.response.claimsAndScopeOverrideDetails.accessTokenGeneration?.claimsToAddOrOverride).toEqual({
      org_id: 'acme',
      name: 'Ann',
    });
  });

  it('refuses a token to a person without a tenant, naming the user and the attribute', async () => {
    await expect(handler(signIn({ sub: 'u1' }))).rejects.toThrow(
      'User ada has no custom:tenant attribute: an administrator must set it.',
    );
  });

  it("puts the agents' tenant into a client-credentials token, and adds nothing else", async () => {
    const out = await handler(clientCredentials());
    expect(out.response.claimsAndScopeOverrideDetails).toEqual({
      accessTokenGeneration: { claimsToAddOrOverride: { org_id: 'acme-agents' } },
    });
  });
});
