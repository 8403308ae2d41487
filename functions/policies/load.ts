import { InvalidPoliciesError } from '../errors.ts';
import { CEDAR_NAMES, isOneOf, LIMITS, POLICY_ANNOTATIONS, POLICY_BASES } from '../vocabulary.ts';
import type { Approvers } from '../wire.ts';
import type { Cedar, CedarType, DetailedError, PolicyJson, SchemaJson } from './cedar.ts';
import { durationSeconds } from './duration.ts';
import { LadderError, parseApprovers, parseLadder } from './ladder.ts';
import type { LadderLevel } from './port.ts';
import {
  placeOfByte,
  placeOfIndex,
  type Statement,
  statementsOf,
  type TextPlace,
  utf8Bytes,
  withoutCommentsAndStrings,
} from './text.ts';

/**
 * A deployment's policies and schema (§17), loaded and checked once: the schema Handback ships extended by the
 * deployment's `Args`, every policy parsed, validated against that schema (Cedar's strict mode), and held to
 * Handback's own rules — an `@id` on each, once; `@approvals` from 1 to 5; `@fourEyes` true or false; `@approvers`
 * entries Handback can match. Anything wrong is one `InvalidPoliciesError` naming the file, the line and column (in
 * characters) and Cedar's own words.
 */

/** A file's name, as messages name it, and its text. */
export interface PolicySource {
  file: string;
  text: string;
}

/** One policy of the file, with what Handback reads of its annotations. */
export interface LoadedPolicy {
  id: string;
  effect: 'permit' | 'forbid';
  /** Its text, as the file has it. */
  text: string;
  /** Every annotation it carries, Handback's and the author's own (`GET /policies` shows them). */
  annotations: Record<string, string>;
  /** `@reason`: a forbid's rejection reason. */
  reason?: string;
  /** `@approvers`, as approvers. */
  approvers?: Approvers;
  /** `@approvals`. */
  approvals?: number;
  /** `@fourEyes("true")`. */
  fourEyes?: true;
  /** §19: `@validFor`, an ISO 8601 duration: how long an approval under it lets the call run. */
  validFor?: string;
  /** `@escalate("PT30M group:leads; PT2H manager")`: the ask's escalation ladder (§21). */
  escalate?: LadderLevel[];
  /** The actions its scope names (`action == …`, `action in [...]`), or undefined for every action. */
  actions?: string[];
  /** The tools its scope names (`resource == Handback::Tool::"…"`), or undefined when it may apply to any. */
  tools?: string[];
}

/** The checked policies and the schema they were checked against. */
export interface LoadedPolicies {
  /** By `@id`, in the file's order. */
  policies: Map<string, LoadedPolicy>;
  /** The schema's text: Handback's, with the deployment's `Args` (or an empty one). */
  schema: string;
  /** The same schema as JSON, its type names resolved: what requests are built from. */
  schemaJson: SchemaJson<string>;
  /** The texts the set was loaded from, in order: the policies, Handback's schema, the deployment's (§19's version). */
  sources: string[];
}

/** Where a byte offset of a text Cedar was given lies: in which file, and where in it. */
type Locate = (byteOffset: number) => { file: string } & TextPlace;

/**
 * Loads `policies` against Handback's schema (`shipped`, the text of `handback.cedarschema`) extended by the
 * deployment's own (`deployment`: a `namespace Handback { type Args = {…}; }`). Throws `InvalidPoliciesError`.
 */
