import type { Approvers, AskPolicy } from '../wire.ts';

/**
 * What the deployment's policies made of an ask (§17), in words for the person: why it waits ("policy
 * finance-over-100 requires 2 of finance"), what decided it, and in shadow mode what would have happened. One
 * sentence fragment, the same in the inbox and in Slack. Pure, and a leaf (types only), so the inbox page bundles it.
 */
export function policyText(policy: AskPolicy | undefined): string | undefined {
  if (policy === undefined) return undefined;
  const who = whoText(policy);
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

/**
 * What the policies make of an ask's current, edited arguments (§19's `policyNow`), beside `policyText`'s words for
 * the model's: "After the edit: policy finance-over-100 requires 2 of finance." An edit is always a person's vote, so
 * a permit that would approve the edited call alone says so without claiming it decided.
 */
export function policyNowText(policy: AskPolicy | undefined): string | undefined {
  if (policy === undefined) return undefined;
  if (policy.shadow === true) return `After the edit: ${policyText(policy)}`;
  const who = whoText(policy);
  const requires = requirementsText(policy.requires);
  if (policy.outcome === 'approve') return `After the edit: ${who} would allow it; a person's vote still decides.`;
  if (policy.outcome === 'reject') {
    return `After the edit: ${who} would reject it${policy.reason === undefined ? '' : `: ${policy.reason}`}.`;
  }
  return requires === undefined
    ? `After the edit: waits for people (${who}).`
    : `After the edit: ${who} ${policy.policyIds.length === 1 ? 'requires' : 'require'} ${requires}.`;
}

/** What judged it: the determining policies, or the default, or an evaluation error. */
function whoText(policy: AskPolicy): string {
  if (policy.basis === 'error') return 'a policy evaluation error';
  if (policy.basis === 'default') return "the deployment's default (no policy matched)";
  return `${policy.policyIds.length === 1 ? 'policy' : 'policies'} ${policy.policyIds.join(', ')}`;
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
