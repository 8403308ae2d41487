import type { AnswerFailure } from '../errors.ts';
import type { MessageFormat } from '../rehydrate/formats/format.ts';
import type { JsonSchema } from './checkpoint-store.ts';
import type { CheckedPause, PauseRules } from './pause-checks.ts';

/**
 * The checks of a store that only some entry points need, each a module loaded on first use: the pause input checks
 * (the transcript check, the JSON Schema analysis) and the JSON Schema checks of answers (ajv and
 * re2js). A Lambda entry point gives its store only the ones it can meet, so a bundle without them leaves their code
 * out (the sweep needs neither; the resume-only triggers only the answer checks), and one that has them does not
 * evaluate them at cold start.
 */
export interface CheckpointChecks {
  /** Checks a pause input with its format's module (`formats/load.ts`); `pause` needs it. */
  pause?: () => Promise<{
    checkPauseInput(input: unknown, format: MessageFormat | undefined, rules?: PauseRules): CheckedPause;
  }>;
  /** Checks an answer or edited args against its JSON Schema; `resume` and `decide` need it for asks with a schema. */
  schemas?: () => Promise<{ schemaFailures(schema: JsonSchema, value: unknown): AnswerFailure[] }>;
}

/** Every check: what the library's stores, the local service and the HTTP API run with. */
export const ALL_CHECKS: Required<CheckpointChecks> = {
  pause: () => import('./pause-checks.ts'),
  schemas: () => import('./json-schema/index.ts'),
};

/** The error of a store asked for what its entry point was built without: a wiring mistake, never a request's. */
export function missingCheck(what: 'pause' | 'schemas'): Error {
  return new Error(
    what === 'pause'
      ? 'This store was built without the pause checks (CheckpointChecks.pause): this entry point cannot record pauses.'
      : 'This store was built without the JSON Schema checks (CheckpointChecks.schemas): it cannot check answers against a schema.',
  );
}