export function loadPolicies(
  cedar: Cedar,
  policies: PolicySource,
  shipped: PolicySource,
  deployment?: PolicySource,
): LoadedPolicies {
  const schema = extendSchema(shipped, deployment);
  const parsed = cedar.checkParseSchema(schema.text);
  // Where Cedar points at both files (a name declared twice), the deployment's is the one to change.
  const mine = deployment?.file ?? shipped.file;
  if (parsed.type === 'failure') throw cedarError(parsed.errors, schema.locate, mine);
  const json = cedar.schemaToJsonWithResolvedTypes(schema.text);
  if (json.type === 'failure') throw cedarError(json.errors, schema.locate, mine);
  checkArgs(json.json, deployment);

  const inPolicies: Locate = (offset) => ({ file: policies.file, ...placeOfByte(policies.text, offset) });
  const checked = cedar.checkParsePolicySet({ staticPolicies: policies.text });
  if (checked.type === 'failure') throw cedarError(checked.errors, inPolicies, policies.file);
  const parts = cedar.policySetTextToParts(policies.text);
  if (parts.type === 'failure') throw cedarError(parts.errors, inPolicies, policies.file);

  const loaded = new Map<string, LoadedPolicy>();
  const lines = new Map<string, number>();
  const starts = new Map<string, number>();
  for (const { text, index, byte, line } of placed(policies.text, parts.policies)) {
    const fail = (message: string) => at(policies, index, message);
    const answer = cedar.policyToJson(text);
    if (answer.type === 'failure') throw cedarError(answer.errors, inPolicies, policies.file);
    const annotations = answer.json.annotations ?? {};
    const policy = readAnnotations(annotations, answer.json.effect, text, fail);
    const escalate = annotations[POLICY_ANNOTATIONS.escalate];
    if (escalate !== undefined)
      policy.escalate = readLadder(escalate, answer.json.effect, text, (offset, message) =>
        at(policies, index + offset, message),
      );
    const actions = actionsOf(answer.json.action);
    if (actions !== undefined) policy.actions = actions;
    // §19: an approval's validity belongs to what people approve, `call`; on any other action it would bound nothing.
    if (policy.validFor !== undefined && actions !== undefined && !actions.includes(CEDAR_NAMES.call)) {
      throw fail(`@validFor belongs to permits of ${CEDAR_NAMES.call}: this policy's scope names no such action`);
    }
    const tools = toolsOf(answer.json.resource);
    if (tools !== undefined) policy.tools = tools;
    const first = lines.get(policy.id);
    if (first !== undefined) throw fail(`@id("${policy.id}") is already the id of the policy at line ${first}`);
    lines.set(policy.id, line);
    starts.set(policy.id, byte);
    loaded.set(policy.id, policy);
  }

  // Validated by id, so that Cedar's messages name each policy by its @id; its offsets are then the policy's own.
  const validated = cedar.validate({
    schema: schema.text,
    policies: { staticPolicies: Object.fromEntries([...loaded].map(([id, policy]) => [id, policy.text])) },
    validationSettings: { mode: 'strict' },
  });
  if (validated.type === 'failure') throw cedarError(validated.errors, inPolicies, policies.file);
  // A policy Cedar finds impossible (it reads an argument `Args` does not declare, say) would never apply: a typo
  // the deployment would otherwise find out about in production.
  const [invalid, ...more] = [...validated.validationErrors, ...validated.validationWarnings];
  if (invalid !== undefined) {
    const start = starts.get(invalid.policyId) ?? 0;
    throw cedarError([invalid.error], (offset) => inPolicies(start + offset), policies.file, more.length);
  }
  const sources = [policies.text, shipped.text, ...(deployment === undefined ? [] : [deployment.text])];
  return { policies: loaded, schema: schema.text, schemaJson: json.json, sources };
}

/**
 * The shipped schema extended by the deployment's: the shipped namespace's declarations go inside the deployment's
 * own `namespace Handback { … }` (Cedar refuses a namespace declared twice), so that every offset Cedar reports maps
 * back to the file it is in. Without a deployment schema, `Args` is an empty record.
 */
function extendSchema(shipped: PolicySource, deployment: PolicySource | undefined): { text: string; locate: Locate } {
  const shippedOpen = namespaceBody(shipped.text);
  if (shippedOpen === undefined) throw at(shipped, 0, `no "namespace ${CEDAR_NAMES.namespace} {" in this schema`);
  const shippedEnd = shipped.text.lastIndexOf('}');
  const body = shipped.text.slice(shippedOpen, shippedEnd);
  const host = deployment ?? { file: shipped.file, text: `namespace ${CEDAR_NAMES.namespace} { type Args = {}; }` };
  const open = namespaceBody(host.text);
  if (open === undefined) {
    throw at(
      host,
      0,
      `declare the arguments as "namespace ${CEDAR_NAMES.namespace} { type ${CEDAR_NAMES.args} = { … }; }": this schema has no namespace ${CEDAR_NAMES.namespace}`,
    );
  }
  const text = host.text.slice(0, open) + body + host.text.slice(open);
  const start = utf8Bytes(host.text.slice(0, open));
  const length = utf8Bytes(body);
  const bodyStart = utf8Bytes(shipped.text.slice(0, shippedOpen));
  const locate: Locate = (offset) => {
    if (offset >= start && offset < start + length) {
      return { file: shipped.file, ...placeOfByte(shipped.text, bodyStart + offset - start) };
    }
    const inHost = offset < start ? offset : offset - length;
    return deployment === undefined
      ? { file: shipped.file, ...placeOfByte(shipped.text, shippedOpen) }
      : { file: deployment.file, ...placeOfByte(deployment.text, inHost) };
  };
  return { text, locate };
}

