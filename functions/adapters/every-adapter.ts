/**
 * What every adapter's subpath exports beside its own API: the execution logs (`once` across processes, §15; claimed
 * through Handback, §19), how an adapter reaches Handback (`{handback}`: the client, or a store with its tenant), and
 * the errors a delivery gets while another runs the call or when Handback refuses it at run time. Each adapter
 * re-exports this module whole, so a new adapter offers the same with one line.
 */
export {
  AlreadyClaimedError,
  ApprovalExpiredError,
  ExecutionInProgressError,
  PolicyEvaluationError,
  PolicyForbidsError,
} from '../errors.ts';
export {
  createHandbackToolExecutions,
  type ExecutionClaims,
  type ExecutionClaimsScope,
} from './claimed-executions.ts';
export {
  createDynamoDBToolExecutions,
  type DocumentClientLike,
  type DynamoDBToolExecutionsOptions,
} from './executions.ts';
export {
  createMemoryToolExecutions,
  type ExecutionKey,
  type ExecutionLog,
  type HandbackOption,
  type HandbackStore,
  type StoreScope,
} from './shared.ts';
