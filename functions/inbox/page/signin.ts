import * as oauth from 'oauth4webapi';
import { PENDING_KEY } from './session.ts';

/**
 * Signing in to the inbox (§13), a chunk of its own (`signin-<hash>.js`), loaded only when the inbox serves an
 * issuer: the authorization-code flow with PKCE (S256) and a state, by `oauth4webapi`, as a public client (no
 * secret, no implicit flow). The code verifier and state wait in `sessionStorage` during the round trip to the
 * provider; the page keeps the access token there too, so nothing outlives the browser session.
 */

/** The page's sign-in settings, as `inbox/config.json` gives them. */
export interface SignInConfig {
  issuer: string;
  clientId: string;
  scopes: string;
}

/** A finished sign-in: the bearer token for the API and who the person is. */
export interface SignedIn {
  accessToken: string;
  name?: string;
  email?: string;
  /** The page's query (a pause's `?run=…&pause=…`) before it left for the provider. */
  returnTo: string;
}

interface Pending {
  verifier: string;
  state: string;
  returnTo: string;
}

// `oauth4webapi` refuses plain HTTP; a provider on this machine (local development, the tests) is the exception.
function options(issuer: URL) {
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname);
  return issuer.protocol === 'http:' && loopback ? { [oauth.allowInsecureRequests]: true } : {};
}

async function discover(issuer: URL): Promise<oauth.AuthorizationServer> {
  const response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...options(issuer) });
  return oauth.processDiscoveryResponse(issuer, response);
}

/** Leaves for the provider's login; `redirectUri` is the inbox's own address. */
export async function startSignIn(config: SignInConfig, redirectUri: string, returnTo: string): Promise<void> {
  const issuer = new URL(config.issuer);
  const as = await discover(issuer);
  if (as.authorization_endpoint === undefined) throw new Error('The identity provider has no authorization endpoint.');
  const pending: Pending = {
    verifier: oauth.generateRandomCodeVerifier(),
    state: oauth.generateRandomState(),
    returnTo,
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: config.clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: config.scopes,
    state: pending.state,
    code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.href);
}

/** Exchanges the provider's code for tokens (with the verifier), and reads who signed in. */
export async function finishSignIn(config: SignInConfig, redirectUri: string, current: URL): Promise<SignedIn> {
  const saved = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (saved === null) throw new Error('No sign-in was started in this tab.');
  const pending = JSON.parse(saved) as Pending;
  const issuer = new URL(config.issuer);
  const as = await discover(issuer);
  const client: oauth.Client = { client_id: config.clientId };
  const params = oauth.validateAuthResponse(as, client, current, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    redirectUri,
    pending.verifier,
    options(issuer),
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  const claims = oauth.getValidatedIdTokenClaims(tokens);
  let name = stringClaim(claims?.name);
  let email = stringClaim(claims?.email);
  // Many providers keep the profile out of the ID token of a code flow and answer it at userinfo.
  if (name === undefined && email === undefined && claims !== undefined && as.userinfo_endpoint !== undefined) {
    const info = await oauth.processUserInfoResponse(
      as,
      client,
      claims.sub,
      await oauth.userInfoRequest(as, client, tokens.access_token, options(issuer)),
    );
    name = stringClaim(info.name);
    email = stringClaim(info.email);
  }
  return {
    accessToken: tokens.access_token,
    returnTo: pending.returnTo,
    ...(name === undefined ? {} : { name }),
    ...(email === undefined ? {} : { email }),
  };
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
