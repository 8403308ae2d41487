import {
  AlreadyDecidedError,
  AlreadyVotedError,
  type AnswerFailure,
  ArgsChangedError,
  BadRequestError,
  ForbiddenError,
  type HandbackError,
  NotAnApproverError,
  PauseCancelledError,
  PauseExpiredError,
  RecipientNotAllowedError,
  SelfDecisionError,
  UnsupportedRecordError,
} from '../errors.ts';
import { recipientDomains as RECIPIENT_DOMAINS } from '../settings.ts';
import { type DecisionKind, isOneOf, LIMITS, PRINCIPAL_KINDS, Status, VIAS, type Via } from '../vocabulary.ts';
import type { Actor, Approvers, Decision, NotifyEntry, Principal, RefusalCode, Tally } from '../wire.ts';
import { canonicalJson, sha256 } from './codec.ts';
import { capitalize, isPlainObject } from './json.ts';
import { CHANNEL_ADDRESSES } from './notify.ts';
import { type Ask, interruptIdOf, type PauseRecord, type RecordedVote } from './record.ts';

/**
 * Who may decide (§13, §16), pure and in one place: every entry point — HTTP, links, Slack, the triggers, the library —
 * reaches these through the store, so a rule holds whichever way a decision arrives. Whether two principals are the
 * same person is decided by one function, `samePerson`, which four eyes, quorum, replays and refusals all call.
 * Refusals are decided before any write: a request with one refused decision records none.
 */

/** The library's principal when a caller names none. */
export const LIBRARY_PRINCIPAL: Principal = { kind: 'service', subject: 'library', via: 'library' };

/** The sweep's principal: an expiry that acts records it as the decision of each ask it rejects (§13). */
export const SWEEP_PRINCIPAL: Principal = { kind: 'service', subject: 'service:sweep', via: 'sweep' };

/** Every request with auth off: one person, without an identity to match approvers against (§13). */
export const ANONYMOUS_PRINCIPAL: Principal = { kind: 'person', subject: 'anonymous', via: 'api' };

/** The principal as recorded: without its groups (matched, never stored), and without empty optional fields. */
export function recorded(actor: Actor): Principal {
  const principal: Principal = { kind: actor.kind, subject: actor.subject, via: actor.via };
  if (actor.email !== undefined) principal.email = actor.email;
  if (actor.emailVerified === true && actor.email !== undefined) principal.emailVerified = true;
  if (actor.name !== undefined) principal.name = actor.name;
  if (actor.for !== undefined) principal.for = actor.for;
  if (actor.grantedBy !== undefined) principal.grantedBy = actor.grantedBy;
  return principal;
}

// -------------------------------------------------------------------------------------------------------------------
// The same person (§16)

/**
 * An email with ASCII case folding only (`A`–`Z` to `a`–`z`): every other character must be equal, so no look-alike
 * or compatibility character (the Kelvin sign, a dotless i) ever matches a letter it is not.
 */
export function foldEmail(email: string): string {
  return email.replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) + 32));
}

/** What a principal's identity keys are read from. */
export type Identity = Pick<Principal, 'kind' | 'subject' | 'via' | 'email' | 'emailVerified' | 'grantedBy'>;

/**
 * A principal's identity keys (§16): `slack:<team>:<user>` for a Slack user, `email:<address>` for a link Handback
 * delivered (and for every verified email), `link:<interruptId>` for a pause's unattributed link, the subject of a
 * service, and `sub:<subject>` for everyone else (a token's `sub`, a trigger's or the library's `by`, a granted link's
 * grantor). Part three's recipient links recorded `grantedBy`: theirs count as that person's too.
 */
export function identityKeys(principal: Identity): string[] {
  const keys = [subjectKey(principal)];
  if (principal.emailVerified === true && principal.email !== undefined) {
    const key = `email:${foldEmail(principal.email)}`;
    if (!keys.includes(key)) keys.push(key);
  }
  if (principal.grantedBy !== undefined) keys.push(`sub:${principal.grantedBy}`);
  return keys;
}