/** The index just past the `{` of `namespace Handback {` in a schema's text, outside comments and strings. */
function namespaceBody(text: string): number | undefined {
  const match = new RegExp(`\\bnamespace\\s+${CEDAR_NAMES.namespace}\\s*\\{`).exec(withoutCommentsAndStrings(text));
  return match === null ? undefined : match.index + match[0].length;
}

/** Every attribute of `Args` is optional (at any depth): a call may leave any argument out. */
function checkArgs(json: SchemaJson<string>, deployment: PolicySource | undefined): void {
  const args = json[CEDAR_NAMES.namespace]?.commonTypes?.[CEDAR_NAMES.args] as CedarType | undefined;
  const file = deployment ?? { file: 'handback.cedarschema', text: '' };
  if (args === undefined || !('type' in args) || args.type !== 'Record') {
    throw at(file, 0, `${CEDAR_NAMES.namespace}::${CEDAR_NAMES.args} must be a record type: type Args = { … };`);
  }
  const visit = (type: CedarType, path: string) => {
    if (!('attributes' in type)) return;
    for (const [name, attribute] of Object.entries(type.attributes)) {
      const where = `${path}.${name}`;
      if ((attribute as { required?: boolean }).required !== false) {
        const masked = withoutCommentsAndStrings(file.text);
        const index = masked.search(new RegExp(`\\b${name.replace(/[^\w]/g, '\\$&')}\\s*:`));
        throw at(
          file,
          Math.max(index, 0),
          `the attribute ${where} must be optional (${name}?: …): a call may leave any argument out, and policies read it behind "has"`,
        );
      }
      visit(attribute as CedarType, where);
    }
  };
  visit(args, CEDAR_NAMES.args);
}

/** The action ids a policy's action scope names, or undefined when it names every action. */
function actionsOf(scope: PolicyJson['action']): string[] | undefined {
  if (scope.op === 'All') return undefined;
  const uids = 'entities' in scope ? scope.entities : 'entity' in scope ? [scope.entity] : [];
  return uids.map((uid) => ('__entity' in uid ? uid.__entity.id : uid.id));
}

/** The tool a policy's resource scope names (`==` or `in` a tool, which has no parents), or undefined for any. */
function toolsOf(scope: PolicyJson['resource']): string[] | undefined {
  if ((scope.op !== '==' && scope.op !== 'in') || !('entity' in scope)) return undefined;
  const uid = '__entity' in scope.entity ? scope.entity.__entity : scope.entity;
  return uid.type === CEDAR_NAMES.tool ? [uid.id] : undefined;
}

/**
 * The policies as Cedar split the file (in an order of its own), each where it is in the file, in the file's order.
 * Found by its text among the file's statements, one pass over the file, so that loading stays linear in its size; a
 * text met twice is taken in the file's order. A part the split does not find (white space Cedar skips and the split
 * does not) is searched for.
 */
function placed(file: string, parts: readonly string[]): Statement[] {
  const byText = new Map<string, { starts: Statement[]; next: number }>();
  for (const statement of statementsOf(file)) {
    const same = byText.get(statement.text);
    if (same === undefined) byText.set(statement.text, { starts: [statement], next: 0 });
    else same.starts.push(statement);
  }
  const taken = new Set<number>();
  const found = parts.map((text): Statement => {
    const same = byText.get(text);
    const statement = same?.starts[same.next];
    if (same !== undefined && statement !== undefined) {
      same.next++;
      taken.add(statement.index);
      return statement;
    }
    let index = file.indexOf(text);
    while (index >= 0 && taken.has(index)) index = file.indexOf(text, index + 1);
    index = Math.max(index, 0);
    taken.add(index);
    return { text, index, byte: utf8Bytes(file.slice(0, index)), line: placeOfIndex(file, index).line };
  });
  return found.sort((a, b) => a.index - b.index);
}

