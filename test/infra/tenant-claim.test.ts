import type { PreTokenGenerationV2TriggerEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';

type Handler = (event: PreTokenGenerationV2TriggerEvent) => Promise<PreTokenGenerationV2TriggerEvent>;
let handler: Handler;

beforeAll(async () => {
  // The trigger reads its claim name once, at cold start, as the stack configures it.
  process.env.TENANT_CLAIM = 'org_id';
  ({ handler } = await import('../../infra/tenant-claim/handler.ts'));
});

/** A V2 pre-token-generation event for a user with these attributes, as Cognito sends it. */
function event(userAttributes: Record<string, string>): PreTokenGenerationV2TriggerEvent {
  return {
    version: '2',
    triggerSource: 'TokenGeneration_Authentication',
    region: 'eu-west-1',
    userPoolId: 'eu-west-1_example',
    userName: 'ada',
    callerContext: { awsSdkVersion: 'aws-sdk-unknown-unknown', clientId: 'client' },
    request: { userAttributes, groupConfiguration: { groupsToOverride: [], iamRolesToOverride: [] }, scopes: [] },
    response: { claimsAndScopeOverrideDetails: {} },
  };
}

describe('the tenant-claim trigger', () => {
  it('puts the custom:tenant attribute into the configured claim of the ID token', async () => {
    const out = await handler(event({ sub: 'u1', 'custom:tenant': 'acme' }));
    expect(out.response.claimsAndScopeOverrideDetails.idTokenGeneration?.claimsToAddOrOverride).toEqual({
      org_id: 'acme',
    });
  });

  it('puts it into the access token too, so either token works with the JWT authorizer', async () => {
    const out = await handler(event({ sub: 'u1', 'custom:tenant': 'acme' }));
    expect(out.response.claimsAndScopeOverrideDetails.accessTokenGeneration?.claimsToAddOrOverride).toEqual({
      org_id: 'acme',
    });
  });

  it('refuses a token to a user without a tenant, naming the user and the attribute', async () => {
    await expect(handler(event({ sub: 'u1' }))).rejects.toThrow(
      'User ada has no custom:tenant attribute: an administrator must set it.',
    );
  });
});
