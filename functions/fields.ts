import { foldEmail } from './emails.ts';
import { isPlainObject, jsonBytes, jsonProblem, utf8Bytes } from './json.ts';
import {
  CHANNEL_NAMES,
  type ChannelName,
  FORMAT_NAMES,
  LIMITS,
  PRINCIPAL_KINDS,
  TRACEPARENT_PATTERN,
  VIAS,
} from './vocabulary.ts';
import * as z from './zod.ts';

/**
 * The fields a caller sends as part of anything (§5, §9, §13, §14, §16): a format, a principal, approvers, a `notify`
 * entry, an answer, a decision — each one zod schema with every bound, so that the pause body over HTTP, the store's
 * inputs (`inputs.ts`) and the views that show them back (`wire.ts`) hold them to the same words. A leaf of the words
 * layer: it imports the vocabulary, `json.ts` and zod, and uses no Node or DOM type.
 */

/** A message format's name (§2). */
export const format = z.defer(() =>
  z.enum(FORMAT_NAMES).check(z.meta({ description: 'One of the seven message formats (§2).' })),
);

/**
 * What an input's failure is when it is not a 400 `bad_request`: a value over its size limit (413), or an answer or
 * edit that is not what its ask can take (422). A check says it in its issue's `params`; `inputs.ts` throws the error
 * of each.
 */
export type InputProblem = 'payload_too_large' | 'invalid_answer';
/** The `params` of an issue that is `problem`. */
const problemIs = (problem: InputProblem) => ({ problem });

/** A JSON object, checked and not rebuilt: a rebuilt record would lose an own "__proto__" key, which JSON may carry. */
export const jsonObject = z.defer(() =>
  z.custom<Record<string, unknown>>(isPlainObject, 'must be a JSON object').check(z.meta({ type: 'object' })),
);

/** A JSON Schema (2020-12) document: an object or a boolean. */
export type JsonSchema = Record<string, unknown> | boolean;
export const jsonSchema = z.defer(() =>
  z.union([jsonObject, z.boolean()]).check(z.meta({ description: 'A JSON Schema 2020-12 document.' })),
);

/**
 * A JSON value of at most `maxBytes` as JSON text (UTF-8), nesting at most `LIMITS.bodyDepth` levels: an answer, a
 * person's edited arguments. Missing, or nested deeper than a request body may be, is a 400; a value JSON cannot carry
 * is what its ask cannot take (422, naming where in it); over the size, 413. Checked in one walk, without recursion.
 */
function jsonValue<T>(what: string, maxBytes: number, base: z.ZodMiniType<T> = z.unknown() as z.ZodMiniType<T>) {
  return base.check(
    z.superRefine((value, ctx) => {
      if (value === undefined) {
        ctx.addIssue({ code: 'custom', message: 'is required', input: value });
        return;
      }
      const problem = jsonProblem(value);
      if (problem !== undefined) {
        const path = problem.path.split('/').slice(1);
        // Nested deeper than any request body may be: a 400, as the HTTP edge answers such a body.
        if (problem.tooDeep) {
          ctx.addIssue({ code: 'custom', message: problem.message, path, input: value });
          return;
        }
        const message = `${what} is not a JSON value: ${problem.path || '/'} ${problem.message}`;
        ctx.addIssue({ code: 'custom', message, path, input: value, params: problemIs('invalid_answer') });
        return;
      }
      const bytes = jsonBytes(value) ?? 0;
      if (bytes > maxBytes) {
        const message = `${what} is ${bytes} bytes as JSON, over the limit of ${maxBytes}`;
        ctx.addIssue({ code: 'custom', message, input: value, params: problemIs('payload_too_large') });
      }
    }),
  );
}

/** One reason a value was refused: where in it (a JSON pointer) and why. */
export interface AnswerFailure {
  path: string;
  message: string;
}

/**
 * An email address Handback sends to or matches (a link's recipient, a `notify` entry): one `@`, no spaces, angle
 * brackets, quotes, commas or semicolons (what SMTP and SES take as a recipient), a dotted domain; at most
 * `LIMITS.emailChars` (RFC 5321's path).
 */
