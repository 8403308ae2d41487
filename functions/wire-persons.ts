import { emailAddress, foldEmail, personId, principalGroups, tenant } from './fields.ts';
import { LIMITS } from './vocabulary.ts';
import * as z from './zod.ts';

/**
 * The persons a deployment knows (§20), as JSON: a person, a delegation, a Slack user, a directory file's entry and
 * the file itself. The directory's layer (`functions/directory/`) reads and checks them; `wire.ts` shows them.
 */

/** A moment, as an RFC 3339 date-time with its offset (`2025-07-01T09:00:00Z`). */
const instant = z.defer(() => z.iso.datetime({ offset: true }));

/** When a delegation begins (§20); absent: at once. Shared by the directory's entry and a person's `PUT`. */
export const delegationFrom = z.defer(() => z.optional(instant.check(z.describe('When it begins; absent: at once.'))));
/** Why a delegation is given (§20), shown to those it concerns. */
export const delegationReason = z.defer(() =>
  z.optional(
    z
      .string()
      .check(z.minLength(1), z.maxLength(LIMITS.directory.reasonChars), z.describe('Why, shown to those it concerns.')),
  ),
);
/** Whether a delegation begins (when it says) before it ends. */
export function beginsBeforeItEnds(given: { from?: string | undefined; until: string }): boolean {
  return given.from === undefined || Date.parse(given.from) < Date.parse(given.until);
}

/**
 * A delegation (§20): a person hands their approvals to another person (`to`, a person's id) from `from` (absent: at
 * once) until `until`, for a `reason` shown to those who see it.
 */
export const delegation = z.defer(() =>
  z
    .strictObject({
      to: personId.check(z.describe("The delegate: a person's id.")),
      from: delegationFrom,
      until: instant.check(z.describe('When it ends.')),
      reason: delegationReason,
    })
    .check(z.refine(beginsBeforeItEnds, 'must begin (from) before it ends (until)')),
);
export type Delegation = z.output<typeof delegation>;

/** A Slack user (§14): the workspace's team id and the user's id, as Slack's payloads name them. */
export const slackUser = z.defer(() =>
  z.strictObject({
    team: z.string().check(z.regex(/^[A-Z0-9]{1,32}$/, 'must be a Slack team id such as T0123ABCD')),
    user: z.string().check(z.regex(/^[A-Z0-9]{1,32}$/, 'must be a Slack user id such as U0123ABCD')),
  }),
);
export type SlackUser = z.output<typeof slackUser>;

/** A person's issuer subject (a token's `sub`): the characters of a principal's subject. */
const personSubject = z.defer(() => z.string().check(z.minLength(1), z.maxLength(LIMITS.approvers.chars)));

/** A list of at most `max` entries of which no two are the same once `key` folds them. */
const distinctList = <T>(entry: z.ZodMiniType<T>, max: number, key: (value: T) => string, what: string) =>
  z.array(entry).check(
    z.maxLength(max),
    z.superRefine((values, ctx) => {
      const seen = new Set<string>();
      values.forEach((value, index) => {
        const folded = key(value);
        if (seen.has(folded))
          ctx.addIssue({ code: 'custom', message: `names ${what} twice`, path: [index], input: value });
        seen.add(folded);
      });
    }),
  );

/** The fields of a person, each as a directory's source gives it. */
const personFields = z.fields(() => ({
  id: personId,
  /** The name people see. */
  name: z.string().check(z.minLength(1), z.maxLength(LIMITS.directory.nameChars)),
  /** Addresses the directory's source verified; each resolves to this person, with ASCII case folding (§16). */
  emails: distinctList(emailAddress, LIMITS.directory.emails, foldEmail, 'an email'),
  /** Issuer subjects (a token's `sub`) that are this person. */
  subjects: distinctList(personSubject, LIMITS.directory.subjects, (subject) => subject, 'a subject'),
  /** Slack users that are this person. */
  slack: distinctList(slackUser, LIMITS.directory.slack, ({ team, user }) => `${team}:${user}`, 'a Slack user'),
  /** The person's groups: for approvers and policies, they replace a token's (§20). */
  groups: principalGroups,
  /** Another person's id. */
  manager: z.optional(personId),
  /** A person who is not active decides nothing (§20). */
  active: z.boolean(),
  delegation: z.optional(delegation),
  tenant,
}));

/** What a person may not say of themselves: to be their own manager or delegate. */
const notThemselves = z.refine<{ id: string; manager?: string | undefined; delegation?: { to: string } | undefined }>(
  (given) => given.manager !== given.id && given.delegation?.to !== given.id,
  'names themselves as their own manager or delegate',
);

/**
 * A person known to a directory (§20): who they are (`id`, `name`), every identity that is them — the emails its
 * source verified, issuer subjects, Slack users — their groups, manager, whether they are active, and a delegation.
 * Every principal resolves to at most one person of its tenant; `person:<id>` is then its identity key.
 */
export const person = z.defer(() => z.strictObject(personFields()).check(notThemselves));
export type Person = z.output<typeof person>;

/**
 * A person as a directory file names them (`HANDBACK_DIRECTORY`, §20): a `Person` whose lists may be left out (none),
 * `active` too (true), and `tenant` (the default tenant); a delegation's `to` may name the delegate by an email of
 * theirs (written as an id is), which the file's reader resolves to their id.
 */
export const directoryEntry = z.defer(() =>
  z
    .strictObject({
      ...personFields(),
      emails: z._default(personFields().emails, []),
      subjects: z._default(personFields().subjects, []),
      slack: z._default(personFields().slack, []),
      groups: z._default(personFields().groups, []),
      active: z._default(z.boolean(), true),
      tenant: z._default(tenant, LIMITS.defaultTenant),
    })
    .check(notThemselves),
);
export type DirectoryEntry = z.output<typeof directoryEntry>;

/** A directory file (`HANDBACK_DIRECTORY`, context `handback:directory`): `{"people": [...]}`. */
export const directoryFile = z.defer(() =>
  z.strictObject({
    people: z.array(directoryEntry).check(z.maxLength(LIMITS.directory.people)),
  }),
);
export type DirectoryFile = z.output<typeof directoryFile>;

// §20 delegation: a person as `GET /people/me` shows them.
/** A delegation as shown (§20): its delegate by id and by name, when it begins and ends, and why. */
export const delegationView = z.defer(() =>
  z.object({
    to: personId.check(z.describe("The delegate's id.")),
    toName: z.optional(z.string().check(z.describe("The delegate's name, as the directory has it now."))),
    from: z.optional(z.string().check(z.describe('When it begins; absent: at once.'))),
    until: z.string().check(z.describe('When it ends.')),
    reason: z.optional(z.string()),
    holds: z.boolean().check(z.describe('Whether it is in force now (begun and not ended).')),
  }),
);
export type DelegationView = z.output<typeof delegationView>;
/** The caller's person as the directory has them (§20: `GET /people/me`). */
export const personView = z.defer(() =>
  z.object({
    id: personId,
    name: z.string(),
    emails: z.array(z.string()),
    groups: z.array(z.string()),
    manager: z.optional(personId.check(z.describe("The manager's id."))),
    delegation: z.optional(delegationView.check(z.describe('Their approvals handed to another person.'))),
    delegators: z.optional(
      z
        .array(z.object({ id: personId, name: z.string(), until: z.string() }))
        .check(z.describe('The persons whose delegation to them holds now: they may decide for them until then.')),
    ),
  }),
);
export type PersonView = z.output<typeof personView>;
