import type { ShadowPeople } from '../vocabulary.ts';
import type { AskView, PauseView } from '../wire.ts';
import type { ShadowEntry, ShadowReport, ShadowTally } from '../wire-reports.ts';

/**
 * `GET /policies/shadow` (§19): what the policies, run in shadow mode, would have decided for each approval ask,
 * beside what people did with it — per ask, and tallied per policy (or `default`, `error` where no policy of the file
 * decided). Pure, over the pause views a page of the listing holds, so it reads nothing the listing does not.
 */

/** What people did with `ask` of `pause`: a cancel or an expiry counts only where no person had decided it. */
function peopleOf(pause: PauseView, ask: AskView): ShadowPeople {
  const kind = ask.decision?.by?.kind;
  const byPerson = kind === 'person' || kind === 'link';
  if (pause.status === 'cancelled' && !byPerson) return 'cancelled';
  if (pause.status === 'expired' && !byPerson) return 'expired';
  const decision = ask.decision !== undefined && 'decision' in ask.decision ? ask.decision.decision : undefined;
  if (decision === 'approve') return 'approved';
  if (decision === 'edit') return 'edited';
  if (decision === 'reject') return 'rejected';
  return 'waiting';
}

/** Whether people did what the policies would have: null where one of the two decided nothing comparable. */
function agreed(would: ShadowEntry['would']['outcome'], people: ShadowPeople): boolean | null {
  if (would === 'ask' || !['approved', 'edited', 'rejected'].includes(people)) return null;
  // An edit is a person's approval of other arguments: it agrees with no automatic outcome.
  return would === 'approve' ? people === 'approved' : people === 'rejected';
}

/** The shadow entries of `pauses` (newest first, as listed) and their tallies per policy. */
export function shadowReportOf(pauses: readonly PauseView[], since: string, cursor?: string): ShadowReport {
  const items: ShadowEntry[] = [];
  const tallies = new Map<string, ShadowTally>();
  for (const pause of pauses) {
    for (const ask of pause.asks) {
      if (ask.policy?.shadow !== true) continue;
      const people = peopleOf(pause, ask);
      const entry: ShadowEntry = {
        runId: pause.runId,
        interruptId: pause.interruptId,
        toolCallId: ask.toolCallId,
        name: ask.name,
        createdAt: pause.createdAt,
        would: ask.policy,
        people,
        agreed: agreed(ask.policy.outcome, people),
      };
      items.push(entry);
      const ids = ask.policy.policyIds.length > 0 ? ask.policy.policyIds : [ask.policy.basis ?? 'default'];
      for (const policyId of ids) {
        const tally = tallies.get(policyId) ?? { policyId, asks: 0, agreed: 0, disagreed: 0, would: {}, people: {} };
        tally.asks += 1;
        if (entry.agreed === true) tally.agreed += 1;
        if (entry.agreed === false) tally.disagreed += 1;
        tally.would[ask.policy.outcome] = (tally.would[ask.policy.outcome] ?? 0) + 1;
        tally.people[people] = (tally.people[people] ?? 0) + 1;
        tallies.set(policyId, tally);
      }
    }
  }
  return { since, policies: [...tallies.values()], items, ...(cursor === undefined ? {} : { cursor }) };
}