const EMAIL_ADDRESS = /^[^\s@<>()",;]{1,64}@[^\s@<>()",;.]+(\.[^\s@<>()",;.]+)*\.[^\s@<>()",;.]{2,}$/;
/** Whether `value` is an email address Handback sends to (`emailAddress`). */
export function isEmailAddress(value: unknown): value is string {
  return typeof value === 'string' && value.length <= LIMITS.emailChars && EMAIL_ADDRESS.test(value);
}
/** An email address as a field (`isEmailAddress`). */
export const emailAddress = z.defer(() =>
  z
    .string()
    .check(
      z.refine(isEmailAddress, `must be an email address of at most ${LIMITS.emailChars} characters`),
      z.meta({ format: 'email', maxLength: LIMITS.emailChars }),
    ),
);

/** A Slack conversation id: a public or private channel (`C…`, `G…`) or a direct message (`D…`). */
const SLACK_CHANNEL_ID = /^[CGD][A-Z0-9]{8,}$/;

/** What a channel's `to` is (§14): each channel's own, so a new channel cannot be checked as another's by default. */
export interface ChannelAddress {
  /** Its schema: the check of `to`, and the words of its failure. */
  to: z.ZodMiniType<string>;
  /** `to` as the delivery log names it and a pause's entries are compared: `<channel>:<key>`. */
  key(to: string): string;
  /**
   * Whether an agent's pause may name `to` only inside the deployment's recipient domains (§16): an address that
   * reaches whomever it names (an email), not a place the deployment set up (a Slack channel its app was invited to).
   */
  heldToDomains: boolean;
}

/** Each channel's addresses. */
export const CHANNEL_ADDRESSES: Record<ChannelName, ChannelAddress> = {
  slack: {
    to: z.defer(() => z.string().check(z.regex(SLACK_CHANNEL_ID, 'must be a Slack channel id such as C0123456789'))),
    key: (to) => to,
    heldToDomains: false,
  },
  email: { to: emailAddress, key: (to) => to.toLowerCase(), heldToDomains: true },
};

/** A tenant: 1 to `LIMITS.tenantChars` characters of well-formed Unicode (a lone surrogate can be in no key). */
export const tenant = z.defer(() =>
  z
    .string()
    .check(z.minLength(1), z.maxLength(LIMITS.tenantChars), z.refine(isWellFormed, 'must be well-formed Unicode')),
);

/** Whether `text` has no lone surrogate, which no key could carry. */
function isWellFormed(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

export { foldEmail };

/** A person's id in a directory (§20): 1 to `LIMITS.directory.idChars` visible ASCII characters (a file's, or SCIM's). */
export const personId = z.defer(() =>
  z
    .string()
    .check(
      z.regex(
        new RegExp(`^[\\x21-\\x7e]{1,${LIMITS.directory.idChars}}$`),
        `must be 1–${LIMITS.directory.idChars} visible ASCII characters`,
      ),
    ),
);

/** Characters of a principal's text fields (its subject, email, name, grantor). */
const principalText = z.defer(() => z.string().check(z.minLength(1), z.maxLength(LIMITS.approvers.chars)));

/** Whom a link was made for: an email address, and a name to show. */
export const linkRecipient = z.defer(() =>
  z.object({
    email: emailAddress.check(z.describe("The recipient's address.")),
    name: z.optional(
      z.string().check(z.minLength(1), z.maxLength(LIMITS.recipientChars), z.describe('A name to show.')),
    ),
  }),
);
export type LinkRecipient = z.output<typeof linkRecipient>;

/**
 * The groups a principal brings (a token's groups claim, a trigger's `by.groups`): matched against approvers and
 * policies, and recorded with the principal as they were then (§19).
 */
export const principalGroups = z.defer(() =>
  z.array(z.string().check(z.maxLength(LIMITS.approvers.chars))).check(z.maxLength(LIMITS.principalGroups)),
);

/**
 * Who made a pause, a decision, a vote or a cancel, as recorded with it: `{kind, subject, email?, name?, via}`. From a
 * bearer JWT, `subject` is `sub`; a link's is `email:<address>` or `link:<interruptId>`; a trigger's without `by` is
 * `service:<trigger>`; the sweep's `service:sweep`; the library's default `library`.
 */
const principalFields = z.fields(() => ({
  kind: z.enum(PRINCIPAL_KINDS),
  subject: principalText,
  email: z.optional(principalText),
  name: z.optional(principalText),
  via: z.enum(VIAS),
  /**
   * The `email` is verified (§16): it came from a token's `email_verified`, the stack's own Cognito pool, Slack's
   * `users.info`, or a link Handback delivered to that address. Only then does the email match approvers' `emails`
   * and join the principal's identity (`email:<address>`); otherwise it is shown and nothing more.
   */
  emailVerified: z.optional(z.literal(true)),
  /**
   * On a link a person granted (§16: `POST …/links`, answered with the URL): whom they gave it to. A label: it matches
   * no approver and joins no identity; the decision is the grantor's.
   */
  for: z.optional(linkRecipient),
  /**
   * Part three's links for a recipient: the subject of the person who made it. Read on decisions recorded then, so
   * they still count as that person's; §16's granted links record the grantor as the principal itself.
   */
  grantedBy: z.optional(principalText),
  // §19
  /** The groups it had when it paused, decided or voted (§19): what an auditor asks ("were they in finance?"). */
  groups: z.optional(principalGroups),
  /** A policy's decision (`via: "policy"`): the version of the policy set that decided (§19). */
  policyVersion: z.optional(principalText),
  /**
   * The directory's person the principal was when it acted (§20): `person:<id>` is then its identity key. Set by the
   * store from the directory, never taken from a caller.
   */
  person: z.optional(personId),
}));
export const principal = z.defer(() =>
  z.object({
    ...principalFields(),
    /**
     * An agent acting for a person (§20: a token with RFC 8693's `act` claim): the person its `sub` names. Four eyes
     * refuses them as it refuses the pauser; policies see them as `context.onBehalfOf`.
     */
    onBehalfOf: z.optional(z.object(principalFields())),
  }),
);
export type Principal = z.output<typeof principal>;

/** A principal as a request brings it: what is recorded, its groups as its token names them. */
export interface Actor extends Omit<Principal, 'groups'> {
  groups?: readonly string[];
  /**
   * What the deployment's directory says of this principal (§20), set by the store when it resolves one (never read
   * from a caller, never recorded); absent without a directory.
   */
  directory?: Resolution;
}

/** A person as the rules match them (§20): the fields of a directory's `Person` they read. */
export interface KnownPerson {
  id: string;
  name: string;
  emails: readonly string[];
  subjects: readonly string[];
  slack: ReadonlyArray<{ team: string; user: string }>;
  groups: readonly string[];
  active: boolean;
}

/** What the directory says of a principal (§20). */
export interface Resolution {
  /** The person it resolved to; absent: the directory knows no one it could be (an unknown person). */
  person?: KnownPerson;
  /** The active persons whose delegation to this one holds now, by id; none for an unknown or inactive person. */
  delegators: readonly KnownPerson[];
}
/** `Actor`'s schema (typed so that a read-only list of groups may be given). */
export const actor = principal as unknown as z.ZodMiniType<Actor, Actor>;

/** One list of approvers: at most `LIMITS.approvers.entries` entries of 1 to `LIMITS.approvers.chars` characters. */
const approverList = (description: string) =>
  z.optional(
    z
      .array(z.string().check(z.minLength(1), z.maxLength(LIMITS.approvers.chars)))
      .check(z.maxLength(LIMITS.approvers.entries), z.describe(description)),
  );
/** Who may decide an ask: any principal matching any entry (emails compare case-insensitively). */
export const approvers = z.defer(() =>
  z
    .strictObject({
      subjects: approverList("Principals' subjects (a token's `sub`)."),
      emails: approverList('Verified email addresses, compared case-insensitively (§16).'),
      groups: approverList("Groups a principal's token names."),
    })
    .check(
      z.meta({ description: 'Who may decide an ask (§13): any principal matching any entry.' }),
      z.refine(
        (named) => [named.subjects, named.emails, named.groups].some((list) => (list?.length ?? 0) > 0),
        'must name at least one subject, email or group',
      ),
    ),
);
export type Approvers = z.output<typeof approvers>;

/** Whom a pause tells (§14): a channel and its address there, checked as that channel's (`CHANNEL_ADDRESSES`). */
export const notifyEntry = z.defer(() =>
  z.discriminatedUnion(
    'channel',
    CHANNEL_NAMES.map((channel) =>
      z.object({
        channel: z.literal(channel).check(z.describe('The channel that tells.')),
        to: CHANNEL_ADDRESSES[channel].to.check(
          z.describe('Its address there: a Slack channel id, or an email address.'),
        ),
      }),
    ) as [z.ZodMiniObject<{ channel: z.ZodMiniLiteral<ChannelName>; to: z.ZodMiniType<string> }>],
    {
      error: (issue) =>
        issue.code === 'invalid_union' ? `must name a channel: ${CHANNEL_NAMES.join(', ')}` : undefined,
    },
  ),
);
/** A `notify` entry, its address checked as its channel's. */
export type NotifyEntry = { channel: ChannelName; to: string };

/** An entry as one string, `<channel>:<to>` (an email address in lower case): how duplicates and deliveries are named. */
export function notifyEntryKey(entry: NotifyEntry): string {
  return `${entry.channel}:${CHANNEL_ADDRESSES[entry.channel].key(entry.to)}`;
}

/** A pause's `notify` (§14): at most `LIMITS.notifyEntries` entries, none named twice. */
export const notifyList = z.defer(() =>
  z.array(notifyEntry).check(
    z.maxLength(LIMITS.notifyEntries),
    z.meta({ description: "Whom to tell, and where (§14); without it, the deployment's defaults." }),
    z.superRefine((entries, ctx) => {
      const seen = new Set<string>();
      entries.forEach((entry, index) => {
        const key = notifyEntryKey(entry);
        if (seen.has(key))
          ctx.addIssue({ code: 'custom', message: `${key} is named twice`, path: [index], input: entry });
        seen.add(key);
      });
    }),
  ),
);

// §21 traces
/**
 * The W3C `traceparent` a pause joins (§21), as version `00`; undefined for anything that is not one (a version `00`
 * with more fields, a later version's extra fields dropped). A malformed one is ignored, never refused: Trace
 * Context says a receiver starts afresh when it cannot read the header, and no pause fails for its trace.
 */
export function traceparentOf(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > LIMITS.traceparentChars) return undefined;
  const match = TRACEPARENT_PATTERN.exec(value);
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === '00' && rest !== undefined) return undefined;
  return `00-${traceId}-${spanId}-${flags}`;
}

