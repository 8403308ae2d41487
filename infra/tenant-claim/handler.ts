/**
 * Cognito's pre-token-generation trigger (event version 3) for the user pool the stack creates
 * (`infra/user-pool.ts`). It puts the tenant into the claim the HTTP API reads it from (`TENANT_CLAIM`):
 *
 * - for a person, their `custom:tenant` attribute, in the ID and the access token; a person without one gets no token
 *   at all (Cognito fails the sign-in when the trigger throws). The access token, which the inbox calls the API with,
 *   also gets the person's `email` and `name`: Cognito's access tokens carry neither, and approvers name people by
 *   email (§13). The email is added only when the pool has verified it (`email_verified` is "true"), and nothing else
 *   puts an email in this pool's access tokens: that is the promise the API relies on when it treats the email of an
 *   access token of this pool (`OWN_USER_POOL_ISSUER`) as verified, an identity of the person (§16). Groups need
 *   nothing: both tokens list them in `cognito:groups`.
 * - for a client-credentials grant (an agent's token; only event version 3 reaches those), `AGENT_TENANT`.
 */
import type { PreTokenGenerationV2TriggerEvent, PreTokenGenerationV3TriggerEvent } from 'aws-lambda';
import { requiredSetting } from '../../functions/handlers/config.ts';
import { agentTenant as AGENT_TENANT, tenantClaim as TENANT_CLAIM } from '../../functions/settings.ts';

/** The user attribute that holds the tenant (a custom attribute, set by an administrator; users cannot write it). */
export const TENANT_ATTRIBUTE = 'custom:tenant';

/** What Cognito sends: a person's sign-in or refresh (V2-shaped), or a client-credentials grant. */
export type TenantClaimEvent = PreTokenGenerationV2TriggerEvent | PreTokenGenerationV3TriggerEvent;

const claim = requiredSetting(TENANT_CLAIM);
const agentTenant = requiredSetting(AGENT_TENANT);

/** The Lambda entry point: the event, with the tenant claim (and a person's email and name) added. */
export async function handler(event: TenantClaimEvent): Promise<TenantClaimEvent> {
  if (event.triggerSource === 'TokenGeneration_ClientCredentials') {
    event.response = {
      claimsAndScopeOverrideDetails: {
        ...event.response.claimsAndScopeOverrideDetails,
        accessTokenGeneration: { claimsToAddOrOverride: { [claim]: agentTenant } },
      },
    };
    return event;
  }
  const attributes = event.request.userAttributes;
  const tenant = attributes[TENANT_ATTRIBUTE];
  if (tenant === undefined || tenant === '') {
    throw new Error(`User ${event.userName} has no ${TENANT_ATTRIBUTE} attribute: an administrator must set it.`);
  }
  const person: Record<string, string> = {};
  // Approvers match emails and emails join identities (§16), so only one the pool has verified; an unverified email
  // is left out, not passed on as a label, since the API takes every email of this pool's access tokens as verified.
  if (attributes.email && attributes.email_verified === 'true') person.email = attributes.email;
  if (attributes.name) person.name = attributes.name;
  event.response = {
    claimsAndScopeOverrideDetails: {
      ...event.response.claimsAndScopeOverrideDetails,
      idTokenGeneration: { claimsToAddOrOverride: { [claim]: tenant } },
      accessTokenGeneration: { claimsToAddOrOverride: { [claim]: tenant, ...person } },
    },
  };
  return event;
}
