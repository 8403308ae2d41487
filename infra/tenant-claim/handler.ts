/**
 * Cognito's pre-token-generation trigger (event version 2) for the user pool `handback:createUserPool=true` creates:
 * it copies the user's `custom:tenant` attribute into the claim the HTTP API reads the tenant from (`TENANT_CLAIM`),
 * in both the ID token and the access token, so that either token works with the API's JWT authorizer. A user without
 * a tenant gets no token at all: Cognito fails the sign-in when the trigger throws.
 */
import type { PreTokenGenerationV2TriggerEvent } from 'aws-lambda';
import { requireEnv } from '../../functions/handlers/config.ts';

/** The user attribute that holds the tenant (a custom attribute, set by an administrator; users cannot write it). */
export const TENANT_ATTRIBUTE = 'custom:tenant';

const claim = requireEnv(process.env, 'TENANT_CLAIM');

/** The Lambda entry point: the event, with the tenant claim added to both tokens. */
export async function handler(event: PreTokenGenerationV2TriggerEvent): Promise<PreTokenGenerationV2TriggerEvent> {
  const tenant = event.request.userAttributes[TENANT_ATTRIBUTE];
  if (tenant === undefined || tenant === '') {
    throw new Error(`User ${event.userName} has no ${TENANT_ATTRIBUTE} attribute: an administrator must set it.`);
  }
  const claims = { [claim]: tenant };
  event.response = {
    claimsAndScopeOverrideDetails: {
      ...event.response.claimsAndScopeOverrideDetails,
      idTokenGeneration: { claimsToAddOrOverride: claims },
      accessTokenGeneration: { claimsToAddOrOverride: claims },
    },
  };
  return event;
}
