import { LIMITS } from '../vocabulary.ts';
import * as z from '../zod.ts';

/**
 * What a SCIM client sends (RFC 7643/7644, §20), each input once as a zod schema, parsed by `parseInput` (the one
 * place a failure becomes a 400 naming each bad field): a User, a Group and a PatchOp. Attributes Handback does not
 * keep pass unread (an identity provider sends many); those it keeps are bounded as a `Person`'s are.
 */

/** The schema URNs Handback serves. */
export const URN = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  enterprise: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  list: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  patch: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

const text = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
const CHARS = LIMITS.approvers.chars;

/**
 * A boolean as identity providers send it: JSON's, or Entra ID's `"True"` / `"False"` (any case), which its PATCH
 * requests carry.
 */
export const scimBoolean = z.pipe(
  z.union([z.boolean(), z.string().check(z.regex(/^(true|false)$/i, 'must be true or false'))]),
  z.transform((value: boolean | string) => (typeof value === 'boolean' ? value : value.toLowerCase() === 'true')),
);

/** A manager as the enterprise extension names one: `{value: <id>}`, or the id alone as some clients send it. */
const manager = z.union([
  z.looseObject({ value: z.optional(z.nullable(z.string().check(z.maxLength(CHARS)))) }),
  z.string().check(z.maxLength(CHARS)),
  z.null(),
]);

/** A User (RFC 7643 section 4.1) as Handback reads it. */
export const scimUser = z.looseObject({
  userName: text(CHARS),
  externalId: z.optional(z.nullable(text(CHARS))),
  displayName: z.optional(z.nullable(z.string().check(z.maxLength(LIMITS.directory.nameChars)))),
  name: z.optional(
    z.nullable(
      z.looseObject({
        formatted: z.optional(z.nullable(z.string().check(z.maxLength(LIMITS.directory.nameChars)))),
        givenName: z.optional(z.nullable(z.string().check(z.maxLength(LIMITS.directory.nameChars)))),
        familyName: z.optional(z.nullable(z.string().check(z.maxLength(LIMITS.directory.nameChars)))),
      }),
    ),
  ),
  emails: z.optional(
    z.nullable(
      z
        .array(
          z.looseObject({
            value: text(CHARS),
            type: z.optional(z.nullable(z.string().check(z.maxLength(64)))),
            primary: z.optional(z.nullable(scimBoolean)),
          }),
        )
        .check(z.maxLength(LIMITS.directory.emails)),
    ),
  ),
  active: z.optional(z.nullable(scimBoolean)),
  [URN.enterprise]: z.optional(z.nullable(z.looseObject({ manager: z.optional(manager) }))),
});
export type ScimUserInput = z.output<typeof scimUser>;

/** A Group (RFC 7643 section 4.2) as Handback reads it: its name, and its members by their ids. */
export const scimGroup = z.looseObject({
  displayName: text(CHARS),
  externalId: z.optional(z.nullable(text(CHARS))),
  members: z.optional(
    z.nullable(
      z.array(z.looseObject({ value: text(LIMITS.directory.idChars) })).check(z.maxLength(LIMITS.directory.people)),
    ),
  ),
});
export type ScimGroupInput = z.output<typeof scimGroup>;

/** One operation of a PatchOp: `add`, `remove`, `replace`, in any case (Entra ID capitalises them). */
const patchOperation = z.looseObject({
  op: z.string().check(z.regex(/^(add|remove|replace)$/i, 'must be add, remove or replace')),
  path: z.optional(z.string().check(z.minLength(1), z.maxLength(1024))),
  value: z.optional(z.unknown()),
});

/** A PatchOp (RFC 7644 section 3.5.2). */
export const scimPatchOp = z.looseObject({
  schemas: z.array(z.string()).check(z.refine((schemas) => schemas.includes(URN.patch), `must hold ${URN.patch}`)),
  Operations: z.array(patchOperation).check(z.minLength(1), z.maxLength(1000)),
});
export type ScimPatchInput = z.output<typeof scimPatchOp>;