/**
 * Whether a door's people carry subjects of its own, which name their namespace (Slack's `slack:<team>:<user>`), or
 * an issuer's (a token's `sub`, a trigger's or the library's `by`), keyed `sub:<subject>`.
 */
const OWN_SUBJECTS: Record<Via, boolean> = {
  api: false,
  link: false,
  slack: true,
  'step-functions': false,
  sqs: false,
  eventbridge: false,
  sweep: false,
  library: false,
  policy: false,
};

function subjectKey({ kind, subject, via }: Identity): string {
  if (kind === 'link') return subject.startsWith('email:') ? `email:${foldEmail(subject.slice(6))}` : subject;
  if (kind === 'service' || OWN_SUBJECTS[via]) return subject;
  return `sub:${subject}`;
}

/** Whether two principals are the same person (§16): they share an identity key. The one place this is decided. */
export function samePerson(a: Identity, b: Identity): boolean {
  const mine = identityKeys(a);
  return identityKeys(b).some((key) => mine.includes(key));
}

/** Whether two principals came through the same door as the same principal: then the same vote again is a replay. */
function sameDoor(a: Identity, b: Identity): boolean {
  return a.kind === b.kind && a.via === b.via && a.subject === b.subject;
}

/** Whether `principal` is the library's default one. */
export function isLibrary(principal: Principal): boolean {
  return (
    principal.kind === LIBRARY_PRINCIPAL.kind &&
    principal.subject === LIBRARY_PRINCIPAL.subject &&
    principal.via === LIBRARY_PRINCIPAL.via &&
    principal.email === undefined &&
    principal.name === undefined &&
    principal.grantedBy === undefined &&
    principal.for === undefined
  );
}

/** Whether `actor` is the anonymous principal of a service without auth. */
export function isAnonymous(actor: Pick<Principal, 'kind' | 'subject'>): boolean {
  return actor.kind === ANONYMOUS_PRINCIPAL.kind && actor.subject === ANONYMOUS_PRINCIPAL.subject;
}

/** Whether `actor` decides through a pause's unattributed link (the lifecycle events' `answerUrl`): no one it proves. */
function isUnattributedLink(actor: Pick<Principal, 'kind' | 'subject'>): boolean {
  return actor.kind === 'link' && actor.subject.startsWith('link:');
}

/**
 * Whether `actor` matches an ask's approvers (§13, §16): a person by subject, verified email (ASCII case folding) or
 * group; a link Handback delivered by its address; a service, an agent or an unattributed link never (a trigger that
 * wants to decide such an ask names `by`). An email that is not verified matches nothing.
 */
export function matchesApprovers(approvers: Approvers, actor: Actor): boolean {
  if (actor.kind === 'service' || actor.kind === 'agent') return false;
  const email = actor.emailVerified === true && actor.email !== undefined ? foldEmail(actor.email) : undefined;
  if (email !== undefined && approvers.emails?.some((entry) => foldEmail(entry) === email)) return true;
  if (actor.kind === 'link') return false;
  if (approvers.subjects?.includes(actor.subject)) return true;
  const groups = new Set(actor.groups ?? []);
  return approvers.groups?.some((group) => groups.has(group)) ?? false;
}

// -------------------------------------------------------------------------------------------------------------------
// Arguments (§16)

/** The hash of a set of arguments, as views show it (`argsHash`): SHA-256 of their canonical JSON, base64url. */
export function argsHashOf(args: unknown): string {
  return sha256(canonicalJson(args ?? null));
}

/**
 * The hash of an ask's own (the model's) arguments: recorded at pause time; on records from before, from the ask's
 * args, or from `args` (the transcript's) when the record left them out. Undefined when neither is at hand.
 */
export function modelArgsHash(ask: Ask, args?: { args: unknown }): string | undefined {
  if (ask.argsHash !== undefined) return ask.argsHash;
  if (!ask.argsOmitted) return argsHashOf(ask.args);
  return args === undefined ? undefined : argsHashOf(args.args);
}

/** Part three's votes for the model's own arguments recorded this instead of their hash. */
const MODEL_ARGS = 'model';