/** A pause's `traceparent` (§21): text, and a malformed one (or anything else) is read as none (`traceparentOf`). */
export const traceparent = z.defer(() =>
  z.catch(
    z.pipe(
      z.string(),
      z.transform((value) => traceparentOf(value)),
    ),
    undefined,
  ),
);

/** The ask a decision settles: a reserved call of the paused round. */
export const decidedCall = z.fields(() => ({
  toolCallId: z.string().check(z.minLength(1), z.describe('The ask it settles.')),
}));
/** The ask's `argsHash` as the person saw it (§16): an approve or edit of other arguments is `args_changed`. */
export const seen = z.fields(() => ({
  argsHash: z.optional(
    z
      .string()
      .check(
        z.minLength(1),
        z.maxLength(LIMITS.argsHashChars),
        z.describe("The ask's argsHash as shown (§16): an approve or edit of other arguments is 409 args_changed."),
      ),
  ),
}));
// §20 delegation
/**
 * Whom a decision is for (§20): a delegate names the person who handed them their approvals, or themselves; absent, a
 * delegate who may decide in their own right decides for themselves, else for the first delegator who may.
 */
export const voice = z.fields(() => ({
  for: z.optional(
    personId.check(
      z.describe(
        'Whom the decision is for (§20): the id of a person whose delegation to you holds, or your own; absent: yourself where you may decide, else the person who delegated to you.',
      ),
    ),
  ),
}));
/** An answer: any JSON value (a string is the call's result as it is), at most `LIMITS.answerBytes`. */
export const answer = z.defer(() => jsonValue('the answer', LIMITS.answerBytes));
/** A rejection's or a cancel's reason: text of at most `LIMITS.reasonBytes`. */
export const reason = z.defer(() =>
  z.string().check(
    z.superRefine((text, ctx) => {
      const bytes = utf8Bytes(text);
      if (bytes <= LIMITS.reasonBytes) return;
      ctx.addIssue({
        code: 'custom',
        message: `is ${bytes} bytes, over the limit of ${LIMITS.reasonBytes}`,
        input: text,
      });
    }),
    z.meta({ description: `At most ${LIMITS.reasonBytes} bytes (UTF-8).` }),
  ),
);
/**
 * A person's edited arguments (§9): a JSON object of at most `LIMITS.answerBytes`. Arguments that are not an object
 * are what the ask cannot take (422), not a malformed request; missing is `jsonValue`'s to say (400).
 */
