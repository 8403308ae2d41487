import { oidcScopes } from '../settings.ts';
import { INBOX_FILES } from './generated.ts';
import { TRUSTED_TYPES_POLICY } from './page/policy.ts';

/**
 * The inbox page's files as the HTTP API serves them (§12), from the module `npm run build:inbox` generates, with
 * their security headers. The page shows text that comes from models and agents (prompts, arguments, transcripts),
 * so its policy allows no inline script, no `eval`, no framing, no `<base>`, and Trusted Types for every script
 * sink; its data calls go to its own origin only, and with sign-in configured to the identity provider's.
 */

/** A file of the inbox page: its media type, body and headers. */
export interface InboxAsset {
  contentType: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * How the page signs people in (§13), as `GET /inbox/config.json` serves it: with an OIDC issuer and the inbox's
 * client id, the authorization-code flow with PKCE; without, the pasted token (or none, with auth off).
 */
export interface InboxConfig {
  issuer?: string;
  clientId?: string;
  /** Space-separated scopes the page asks for. */
  scopes?: string;
}

/** What the server knows beside the config: the origins the page may call for sign-in (the issuer's, and more). */
export interface InboxSettings {
  config: InboxConfig;
  connectOrigins: string[];
}

/** The scopes the page asks for when none are configured: who the person is (its name and email). */
export const DEFAULT_SCOPES: string = oidcScopes.default;

/** How people sign in to the inbox, as its reader of the environment gives it; all unset: no sign-in. */
export interface InboxSignIn {
  /** The OIDC issuer (`HANDBACK_JWT_ISSUER`). */
  issuer?: string | undefined;
  /** The inbox's client (`HANDBACK_OIDC_CLIENT_ID`). */
  clientId?: string | undefined;
  /** The scopes the page asks for, space-separated. @default DEFAULT_SCOPES */
  scopes?: string | undefined;
  /**
   * Origins the issuer's endpoints live on besides its own, space-separated, such as Cognito's managed-login domain,
   * whose token endpoint is not on the issuer's origin.
   */
  endpointOrigins?: string | undefined;
}

/**
 * The inbox's sign-in settings: none without both an issuer and a client. Throws on an issuer that is not a URL: a
 * misconfigured deployment fails at once, not in every person's browser.
 */
export function inboxSettings(signIn: InboxSignIn): InboxSettings {
  const issuer = signIn.issuer || undefined;
  const clientId = signIn.clientId || undefined;
  if (issuer === undefined || clientId === undefined) return { config: {}, connectOrigins: [] };
  const origins = [issuer, ...(signIn.endpointOrigins ?? '').split(/\s+/).filter(Boolean)].map((value) => {
    try {
      return new URL(value).origin;
    } catch {
      throw new Error(`The inbox's OIDC setting ${JSON.stringify(value)} is not a URL.`);
    }
  });
  return {
    config: { issuer, clientId, scopes: signIn.scopes || DEFAULT_SCOPES },
    connectOrigins: [...new Set(origins)],
  };
}

/** The page's Content-Security-Policy; `connectOrigins`: the identity provider's origins sign-in calls. */
export function pageCsp(connectOrigins: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    // Its own API; with sign-in, the issuer's discovery, token and userinfo endpoints, and nothing else.
    ["connect-src 'self'", ...connectOrigins].join(' '),
    // The validator runs in a dedicated worker from the page's own origin.
    "worker-src 'self'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "require-trusted-types-for 'script'",
    `trusted-types ${TRUSTED_TYPES_POLICY}`,
  ].join('; ');
}

/** The page's Content-Security-Policy without sign-in. */
export const PAGE_CSP = pageCsp();

/**
 * The validator worker's own Content-Security-Policy (a worker fetched over HTTP(S) is governed by its response's
 * policy, not the page's). ajv compiles a schema into a function, so it needs `'unsafe-eval'`; the worker has no DOM,
 * may fetch nothing, and only receives a schema and a value and posts back the failures.
 */
export const WORKER_CSP = "default-src 'none'; script-src 'self' 'unsafe-eval'";

const COMMON_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
} as const;

/** The inbox page's files by name (`''` is the page itself). */
export function inboxAsset(file: string, connectOrigins: readonly string[] = []): InboxAsset | undefined {
  if (!Object.hasOwn(INBOX_FILES, file)) return undefined;
  const found = INBOX_FILES[file];
  if (found === undefined) return undefined;
  const { contentType, hashed, body } = found;
  const headers: Record<string, string> = {
    ...COMMON_HEADERS,
    'Content-Security-Policy': file.startsWith('validator-') ? WORKER_CSP : pageCsp(connectOrigins),
    // Hashed names change with their content: cache them for good. The page itself must be revalidated, so a new
    // build's names are picked up at once.
    'Cache-Control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
  };
  if (file === '') {
    headers['Cross-Origin-Opener-Policy'] = 'same-origin';
    headers['X-Frame-Options'] = 'DENY';
  }
  return { contentType, body, headers };
}