/**
 * The model-argument hash of each ask of `record`, in ask order; `calls` (the transcript's round, by call id) fills in
 * what an older record left out. Where neither has them, part three's word for them stands in: it compares equal to
 * itself, so the votes still count right, and views show no `argsHash` for it.
 */
export function modelHashes(record: PauseRecord, calls?: ReadonlyMap<string, { args: unknown }>): string[] {
  return record.asks.map((ask) => modelArgsHash(ask, calls?.get(ask.toolCallId)) ?? MODEL_ARGS);
}

/** Whether `modelHashes` could not hash every ask's arguments without the transcript's round. */
export function needsCalls(record: PauseRecord): boolean {
  return record.asks.some((ask) => modelArgsHash(ask) === undefined);
}

/** Whether `hash` is a real arguments hash a person can send back (not part three's stand-in). */
export function isArgsHash(hash: string): boolean {
  return hash !== MODEL_ARGS;
}

/**
 * What each decision kind is as a vote on an ask with a quorum (§13, §16): it `approves` the current arguments (an
 * approve), `sets` the arguments and approves them (an edit), or `vetoes` the ask whatever its arguments (a reject).
 */
export const VOTES: Record<DecisionKind, 'approves' | 'sets' | 'vetoes'> = {
  approve: 'approves',
  edit: 'sets',
  reject: 'vetoes',
};

/** The arguments a vote is for, as a hash comparable to `argsHashOf`. */
function voteArgs(vote: RecordedVote, modelHash: string): string {
  return vote.argsHash === MODEL_ARGS ? modelHash : vote.argsHash;
}

/** The hash of an ask's current arguments: the newest edit's, else the model's own (`modelHash`). */
export function currentArgsHash(votes: readonly RecordedVote[] | undefined, modelHash: string): string {
  for (let index = (votes?.length ?? 0) - 1; index >= 0; index--) {
    const vote = votes?.[index] as RecordedVote;
    if (VOTES[vote.body.decision] === 'sets') return voteArgs(vote, modelHash);
  }
  return modelHash;
}

/**
 * The distinct persons whose votes count for the current arguments (§13, §16): approvals and edits of the arguments
 * the ask has now — an edit back to earlier arguments counts the earlier votes for them again — one per person.
 */
export function countingVoters(votes: readonly RecordedVote[], modelHash: string): Principal[] {
  const current = currentArgsHash(votes, modelHash);
  const voters: Principal[] = [];
  for (const vote of votes) {
    if (VOTES[vote.body.decision] === 'vetoes' || voteArgs(vote, modelHash) !== current) continue;
    if (voters.some((voter) => samePerson(voter, vote.by))) continue;
    voters.push(vote.by);
  }
  return voters;
}

/** The approvals an ask needs: its `approvals`, else one. */
export function approvalsNeeded(ask: Pick<Ask, 'kind' | 'approvals'>): number {
  return ask.kind === 'approval' ? (ask.approvals ?? LIMITS.approvals.default) : 1;
}

/** An ask's tally (§16): the approvals counting for its current arguments, and how many it needs. */
export function tallyOf(record: PauseRecord, index: number, modelHash: string): Tally {
  const ask = record.asks[index] as Ask;
  const need = approvalsNeeded(ask);
  const votes = record.votes?.[index];
  if (votes !== undefined && votes.length > 0) return { have: countingVoters(votes, modelHash).length, need };
  const decided = record.decisions[index]?.body;
  const approving = decided !== undefined && !('decision' in decided && VOTES[decided.decision] === 'vetoes');
  return { have: approving ? 1 : 0, need };
}

// -------------------------------------------------------------------------------------------------------------------
// Refusals (§13, §16): each decided here, in the order a decision meets them

/**
 * Whether `actor` may decide `ask` at all, as the error to throw, or undefined when it may: an agent never decides;
 * four eyes (the pause's, or a policy's on the ask) keep anyone who is the same person as the pauser away, and an
 * unattributed link, which proves no one; approvers name who may; a quorum takes people, never an unattributed link.
 * Four eyes come first: a pauser who is not an approver is told `self_decision`.
 */
