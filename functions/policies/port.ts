import type { PolicyDefault, PolicyMode } from '../vocabulary.ts';
import type { AskPolicy, LadderLevel } from '../wire.ts';

export type { LadderLevel };

/**
 * The policy engine as the checkpoint service sees it (§17): what it asks of one `approval` ask. Cedar stays behind
 * it (`engine.ts`, `cedar.ts`), so the declarations of the store and the service, which name this port, reach no
 * Cedar module: a consumer of `handback` or `handback/local` type-checks (`skipLibCheck: false`) without reading
 * `@cedar-policy/cedar-wasm`'s declarations.
 */

/** What a request is made of: who paused, which call, where it comes from. */
export interface PolicyRequest {
  principal: { kind: string; subject: string; groups?: readonly string[] };
  tool: string;
  args: unknown;
  runId: string;
  tenant: string;
  format: string;
}

/** The policies of a deployment, ready to evaluate asks. */
export interface PolicyEngine {
  readonly mode: PolicyMode;
  readonly default: PolicyDefault;
  /** How many policies it holds. */
  readonly size: number;
  /** The outcome of one `approval` ask. */
  evaluate(request: PolicyRequest): AskPolicy;
  /** §21: the escalation ladder of the first of `policyIds` with an `@escalate`, or undefined. */
  ladderOf?(policyIds: readonly string[]): LadderLevel[] | undefined;
}