/** Handback's annotations of one policy, each checked; `fail` makes the error at the policy. */
function readAnnotations(
  annotations: Record<string, string>,
  effect: 'permit' | 'forbid',
  text: string,
  fail: (message: string) => InvalidPoliciesError,
): LoadedPolicy {
  const id = annotations[POLICY_ANNOTATIONS.id];
  if (id === undefined) {
    throw fail('this policy has no @id("…"): every policy carries one, the name the audit trail records');
  }
  if (!/^[A-Za-z0-9._-]+$/.test(id) || id.length > LIMITS.policyIdChars) {
    throw fail(`@id("${id}") must be 1–${LIMITS.policyIdChars} of A–Z, a–z, 0–9, ".", "_" and "-"`);
  }
  if (isOneOf(POLICY_BASES, id)) {
    throw fail(`@id("${id}") is reserved: Handback records policy:${id} itself`);
  }
  const policy: LoadedPolicy = { id, effect, text, annotations: { ...annotations } };
  const reason = annotations[POLICY_ANNOTATIONS.reason];
  if (reason !== undefined) policy.reason = reason;
  const approvals = annotations[POLICY_ANNOTATIONS.approvals];
  if (approvals !== undefined) {
    const { min, max } = LIMITS.approvals;
    const n = /^[1-9]$/.test(approvals) ? Number(approvals) : Number.NaN;
    if (!(n >= min && n <= max)) throw fail(`@approvals("${approvals}") must be "${min}" to "${max}"`);
    policy.approvals = n;
  }
  const fourEyes = annotations[POLICY_ANNOTATIONS.fourEyes];
  if (fourEyes !== undefined) {
    if (fourEyes !== 'true' && fourEyes !== 'false') throw fail(`@fourEyes("${fourEyes}") must be "true" or "false"`);
    if (fourEyes === 'true') policy.fourEyes = true;
  }
  const approvers = annotations[POLICY_ANNOTATIONS.approvers];
  if (approvers !== undefined) policy.approvers = parseApprovers(approvers, fail);
  // §19
  const validFor = annotations[POLICY_ANNOTATIONS.validFor];
  if (validFor !== undefined) {
    if (durationSeconds(validFor) === undefined) {
      throw fail(
        `@validFor("${validFor}") must be an ISO 8601 duration of weeks, or of days, hours, minutes and seconds, above zero ("PT1H", "P2D", "P1DT12H")`,
      );
    }
    policy.validFor = validFor;
  }
  if (
    effect === 'forbid' &&
    (approvers !== undefined || approvals !== undefined || fourEyes !== undefined || validFor !== undefined)
  ) {
    throw fail('@approvers, @approvals, @fourEyes and @validFor belong to permit policies: a forbid rejects');
  }
  return policy;
}

/**
 * `@escalate("…")` as a ladder (§21), on a permit only; what is wrong is an error at its word in the annotation's
 * string (found by the annotation's name, so a string with escapes may point a few columns off).
 */
function readLadder(
  value: string,
  effect: 'permit' | 'forbid',
  text: string,
  fail: (offset: number, message: string) => InvalidPoliciesError,
): LadderLevel[] {
  const annotation = text.search(new RegExp(`@${POLICY_ANNOTATIONS.escalate}\\s*\\(`));
  const quote = annotation < 0 ? -1 : text.indexOf('"', annotation);
  const start = quote < 0 ? 0 : quote + 1;
  if (effect === 'forbid')
    throw fail(Math.max(annotation, 0), '@escalate belongs to permit policies: a forbid rejects');
  try {
    return parseLadder(value);
  } catch (error) {
    if (!(error instanceof LadderError)) throw error;
    throw fail(start + error.offset, `@escalate: ${error.message}`);
  }
}

/** An error at a UTF-16 index of a file. */
function at(source: PolicySource, index: number, message: string): InvalidPoliciesError {
  const { line, column } = placeOfIndex(source.text, Math.max(index, 0));
  return new InvalidPoliciesError(source.file, line, column, message);
}

/**
 * Cedar's first error, where it points (the first place in `file` when it points at several, else the start of
 * `file`), in its own words and help.
 */
function cedarError(
  errors: readonly DetailedError[],
  locate: Locate,
  file: string,
  more = errors.length - 1,
): InvalidPoliciesError {
  const [error] = errors;
  const places = (error?.sourceLocations ?? []).map((location) => locate(location.start));
  const place = places.find((candidate) => candidate.file === file) ?? places[0] ?? { file, line: 1, column: 1 };
  const words = error === undefined ? 'Cedar refused it' : error.message;
  const help = error?.help ? ` (${error.help})` : '';
  const others = more > 0 ? `; and ${more} more` : '';
  return new InvalidPoliciesError(place.file, place.line, place.column, `${words}${help}${others}`);
}
