import type { PolicyEngine } from '../policies/port.ts';
import type { BundleDefines } from '../settings.ts';
import type { Actor } from '../wire.ts';
import { checkAuthority, type MatchedDecision } from './deciding.ts';
import type { Ask, PauseRecord } from './record.ts';

/**
 * Whether a decision request's edits meet the deployment's policies (§19), and what follows: the engine and its seam
 * (`policy-edits.ts`) are loaded only by a request that edits where policies are configured, and never in a Lambda
 * bundle built without policies (`HANDBACK_BUNDLED_POLICIES`, an esbuild `define`: the branch folds, its chunks are
 * left out). The editor is then held to the requirements of the arguments they chose.
 */

/**
 * `fresh` (a request's decisions about to be recorded on `record`) with its edits judged at `nowMs`: the record with
 * the edited asks' new requirements, and each edit with what the policies said. Throws the first refusal (a forbid,
 * a failed evaluation, an editor who may not decide under the new requirements), before anything is written.
 */
export async function judgeEdits(
  policies: (() => Promise<PolicyEngine>) | undefined,
  record: PauseRecord,
  fresh: MatchedDecision[],
  actor: Actor,
  nowMs: number,
): Promise<{ record: PauseRecord; matched: MatchedDecision[] }> {
  if (
    (globalThis as BundleDefines).HANDBACK_BUNDLED_POLICIES === 'false' ||
    policies === undefined ||
    !fresh.some(isEdit)
  ) {
    return { record, matched: fresh };
  }
  const [engine, seam] = await Promise.all([policies(), import('./policy-edits.ts')]);
  const judged = await seam.judgeEdits(engine, record, fresh, nowMs);
  const matched = fresh.map((match) => {
    const policy = judged.policies.get(match.position);
    const ask = judged.record.asks[match.index] as Ask;
    return policy === undefined ? { ...match, ask } : { ...match, ask, policy };
  });
  // The editor's vote counts only if they may decide under the requirements of the arguments they chose.
  checkAuthority(judged.record, matched.filter(isEdit), actor);
  return { record: judged.record, matched };
}

/** Whether a matched decision is an edit. */
function isEdit(match: MatchedDecision): boolean {
  return 'decision' in match.decision && match.decision.decision === 'edit';
}
