import type { CheckpointStore } from '../checkpoints/checkpoint-store.ts';
import type { HandbackOperations } from '../client/types.ts';
import { utf8Bytes } from '../json.ts';
import { LIMITS } from '../vocabulary.ts';
import type { Actor } from '../wire.ts';
import type { ExecutionKey, ExecutionLog } from './shared.ts';

/**
 * The execution log that claims each approved call through Handback (§19): `POST …/executions` before the call runs,
 * `PUT …/executions/{toolCallId}` with how it ended. The service judges the call again by the policies in force and
 * its approval's `@validFor`, records exactly one claim under any race, and puts the run on the audit trail (the
 * inbox's "running since…", "ran at…"). So no table is shared between the agents: only Handback.
 *
 * **A claim is never released.** A delivery that finds the call claimed (`AlreadyClaimedError`, naming when and by
 * whom) does not run it — there is no output to hand it, unlike the DynamoDB log, so it fails and the queue's
 * redelivery ends in its dead-letter queue, where a person settles it from the tool's own records. A claim refused at
 * run time throws the service's error (`PolicyForbidsError`, `PolicyEvaluationError`, `ApprovalExpiredError`); the
 * adapters tell the model "Not run: …" and nothing runs.
 */

/** What the log needs of Handback: the HTTP client (`handback/client`) has it, and so does a store bound to a tenant. */
export type ExecutionClaims = Pick<HandbackOperations, 'claimExecution' | 'finishExecution'>;

/** The claims of a store (`createDynamoDBCheckpointStore`, `createMemoryCheckpointStore`) for one tenant and principal. */
export interface ExecutionClaimsScope {
  store: Pick<CheckpointStore, 'claimExecution' | 'finishExecution'>;
  tenant: string;
  by?: Actor;
}

/** The execution log of the claims of `handback`: the client (its token names the tenant and the claimant), or a store. */
export function createHandbackToolExecutions(handback: ExecutionClaims | ExecutionClaimsScope): ExecutionLog {
  const claims = claimsOf(handback);
  return {
    // The claim is Handback's record: it outlives this process, so no production warning.
    durable: true,
    claimsCalls: true,
    async once(key, run) {
      // No `idempotencyKey`: the client keeps one for its own retries, and a redelivery must find the claim taken.
      await claims.claimExecution(key);
      let output: string;
      try {
        output = await run();
      } catch (error) {
        // The adapters turn a tool's own error into its output, so this is a failure around it: the claim stays.
        await finish(claims, key, 'failed', error instanceof Error ? error.message : String(error));
        throw error;
      }
      await finish(claims, key, 'succeeded');
      return output;
    },
  };
}

/** Records the end; a failure to record it loses no output (the call ran): the execution reads "running since…". */
async function finish(claims: ExecutionClaims, key: ExecutionKey, status: 'succeeded' | 'failed', detail?: string) {
  try {
    await claims.finishExecution({
      ...key,
      status,
      ...(detail === undefined ? {} : { detail: executionDetailOf(detail) }),
    });
  } catch (error) {
    console.warn(
      `handback: call ${key.toolCallId} of continuation ${key.continuationId} ran (${status}), but its end was not recorded: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** An execution's `detail` within the route's bound (`LIMITS.executionDetailBytes`), cut at a character. */
export function executionDetailOf(text: string): string {
  if (utf8Bytes(text) <= LIMITS.executionDetailBytes) return text;
  let end = Math.min(text.length, LIMITS.executionDetailBytes);
  while (utf8Bytes(`${text.slice(0, end)}…`) > LIMITS.executionDetailBytes) end -= 1;
  return `${text.slice(0, end)}…`;
}

function claimsOf(handback: ExecutionClaims | ExecutionClaimsScope): ExecutionClaims {
  if (!('store' in handback)) return handback;
  const { store, tenant, by } = handback;
  const as = by === undefined ? {} : { by };
  return {
    claimExecution: (input) => store.claimExecution({ ...input, tenant, ...as }),
    finishExecution: (input) => store.finishExecution({ ...input, tenant, ...as }),
  };
}
