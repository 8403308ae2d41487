import type { Approvers, AskPolicy } from '../wire.ts';

/**
 * What the deployment's policies made of an ask (§17), in words for the person: why it waits ("policy
 * finance-over-100 requires 2 of finance"), what decided it, and in shadow mode what would have happened. One
 * sentence fragment, the same in the inbox and in Slack. Pure, and a leaf (types only), so the inbox page bundles it.
 */
export function policyText(policy: AskPolicy | undefined): string | undefined {
  if (policy === undefined) return undefined;
  const who =
    policy.basis === 'error'
      ? 'a policy evaluation error'
      : policy.basis === 'default'
        ? "the deployment's default (no policy matched)"
        : `${policy.policyIds.length === 1 ? 'policy' : 'policies'} ${policy.policyIds.join(', ')}`;
  const reason = policy.reason === undefined ? '' : `: ${policy.reason}`;
  const requires = requirementsText(policy.requires);
  if (policy.shadow === true) {
    const would =
      policy.outcome === 'approve'
        ? 'would have approved it'
        : policy.outcome === 'reject'
          ? `would have rejected it${reason}`
          : requires === undefined
            ? 'would have asked people'
            : `would have required ${requires}`;
    return `Shadow mode: ${who} ${would}.`;
  }
  if (policy.outcome === 'approve') return `Approved by ${who}.`;
  if (policy.outcome === 'reject') return `Rejected by ${who}${reason}.`;
  return requires === undefined
    ? `Waits for people: ${who}.`
    : `Waits: ${who} ${policy.policyIds.length === 1 ? 'requires' : 'require'} ${requires}.`;
}

/** "2 of finance or cfo@example.com, not the one who paused it". */
function requirementsText(requires: AskPolicy['requires']): string | undefined {
  if (requires === undefined) return undefined;
  const whom = approversText(requires.approvers);
  const count = requires.approvals ?? 1;
  if (whom === undefined && requires.approvals === undefined && requires.fourEyes === undefined) return undefined;
  const base = `${count} ${whom === undefined ? (count === 1 ? 'approval' : 'approvals') : `of ${whom}`}`;
  return requires.fourEyes === true ? `${base}, not the one who paused it` : base;
}

function approversText(approvers: Approvers | undefined): string | undefined {
  if (approvers === undefined) return undefined;
  const names = [...(approvers.groups ?? []), ...(approvers.emails ?? []), ...(approvers.subjects ?? [])];
  if (names.length === 0) return undefined;
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}
