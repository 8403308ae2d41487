import { INBOX_FILES } from './generated.ts';
import { TRUSTED_TYPES_POLICY } from './page/policy.ts';

/**
 * The inbox page's files as the HTTP API serves them (§12), from the module `npm run build:inbox` generates, with
 * their security headers. The page shows text that comes from models and agents (prompts, arguments, transcripts),
 * so its policy allows no inline script, no `eval`, no framing, no `<base>`, and Trusted Types for every script
 * sink; its data calls go to its own origin only.
 */

/** A file of the inbox page: its media type, body and headers. */
export interface InboxAsset {
  contentType: string;
  body: string;
  headers: Record<string, string>;
}

/** The page's Content-Security-Policy. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  // The validator runs in a dedicated worker from the page's own origin.
  "worker-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "require-trusted-types-for 'script'",
  `trusted-types ${TRUSTED_TYPES_POLICY}`,
].join('; ');

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
export function inboxAsset(file: string): InboxAsset | undefined {
  if (!Object.hasOwn(INBOX_FILES, file)) return undefined;
  const found = INBOX_FILES[file];
  if (found === undefined) return undefined;
  const { contentType, hashed, body } = found;
  const headers: Record<string, string> = {
    ...COMMON_HEADERS,
    'Content-Security-Policy': file.startsWith('validator-') ? WORKER_CSP : PAGE_CSP,
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
