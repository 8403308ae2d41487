import type { PolicyDefault, PolicyMode } from '../vocabulary.ts';
import type { AskPolicy, LadderLevel } from '../wire.ts';

export type { LadderLevel };

/**
 * The policy engine as the checkpoint service sees it (§17, §19): what it asks of one `approval` ask, and what it says
 * of itself. Cedar stays behind it (`engine.ts`, `cedar.ts`), so the declarations of the store and the service, which
 * name this port, reach no Cedar module: a consumer of `handback` or `handback/local` type-checks (`skipLibCheck:
 * false`) without reading `@cedar-policy/cedar-wasm`'s declarations.
 */

/** What a request is made of: who paused, which call, where it comes from, and when it is judged. */
export interface PolicyRequest {
  principal: { kind: string; subject: string; groups?: readonly string[] };
  /** The person an agent pauses for (§20: a token's RFC 8693 `act`), as its subject; policies see `context.onBehalfOf`. */
  onBehalfOf?: { subject: string };
  tool: string;
  args: unknown;
  runId: string;
  tenant: string;
  format: string;
  /** The service's clock when the call is judged (§19): `context.now` and `context.clock`. */
  now: Date;
}

/** One policy of the set, as `GET /policies` shows it. */
export interface PolicySummary {
  id: string;
  effect: 'permit' | 'forbid';
  /** Every annotation, Handback's and the author's own. */
  annotations: Record<string, string>;
  /** Its text, as the file has it. */
  text: string;
}

/** The policies of a deployment, ready to evaluate asks. */
export interface PolicyEngine {
  readonly mode: PolicyMode;
  readonly default: PolicyDefault;
  /** How many policies it holds. */
  readonly size: number;
  /** The policy set's version (§19): the deployment's, or the first 16 hex digits of its files' SHA-256. */
  readonly version: string;
  /** The IANA time zone of `context.clock`. */
  readonly timeZone: string;
  /** Its policies, in the file's order. */
  readonly policies: readonly PolicySummary[];
  /** The outcome of one `approval` ask (its `version` the set's). */
  evaluate(request: PolicyRequest): AskPolicy;
  /** §21: the escalation ladder of the first of `policyIds` with an `@escalate`, or undefined. */
  ladderOf?(policyIds: readonly string[]): LadderLevel[] | undefined;
}
