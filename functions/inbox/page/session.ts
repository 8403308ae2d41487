import type { SignedIn, SignInConfig } from './signin.ts';

/**
 * The browser session's sign-in state (§13), without the sign-in code itself: whether the inbox serves an issuer
 * (`inbox/config.json`), who is signed in, and the chunk (`signin.ts`) loaded only when it is needed. Everything is
 * in `sessionStorage`: closing the tab, or signing out, forgets it.
 */

declare const __SIGNIN_FILE__: string;

/** Who is signed in, as the ID token or userinfo named them. */
export interface Identity {
  name?: string;
  email?: string;
}

/** Where a sign-in waits for the provider's answer (the code verifier and state); `signin.ts` writes it. */
export const PENDING_KEY = 'handback.signin';
const IDENTITY_KEY = 'handback.identity';

/** The inbox's sign-in settings, or `undefined` when it serves no issuer (the pasted token, or auth off). */
export async function loadConfig(base: URL): Promise<SignInConfig | undefined> {
  try {
    const response = await fetch(new URL('inbox/config.json', base), { credentials: 'omit', cache: 'no-cache' });
    if (!response.ok) return undefined;
    const config = (await response.json()) as Partial<SignInConfig>;
    if (typeof config.issuer !== 'string' || typeof config.clientId !== 'string') return undefined;
    return { issuer: config.issuer, clientId: config.clientId, scopes: config.scopes ?? 'openid' };
  } catch {
    return undefined;
  }
}

/** The sign-in chunk. */
export function loadSignIn(base: URL): Promise<typeof import('./signin.ts')> {
  const url = new URL(`inbox/${__SIGNIN_FILE__}`, base).href;
  return import(url);
}

/** Whether this page load is the provider's answer to a sign-in this tab started. */
export function isCallback(search: string): boolean {
  const params = new URLSearchParams(search);
  return (params.has('code') || params.has('error')) && read(PENDING_KEY) !== undefined;
}

/** The inbox's own address: where the provider sends the person back. */
export function redirectUri(): string {
  return `${location.origin}${location.pathname}`;
}

/** Who is signed in this session, if anyone signed in with the provider. */
export function savedIdentity(): Identity | undefined {
  const saved = read(IDENTITY_KEY);
  if (saved === undefined) return undefined;
  try {
    return JSON.parse(saved) as Identity;
  } catch {
    return undefined;
  }
}

/** Keeps who signed in for this session. */
export function saveIdentity(signedIn: Pick<SignedIn, 'name' | 'email'>): void {
  const identity: Identity = {
    ...(signedIn.name === undefined ? {} : { name: signedIn.name }),
    ...(signedIn.email === undefined ? {} : { email: signedIn.email }),
  };
  try {
    sessionStorage.setItem(IDENTITY_KEY, JSON.stringify(identity));
  } catch {
    // No storage: the name is not shown after a reload.
  }
}

/** Signing out: the session's tokens, identity and any sign-in under way, all forgotten. */
export function forgetSession(): void {
  try {
    sessionStorage.clear();
  } catch {
    // No storage: nothing was kept.
  }
}

/** Who is signed in, in words: the name, else the email. */
export function identityText(identity: Identity): string {
  return identity.name ?? identity.email ?? 'you';
}

function read(key: string): string | undefined {
  try {
    return sessionStorage.getItem(key) ?? undefined;
  } catch {
    return undefined;
  }
}
