import type { DeleteCommandInput, GetCommandInput, PutCommandInput, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { TABLE } from '../checkpoints/table.ts';
import { foldEmail } from '../emails.ts';
import type { Person } from '../wire.ts';
import type { DirectoryConflict, PersonKey } from './port.ts';

/**
 * The table-kept directory's keys and command inputs (§20), pure, as `params.ts` builds the pauses': the adapter
 * (`table-directory.ts`) only sends them. A tenant's directory is one partition of the pauses' table, `T#<tenant>#DIR`
 * (no run key has that shape, `parseRunKey` refuses it), holding —
 *
 * | item       | sk                               | attributes                          |
 * | ---------- | -------------------------------- | ----------------------------------- |
 * | person     | `P#<id>`                         | `person` (JSON), `rev`              |
 * | claim      | `K#s#<subject>`, `K#k#<team>:<user>`, `K#e#<folded email>` | `holder` (an id), `rev`, `at` (epoch ms) |
 * | membership | `G#<group, encoded>#<id>`        | `rev`                               |
 * | delegation | `D#<id>`                         | `rev`                               |
 * | document   | `S#<kind>#<id>`                  | `doc` (JSON), `rev`: a SCIM resource's own fields |
 * | name       | `N#<kind>#<name>`                | `holder`: a SCIM userName / displayName, unique |
 *
 * The person item is the truth; claims, memberships and delegation markers are indexes that a read checks against it
 * (a claim finds its holder only if the holder's item still holds it), so an index item left behind by a writer that
 * stopped half-way misleads no one. One claim item per identity makes an identity unique without transactions
 * (dynalite has none): its conditional put is the race's one winner.
 */

const { partitionKey, sortKey } = TABLE;

/** The tenant as it appears in keys: percent-encoded as the pauses' keys encode it, so it holds no `#`. */
const encodeTenant = (tenant: string) => encodeURIComponent(tenant);

/** A `<group>` or a SCIM name as it appears in a key: percent-encoded, so it holds no `#`. */
const encode = (text: string) => encodeURIComponent(text);

/** The kinds of claims, each with its conflict's name. */
const CLAIM_KINDS = { s: 'subject', k: 'slack', e: 'email' } as const satisfies Record<
  string,
  DirectoryConflict['conflict']
>;

/** One identity of a person as the table claims it: its sort key, its conflict's name and its value as given. */
export interface Claim {
  sk: string;
  conflict: DirectoryConflict['conflict'];
  value: string;
}

/** Key builders: every directory key the adapter reads or writes comes from here. */
export const DirectoryKeys = {
  /** The partition of a tenant's directory. */
  partition: (tenant: string) => `T#${encodeTenant(tenant)}#DIR`,
  /** A person's item. */
  person: (id: string) => `P#${id}`,
  /** The claim of an identity (`PersonKey`): subjects as given, Slack users as `<team>:<user>`, emails folded. */
  claim: (key: PersonKey) =>
    'subject' in key
      ? `K#s#${key.subject}`
      : 'slack' in key
        ? `K#k#${key.slack.team}:${key.slack.user}`
        : `K#e#${foldEmail(key.email)}`,
  /** The prefix of a group's membership items. */
  group: (group: string) => `G#${encode(group)}#`,
  /** A person's membership of a group. */
  member: (group: string, id: string) => `G#${encode(group)}#${id}`,
  /** The prefix of the delegation markers. */
  delegations: 'D#',
  /** The marker of a person who holds a delegation. */
  delegation: (id: string) => `D#${id}`,
  /** The prefix of a kind's documents. */
  documents: (kind: string) => `S#${kind}#`,
  /** A SCIM resource's own fields. */
  document: (kind: string, id: string) => `S#${kind}#${id}`,
  /** The claim of a unique SCIM name (a User's userName folded, a Group's displayName). */
  name: (kind: string, name: string) => `N#${kind}#${encode(name)}`,
} as const;

/** Every identity `person` holds, as claims. */
export function claimsOf(person: Person): Claim[] {
  return [
    ...person.subjects.map((subject) => ({
      sk: DirectoryKeys.claim({ subject }),
      conflict: CLAIM_KINDS.s,
      value: subject,
    })),
    ...person.slack.map((slack) => ({
      sk: DirectoryKeys.claim({ slack }),
      conflict: CLAIM_KINDS.k,
      value: `${slack.team}:${slack.user}`,
    })),
    ...person.emails.map((email) => ({
      sk: DirectoryKeys.claim({ email }),
      conflict: CLAIM_KINDS.e,
      value: email,
    })),
  ];
}

/** The primary key of a directory item. */
export function keyOf(tenant: string, sk: string): Record<string, string> {
  return { [partitionKey.name]: DirectoryKeys.partition(tenant), [sortKey.name]: sk };
}

/** Reads one item, strongly consistent (a write is seen by the next read: no cache, §20). */
export function getItem(tableName: string, tenant: string, sk: string): GetCommandInput {
  return { TableName: tableName, Key: keyOf(tenant, sk), ConsistentRead: true };
}

/** The condition parts, each with the invariant it protects. */
export const DirectoryCondition = {
  /** A new person takes a free id: of two creates of one id, one wins. */
  idIsFree: 'attribute_not_exists(#pk)',
  /** A person is changed as it was read: concurrent writes of one person are linearised by `rev`. */
  isTheRevisionRead: '#rev = :rev',
  /** An identity is claimed by no one, or already by this person: of two claims of one identity, one wins. */
  claimIsFreeOrMine: 'attribute_not_exists(#pk) OR #holder = :holder',
  /** A claim left behind (its holder no longer holds it) is taken over only as it was read. */
  claimIsAsRead: '#holder = :was AND #at = :at',
  /**
   * An index item is removed only if no later write of its person wrote it again: a writer's clean-up that comes
   * late never removes what a later revision needs.
   */
  writtenBefore: '#rev < :rev',
  /** The same, for a claim: and it is still this person's. */
  mineWrittenBefore: '#holder = :holder AND #rev < :rev',
} as const;

/** Writes a person's item: a new one only if its id is free, else only over the revision read (`expected`). */
export function putPerson(
  tableName: string,
  person: Person,
  rev: number,
  expected: number | undefined,
): PutCommandInput {
  return {
    TableName: tableName,
    Item: { ...keyOf(person.tenant, DirectoryKeys.person(person.id)), person: JSON.stringify(person), rev },
    ...(expected === undefined
      ? { ConditionExpression: DirectoryCondition.idIsFree, ExpressionAttributeNames: { '#pk': partitionKey.name } }
      : {
          ConditionExpression: DirectoryCondition.isTheRevisionRead,
          ExpressionAttributeNames: { '#rev': 'rev' },
          ExpressionAttributeValues: { ':rev': expected },
        }),
  };
}

/** Removes a person's item, only at the revision read. */
export function deletePerson(tableName: string, tenant: string, id: string, expected: number): DeleteCommandInput {
  return {
    TableName: tableName,
    Key: keyOf(tenant, DirectoryKeys.person(id)),
    ConditionExpression: DirectoryCondition.isTheRevisionRead,
    ExpressionAttributeNames: { '#rev': 'rev' },
    ExpressionAttributeValues: { ':rev': expected },
  };
}

/** Claims an identity (or a SCIM name) for `holder` at `rev`, if no one else holds it. */
export function putClaim(
  tableName: string,
  tenant: string,
  sk: string,
  holder: string,
  rev: number,
  atMs: number,
): PutCommandInput {
  return {
    TableName: tableName,
    Item: { ...keyOf(tenant, sk), holder, rev, at: atMs },
    ConditionExpression: DirectoryCondition.claimIsFreeOrMine,
    ExpressionAttributeNames: { '#pk': partitionKey.name, '#holder': 'holder' },
    ExpressionAttributeValues: { ':holder': holder },
  };
}

/** Takes over a claim its holder no longer holds, only as it was read (`was`, `atMs`). */
export function takeOverClaim(
  tableName: string,
  tenant: string,
  sk: string,
  claim: { holder: string; rev: number; atMs: number },
  was: { holder: string; atMs: number },
): PutCommandInput {
  return {
    TableName: tableName,
    Item: { ...keyOf(tenant, sk), holder: claim.holder, rev: claim.rev, at: claim.atMs },
    ConditionExpression: DirectoryCondition.claimIsAsRead,
    ExpressionAttributeNames: { '#holder': 'holder', '#at': 'at' },
    ExpressionAttributeValues: { ':was': was.holder, ':at': was.atMs },
  };
}

/** Releases `holder`'s claim, unless a write after `rev` claimed it again. */
export function releaseClaim(
  tableName: string,
  tenant: string,
  sk: string,
  holder: string,
  rev: number,
): DeleteCommandInput {
  return {
    TableName: tableName,
    Key: keyOf(tenant, sk),
    ConditionExpression: DirectoryCondition.mineWrittenBefore,
    ExpressionAttributeNames: { '#holder': 'holder', '#rev': 'rev' },
    ExpressionAttributeValues: { ':holder': holder, ':rev': rev },
  };
}

/** Writes an index item (a membership, a delegation marker) at `rev`. */
export function putIndex(tableName: string, tenant: string, sk: string, rev: number): PutCommandInput {
  return { TableName: tableName, Item: { ...keyOf(tenant, sk), rev } };
}

/** Removes an index item, unless a write after `rev` wrote it again. */
export function deleteIndex(tableName: string, tenant: string, sk: string, rev: number): DeleteCommandInput {
  return {
    TableName: tableName,
    Key: keyOf(tenant, sk),
    ConditionExpression: DirectoryCondition.writtenBefore,
    ExpressionAttributeNames: { '#rev': 'rev' },
    ExpressionAttributeValues: { ':rev': rev },
  };
}

/** One page of the items of a tenant's directory whose sort key starts with `prefix`, strongly consistent. */
export function queryPrefix(
  tableName: string,
  tenant: string,
  prefix: string,
  after?: Record<string, unknown>,
): QueryCommandInput {
  return {
    TableName: tableName,
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ExpressionAttributeNames: { '#pk': partitionKey.name, '#sk': sortKey.name },
    ExpressionAttributeValues: { ':pk': DirectoryKeys.partition(tenant), ':prefix': prefix },
    ConsistentRead: true,
    ...(after === undefined ? {} : { ExclusiveStartKey: after }),
  };
}

/** Writes a SCIM resource's own fields, over the revision read (`expected`; undefined: only if it is new). */
export function putDocument(
  tableName: string,
  tenant: string,
  sk: string,
  doc: unknown,
  rev: number,
  expected: number | undefined,
): PutCommandInput {
  return {
    TableName: tableName,
    Item: { ...keyOf(tenant, sk), doc: JSON.stringify(doc), rev },
    ...(expected === undefined
      ? { ConditionExpression: DirectoryCondition.idIsFree, ExpressionAttributeNames: { '#pk': partitionKey.name } }
      : {
          ConditionExpression: DirectoryCondition.isTheRevisionRead,
          ExpressionAttributeNames: { '#rev': 'rev' },
          ExpressionAttributeValues: { ':rev': expected },
        }),
  };
}

/** Removes an item whatever it holds (a document, a SCIM name its holder gave up). */
export function deleteItem(tableName: string, tenant: string, sk: string): DeleteCommandInput {
  return { TableName: tableName, Key: keyOf(tenant, sk) };
}
