import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { PauseKey, PauseView } from '../checkpoints/checkpoint-store.ts';
import { Keys } from '../checkpoints/dynamodb/keys.ts';
import { TABLE } from '../checkpoints/table.ts';
import { BadRequestError, PauseOpenError } from '../errors.ts';
import { LIMITS } from '../vocabulary.ts';
import type { ClaimResult } from '../wire.ts';

/**
 * Hand-off claims (§18): a closed pause's decision is carried out by one consumer, however often it is delivered or
 * however many consumers race for it. The first to claim a closed pause gets it, with one conditional put; every later
 * claim by another claimant is told who has it, and the same claimant claiming again (a retry after an unclear
 * failure) gets it again. Claude Code's hook (`handback claude-hook`) claims before it lets a decided tool call run,
 * so two resumes of one session run the call once. On the pauses' own table, in the run's partition, under the `H#`
 * sort-key prefix (a pause's items are `P#`, which the store's reads of a run never step outside), with item kind
 * `claim`, so the lifecycle stream ignores them.
 */

/** A claim on one closed pause. */
export interface ClaimInput extends PauseKey {
  /** Who claims: an opaque name, the same on every retry of one consumer's claim. */
  claimant: string;
}

export type { ClaimResult };

/** Where claims are recorded: one conditional write per pause. */
export interface HandoffClaims {
  /** Records `claimant` for the pause unless another holds it; `keepUntilMs`: how long the record must last. */
  claim(input: ClaimInput, keepUntilMs: number): Promise<ClaimResult>;
}

/** The item kind of a claim. */
export const CLAIM_KIND = 'claim';

/** How long a claim outlives its pause's expiry: as long as the pause's own items are kept. */
const KEEP_AFTER_EXPIRY_SECONDS = 30 * 24 * 3600;

/** Whether `claimant` is a name a claim takes: 1–128 visible ASCII characters. */
export function isClaimant(claimant: unknown): claimant is string {
  return typeof claimant === 'string' && LIMITS.claimant.test(claimant);
}

/** Claims on the pauses' table. */
export function createDynamoDBHandoffClaims(options: {
  client: DynamoDBDocumentClient;
  tableName: string;
  now?: () => number;
}): HandoffClaims {
  const { client, tableName } = options;
  const now = options.now ?? Date.now;
  const { partitionKey: pk, sortKey: sk, timeToLiveAttribute: ttl } = TABLE;
  return {
    async claim(input, keepUntilMs) {
      const key = { [pk.name]: Keys.run(input.tenant, input.runId), [sk.name]: `H#${input.interruptId}` };
      const claimedAt = new Date(now()).toISOString();
      const ids = { runId: input.runId, interruptId: input.interruptId };
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...key,
              kind: CLAIM_KIND,
              claimant: input.claimant,
              claimedAt,
              [ttl]: Math.ceil(keepUntilMs / 1000) + KEEP_AFTER_EXPIRY_SECONDS,
            },
            // The claim: only the first claimant finds no record; no one ever takes it over.
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': pk.name },
          }),
        );
        return { ...ids, claimed: true, claimant: input.claimant, claimedAt };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
      const holder = String(Item?.claimant);
      return { ...ids, claimed: holder === input.claimant, claimant: holder, claimedAt: String(Item?.claimedAt) };
    },
  };
}

/**
 * Claims a closed pause's hand-off for `claimant`: the pause read strongly consistent first (unknown or another
 * tenant's: `PauseNotFoundError`), an open one refused (`PauseOpenError`, nothing recorded), then the one conditional
 * write. `getPause` is the store's, or the use case that reads through it.
 */
export async function claimClosedPause(
  deps: { getPause(key: PauseKey): Promise<PauseView>; claims: HandoffClaims },
  input: ClaimInput,
): Promise<ClaimResult> {
  if (!isClaimant(input.claimant)) {
    const message = 'claimant must be 1–128 visible ASCII characters';
    throw new BadRequestError(`The ${message}.`, [{ path: '/claimant', message }]);
  }
  const view = await deps.getPause(input);
  if (view.status === 'paused') throw new PauseOpenError(input.runId, input.interruptId);
  return deps.claims.claim(input, Date.parse(view.expiresAt));
}
