import type { ExecutionView } from '../wire.ts';

/**
 * Where a dispatched call's execution stands (§19), in words for the person who decided it: "Approved — waiting for
 * the agent to run it", "Running since …", "Ran at …", "Refused at run time: …". One sentence, the same in the inbox
 * and in Slack, read from the view's `execution` — so no page says a call ran before its claim says so. Pure, and a
 * leaf (types only), so the inbox page bundles it; `when` writes an instant as the page or the message does.
 */
export function executionText(execution: ExecutionView | undefined, when: (iso: string) => string): string | undefined {
  if (execution === undefined) return undefined;
  switch (execution.status) {
    case 'waiting': {
      const until =
        execution.approvedUntil === undefined ? '' : ` (the approval holds until ${when(execution.approvedUntil)})`;
      return `Approved — waiting for the agent to run it${until}.`;
    }
    case 'claimed':
      return `Running since ${when(execution.at)}.`;
    case 'succeeded':
      return `Ran at ${when(execution.claimedAt ?? execution.at)}${execution.detail === undefined ? '' : `: ${execution.detail}`}.`;
    case 'failed':
      return `Ran at ${when(execution.claimedAt ?? execution.at)} and failed${execution.reason === undefined ? '' : `: ${execution.reason}`}.`;
    case 'refused':
      return `Refused at run time: ${execution.reason ?? 'the call was not allowed to run'}.`;
  }
}
