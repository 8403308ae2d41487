import type { PolicyDefault, PolicyMode } from '../vocabulary.ts';
import type { AskPolicy } from '../wire.ts';

/**
 * The policy engine as the checkpoint service sees it (§17): what it asks of one `approval` ask. Cedar stays behind
 * it (`engine.ts`, `cedar.ts`), so the declarations of the store and the service, which name this port, reach no
 * Cedar types (those need the DOM's `RequestInfo`, `BufferSource` and `WebAssembly`: a strict Node.js consumer with
 * `skipLibCheck: false` and no DOM lib fails on them).
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
}
