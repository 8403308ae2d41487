/**
 * What every adapter's subpath exports beside its own API: the execution logs (`once` across processes, §15), how an
 * adapter reaches Handback (`{handback}`: the client, or a store with its tenant), and the error a delivery gets while
 * another runs the call. Each adapter re-exports this module whole, so a new adapter offers the same with one line.
 */
export { ExecutionInProgressError } from '../errors.ts';
export {
  createDynamoDBToolExecutions,
  type DocumentClientLike,
  type DynamoDBToolExecutionsOptions,
} from './executions.ts';
export {
  createMemoryToolExecutions,
  type ExecutionLog,
  type HandbackOption,
  type HandbackStore,
  type StoreScope,
} from './shared.ts';
