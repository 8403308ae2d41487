/**
 * `handback/testing`: the spec suites our own adapters pass, for a user's own persistence adapter to run the same
 * checks (as langgraphjs ships `@langchain/langgraph-checkpoint-validation`). They are vitest suites: call them at the
 * top level of a test file, with vitest installed (an optional peer of this subpath only; `handback` itself never
 * loads it).
 *
 * ```ts
 * import { executionSpec, persistenceSpec, samePersonSpec, serviceSpec } from 'handback/testing';
 * const initializer = { name: 'my adapter', create: () => new MyPersistence() };
 * persistenceSpec(initializer);
 * serviceSpec(initializer);
 * samePersonSpec(initializer);
 * executionSpec(initializer);
 * ```
 */

export { directorySpec, personOf } from './directory-spec.ts';
export {
  EXECUTION_POLICIES,
  EXECUTION_POLICIES_LATER,
  executionSpec,
} from './execution-spec.ts';
export { chatTranscript, pauseInput, policyTranscript, testClock } from './fixtures.ts';
export { persistenceSpec, recordOf, type SpecInitializer } from './persistence-spec.ts';
export { EDIT_ARGS, EDIT_POLICIES, policyEditSpec } from './policy-edit-spec.ts';
export { policySpec, SPEC_ARGS, SPEC_POLICIES, SPEC_VERSION } from './policy-spec.ts';
export { samePersonSpec } from './same-person-spec.ts';
export { approvalTranscript, serviceSpec } from './service-spec.ts';