export function authorityRefusal(record: PauseRecord, ask: Ask, actor: Actor): HandbackError | undefined {
  const ids = [record.runId, interruptIdOf(record), ask.toolCallId] as const;
  if (actor.kind === 'agent') {
    return new ForbiddenError(
      `An agent's credential never decides (§13): the ask ${ask.toolCallId} needs a person with the handback/decide scope.`,
      { scope: 'handback/decide' },
    );
  }
  const fourEyes = record.fourEyes === true || ask.fourEyes === true;
  if (fourEyes && (samePerson(actor, record.pausedBy) || isUnattributedLink(actor))) {
    return new SelfDecisionError(...ids);
  }
  if (ask.approvers !== undefined && !matchesApprovers(ask.approvers, actor)) {
    return new NotAnApproverError(...ids, `its approvers are ${describeApprovers(ask.approvers)}`);
  }
  // A quorum counts distinct persons (§16): a link that proves no one cannot be one of them.
  if (isUnattributedLink(actor) && approvalsNeeded(ask) > 1) {
    return new NotAnApproverError(
      ...ids,
      `it needs ${approvalsNeeded(ask)} distinct people, and this link names no one: decide signed in, or with a link made for you`,
    );
  }
  return undefined;
}

/**
 * What the votes already on ask `index` say to a vote by `actor` whose recorded body hashes to `hash` (§13, §16): a
 * replay (the same vote again, through the same door), `already_voted` (the same person voted, through this door or
 * another), or nothing (undefined).
 */
export function voteRefusal(
  record: PauseRecord,
  index: number,
  actor: Actor,
  hash?: string,
): 'replay' | HandbackError | undefined {
  const mine = record.votes?.[index]?.find((vote) => samePerson(vote.by, actor));
  if (mine === undefined) return undefined;
  if (hash !== undefined && mine.hash === hash && sameDoor(mine.by, actor)) return 'replay';
  return new AlreadyVotedError(record.runId, interruptIdOf(record), (record.asks[index] as Ask).toolCallId);
}

/**
 * `args_changed` (§16) for an approve or edit whose `argsHash` is not the ask's current one (`current`); a reject is a
 * veto whatever the arguments, and a decision without `argsHash` is taken as it is.
 */
export function argsRefusal(record: PauseRecord, ask: Ask, decision: Decision, current: string) {
  if (!('decision' in decision) || VOTES[decision.decision] === 'vetoes') return undefined;
  if (decision.argsHash === undefined || decision.argsHash === current) return undefined;
  return new ArgsChangedError(record.runId, interruptIdOf(record), ask.toolCallId, current);
}

/**
 * The code a decision on ask `index` by `actor` would get now (§16's `refusal`), in the order the store checks a
 * decision (`checkpoint-service.ts`): who may decide at all, then whether the pause is still open (`status`, as read
 * at that time), then whether the ask is decided, then whether this person already voted. Undefined: they may decide.
 */
export function refusalOf(record: PauseRecord, index: number, actor: Actor, status: string): RefusalCode | undefined {
  const ask = record.asks[index];
  if (ask === undefined) return undefined;
  const refusal =
    authorityRefusal(record, ask, actor) ??
    closedRefusal(record, status) ??
    (record.decisions[index] !== undefined
      ? new AlreadyDecidedError(record.runId, interruptIdOf(record), ask.toolCallId)
      : undefined) ??
    voteRefusal(record, index, actor);
  return refusal === undefined || refusal === 'replay' ? undefined : (refusal.code as RefusalCode);
}

/** Whether `actor` may still act on ask `index` at `status`: no refusal. */
export function mayDecide(record: PauseRecord, index: number, actor: Actor, status: string): boolean {
  return refusalOf(record, index, actor, status) === undefined;
}

/**
 * The refusal of a decision on a pause that no longer takes any: cancelled, expired, or a status a newer version
 * wrote. A resumed pause has every ask decided: its refusal is the ask's.
 */
