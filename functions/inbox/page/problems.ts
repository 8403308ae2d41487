import type { Problem } from './types.ts';

/** A problem in words for the person, when nothing more specific applies. */
export function problemText(p: Problem): string {
  switch (p.code) {
    case 'unauthorized':
      return 'The service did not accept your access token.';
    case 'pause_expired':
      return 'This request expired before a decision was made; nothing was sent.';
    case 'pause_cancelled':
      return 'This request was cancelled; nothing was sent.';
    case 'link_closed':
      return 'This request closed before your decision arrived; nothing was sent.';
    case 'already_resumed':
      return 'This request was already settled.';
    case 'storage_unavailable':
      return 'The service did not answer in time. What you sent may or may not have been recorded; sending it again is safe.';
    case 'pause_not_found':
      return 'There is no such request, or it is not yours to see.';
    default:
      return p.detail ?? p.title ?? `The service answered ${p.status}.`;
  }
}