export const editedArgs = z.defer(() =>
  jsonValue(
    'the edited args',
    LIMITS.answerBytes,
    z
      .custom<Record<string, unknown>>((value) => value === undefined || isPlainObject(value), {
        error: 'the edited args must be a JSON object of the call’s arguments',
        params: problemIs('invalid_answer'),
      })
      .check(z.meta({ type: 'object' })),
  ),
);

/** One of the agent's own tool results (`appendResults`): the call it answers, its output, whether the tool failed. */
export const toolResult = z.defer(() =>
  z.object({
    toolCallId: z.string(),
    /** A string is the result's text verbatim; any other JSON value its JSON text (the format's rules say which it takes). */
    output: z.unknown(),
    /** Marks the result as a failure where the format can say so (§3.8); an answer-like result otherwise. */
    isError: z.optional(z.boolean()),
  }),
);
export type ToolResult = z.output<typeof toolResult>;

/** The agent's results for one round: one per call at most. */
export const toolResults = z.defer(() =>
  z.array(toolResult).check(
    z.superRefine((results, ctx) => {
      const seen = new Set<string>();
      results.forEach((result, index) => {
        if (seen.has(result.toolCallId)) {
          const message = `a second result for ${JSON.stringify(result.toolCallId)}`;
          ctx.addIssue({ code: 'custom', message, path: [index, 'toolCallId'], input: result });
        }
        seen.add(result.toolCallId);
      });
    }),
  ),
);