function closedRefusal(record: PauseRecord, status: string): HandbackError | undefined {
  const interruptId = interruptIdOf(record);
  switch (status) {
    case Status.Paused:
    case Status.Resumed:
      return undefined;
    case Status.Cancelled:
      return new PauseCancelledError(record.runId, interruptId);
    case Status.Expired:
      return new PauseExpiredError(record.runId, interruptId, new Date(record.expiresAtMs).toISOString());
    default:
      return new UnsupportedRecordError(record.runId, interruptId, `status ${JSON.stringify(status)}`);
  }
}

// -------------------------------------------------------------------------------------------------------------------
// Agents never choose their approvers (§16)

/** A domain name, ASCII: labels of letters, digits and hyphens, separated by dots. */
const DOMAIN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * The deployment's recipient domains from a comma-separated list (`HANDBACK_RECIPIENT_DOMAINS`, context
 * `handback:recipientDomains`), folded to lower case; none when unset. Throws naming an entry that is not a domain.
 */
export function parseRecipientDomains(value: string | undefined): string[] {
  const domains = (value ?? '')
    .split(',')
    .map((part) => foldEmail(part.trim()).replace(/^@/, ''))
    .filter((part) => part !== '');
  for (const domain of domains) {
    if (!DOMAIN.test(domain)) {
      throw new Error(
        `The recipient domain ${JSON.stringify(domain.slice(0, 64))} is not a domain name: give domains such as example.com, comma-separated.`,
      );
    }
  }
  return domains;
}

/** Whether `email`'s domain is one of `domains` or below one (`ops.example.com` is inside `example.com`). */
export function isInsideDomains(email: string, domains: readonly string[]): boolean {
  const at = email.lastIndexOf('@');
  if (at < 0) return false;
  const domain = foldEmail(email.slice(at + 1));
  return domains.some((allowed) => domain === allowed || domain.endsWith(`.${allowed}`));
}

/**
 * Refuses (400 `recipient_not_allowed`, naming each address) a pause by an `agent` that names an email outside the
 * deployment's recipient domains, as an approver or an email `notify` recipient (§16): an agent never chooses who
 * approves it. Without recipient domains an agent names approvers by subject and group only, and its email goes to
 * the deployment's default recipients. Other principals are not held to this.
 */
export function checkRecipients(
  pause: {
    pausedBy: Principal;
    asks: ReadonlyArray<{ approvers?: Approvers }>;
    notify?: readonly NotifyEntry[] | undefined;
  },
  domains: readonly string[],
  asksPath = (index: number) => `/asks/${index}`,
): void {
  if (pause.pausedBy.kind !== 'agent') return;
  const failures: AnswerFailure[] = [];
  const outside = (email: string) =>
    domains.length === 0
      ? `${email} is not allowed: an agent names approvers and email recipients by address only inside the deployment's recipient domains, and this deployment has none (${RECIPIENT_DOMAINS.env}, on AWS context ${RECIPIENT_DOMAINS.context})`
      : `${email} is outside the recipient domains (${domains.join(', ')}) an agent may name`;
  pause.asks.forEach((ask, index) => {
    ask.approvers?.emails?.forEach((email, at) => {
      if (!isInsideDomains(email, domains)) {
        failures.push({ path: `${asksPath(index)}/approvers/emails/${at}`, message: outside(email) });
      }
    });
  });
  pause.notify?.forEach((entry, index) => {
    if (CHANNEL_ADDRESSES[entry.channel].heldToDomains && !isInsideDomains(entry.to, domains)) {
      failures.push({ path: `/notify/${index}/to`, message: outside(entry.to) });
    }
  });
  if (failures.length > 0) {
    throw new RecipientNotAllowedError(
      `The pause names email addresses an agent may not choose; nothing was recorded or sent: ${failures.map((f) => f.message).join('; ')}.`,
      failures,
    );
  }
}

// -------------------------------------------------------------------------------------------------------------------
// Caller-given principals and approvers

/**
 * Checks a caller-given principal (the library's `by`, a trigger's `by`): the fields §13 and §16 name, each bounded.
 * Throws `BadRequestError` naming each bad field.
 */
export function checkActor(value: unknown, path = '/by'): Actor {
  const fail = (message: string, at = path) => new BadRequestError(`${capitalize(message)}.`, [{ path: at, message }]);
  if (!isPlainObject(value)) throw fail('by must be an object {kind, subject, email?, name?, via}');
  const { kind, subject, email, name, via, groups, grantedBy, emailVerified } = value as Record<string, unknown>;
  if (!isOneOf(PRINCIPAL_KINDS, kind)) {
    throw fail(`by.kind must be one of ${PRINCIPAL_KINDS.join(', ')}`, `${path}/kind`);
  }
  if (!isOneOf(VIAS, via)) throw fail(`by.via must be one of ${VIAS.join(', ')}`, `${path}/via`);
  const text = (field: unknown, what: string, optional: boolean) => {
    if (field === undefined && optional) return;
    if (typeof field !== 'string' || field.length === 0 || field.length > LIMITS.approvers.chars) {
      throw fail(`by.${what} must be a string of 1–${LIMITS.approvers.chars} characters`, `${path}/${what}`);
    }
  };
  text(subject, 'subject', false);
  text(email, 'email', true);
  text(name, 'name', true);
  text(grantedBy, 'grantedBy', true);
  if (emailVerified !== undefined && emailVerified !== true) {
    throw fail('by.emailVerified must be true when given', `${path}/emailVerified`);
  }
  const recipient = (value as Record<string, unknown>).for;
  if (recipient !== undefined) {
    if (!isPlainObject(recipient)) throw fail('by.for must be an object {email, name?}', `${path}/for`);
    text(recipient.email, 'for/email', false);
    text(recipient.name, 'for/name', true);
  }
  if (groups !== undefined) {
    if (!Array.isArray(groups) || groups.length > LIMITS.approvers.entries * 4) {
      throw fail(`by.groups must be a list of at most ${LIMITS.approvers.entries * 4} strings`, `${path}/groups`);
    }
    groups.forEach((group, index) => {
      if (typeof group !== 'string' || group.length > LIMITS.approvers.chars) {
        throw fail(`by.groups[${index}] must be a string of at most ${LIMITS.approvers.chars} characters`);
      }
    });
  }
  return value as unknown as Actor;
}

/**
 * Checks an ask's `approvers` (§13): arrays of at most 50 strings of at most 256 characters, at least one entry in all.
 * Reports each problem through `fail`.
 */
export function checkApprovers(value: unknown, at: string, fail: (path: string, message: string) => void): void {
  if (!isPlainObject(value)) {
    fail(at, 'approvers must be an object {subjects?, emails?, groups?}');
    return;
  }
  const { entries, chars } = LIMITS.approvers;
  let total = 0;
  for (const [key, list] of Object.entries(value)) {
    if (key !== 'subjects' && key !== 'emails' && key !== 'groups') {
      fail(`${at}/${key}`, `approvers take subjects, emails and groups, not ${JSON.stringify(key.slice(0, 64))}`);
      continue;
    }
    if (!Array.isArray(list) || list.length > entries) {
      fail(`${at}/${key}`, `approvers.${key} must be a list of at most ${entries} strings`);
      continue;
    }
    list.forEach((entry, index) => {
      if (typeof entry !== 'string' || entry.length === 0 || entry.length > chars) {
        fail(`${at}/${key}/${index}`, `approvers.${key}[${index}] must be a string of 1–${chars} characters`);
      }
    });
    total += list.length;
  }
  if (total === 0) fail(at, 'approvers must name at least one subject, email or group');
}

function describeApprovers(approvers: Approvers): string {
  const parts: string[] = [];
  const some = (list: string[] | undefined) =>
    (list ?? []).slice(0, 5).join(', ') + ((list?.length ?? 0) > 5 ? ', …' : '');
  if (approvers.subjects?.length) parts.push(`subjects ${some(approvers.subjects)}`);
  if (approvers.emails?.length) parts.push(`emails ${some(approvers.emails)}`);
  if (approvers.groups?.length) parts.push(`groups ${some(approvers.groups)}`);
  return parts.join('; ');
}
