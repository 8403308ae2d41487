import { CEDAR_NAMES } from '../vocabulary.ts';
import type { CedarType, EntityJson, SchemaJson } from './cedar.ts';
import type { PolicyRequest } from './port.ts';

/**
 * The Cedar request of one `approval` ask (§17), pure: the principal that paused (an `Agent`, or a `Person`, with its
 * groups as parents), the tool, and the context `{args, runId, tenant, format, kind, onBehalfOf?}` — `args` as the deployment's
 * `Args` type declares them: undeclared arguments left out, each declared one in the type it declares (a JSON number
 * a `Long` or a `decimal`). A value that cannot be that type is an `ArgsError`: the evaluation fails, closed.
 */

export type { PolicyRequest } from './port.ts';

/** An argument that does not fit its declared type. */
export class ArgsError extends Error {
  override readonly name = 'ArgsError';
}

/** A Cedar entity uid. */
export interface Uid {
  type: string;
  id: string;
}

/** The principal's uid: an agent (and a service pausing for one) is an `Agent`; a person or a link, a `Person`. */
export function principalUid(principal: PolicyRequest['principal']): Uid {
  const person = principal.kind === 'person' || principal.kind === 'link';
  return { type: person ? CEDAR_NAMES.person : CEDAR_NAMES.agent, id: principal.subject };
}

/** The request's entities: the principal with its groups as parents, each group, and the tool. */
export function entitiesOf(request: PolicyRequest): EntityJson[] {
  const groups = [...new Set(request.principal.groups ?? [])].map((id) => ({ type: CEDAR_NAMES.group, id }));
  // §20: the person an agent pauses for, a `Person` of no group (its groups are the token's, on the principal).
  const onBehalfOf = request.onBehalfOf === undefined ? [] : [{ uid: onBehalfOfUid(request), attrs: {}, parents: [] }];
  return [
    ...onBehalfOf,
    { uid: principalUid(request.principal), attrs: {}, parents: groups },
    ...groups.map((uid) => ({ uid, attrs: {}, parents: [] })),
    { uid: { type: CEDAR_NAMES.tool, id: request.tool }, attrs: {}, parents: [] },
  ];
}

/** The request's context; throws `ArgsError` for an argument that does not fit its declared type. */
export function contextOf(request: PolicyRequest, schema: SchemaJson<string>): Record<string, unknown> {
  const types = new TypeTable(schema);
  return {
    args: types.value(types.args(), request.args ?? {}, 'args') ?? {},
    runId: request.runId,
    tenant: request.tenant,
    format: request.format,
    kind: 'approval',
    // §20
    ...(request.onBehalfOf === undefined ? {} : { onBehalfOf: { __entity: onBehalfOfUid(request) } }),
  };
}

/** The uid of the person an agent pauses for (§20). */
function onBehalfOfUid(request: PolicyRequest): Uid {
  return { type: CEDAR_NAMES.person, id: request.onBehalfOf?.subject as string };
}

/** The schema's common types, to resolve a named one. */
class TypeTable {
  readonly #schema: SchemaJson<string>;

  constructor(schema: SchemaJson<string>) {
    this.#schema = schema;
  }

  args(): CedarType {
    return this.#schema[CEDAR_NAMES.namespace]?.commonTypes?.[CEDAR_NAMES.args] as CedarType;
  }

  /**
   * `value` as Cedar's JSON of `type`, or `undefined` to leave it out; a value of another JSON type than `type` takes
   * is an `ArgsError` (Cedar is not asked to check the request again: this is that check).
   */
  value(type: CedarType, value: unknown, path: string): unknown {
    if (value === null || value === undefined) return undefined;
    const name = (type as { type: string }).type.replace(/^__cedar::/, '');
    const expect = (ok: boolean, what: string) => {
      if (!ok) throw new ArgsError(`${path} is ${describe(value)}, not ${what}`);
    };
    switch (name) {
      case 'Long':
        expect(typeof value === 'number', 'a number (a Long)');
        if (!Number.isSafeInteger(value)) {
          throw new ArgsError(`${path} is ${value}, which does not fit a Long (an integer of at most 2^53 − 1 here)`);
        }
        return value;
      case 'decimal':
        expect(typeof value === 'number', 'a number (a decimal)');
        return { __extn: { fn: 'decimal', arg: decimalText(value as number, path) } };
      case 'ipaddr':
      case 'datetime':
      case 'duration':
        expect(typeof value === 'string', `a string (${name === 'ipaddr' ? 'an' : 'a'} ${name})`);
        return { __extn: { fn: name, arg: value } };
      case 'Entity':
        expect(typeof value === 'string', "a string (an entity's id)");
        return { __entity: { type: (type as { name: string }).name, id: value } };
      case 'String':
        expect(typeof value === 'string', 'a string');
        return value;
      case 'Bool':
      case 'Boolean':
        expect(typeof value === 'boolean', 'a boolean');
        return value;
      case 'Set': {
        expect(Array.isArray(value), 'a list (a Set)');
        const element = (type as { element: CedarType }).element;
        return (value as unknown[]).map((item, index) => {
          const converted = this.value(element, item, `${path}[${index}]`);
          if (converted === undefined) throw new ArgsError(`${path}[${index}] is null, which no Set holds`);
          return converted;
        });
      }
      case 'Record': {
        expect(typeof value === 'object' && !Array.isArray(value), 'an object (a record)');
        const attributes = (type as { attributes: Record<string, CedarType> }).attributes;
        const record: Record<string, unknown> = {};
        for (const [key, attribute] of Object.entries(attributes)) {
          if (!Object.hasOwn(value as object, key)) continue;
          const converted = this.value(attribute, (value as Record<string, unknown>)[key], `${path}.${key}`);
          if (converted !== undefined) record[key] = converted;
        }
        return record;
      }
      default:
        return this.value(this.#named(name), value, path);
    }
  }

  /** A common type by its name (`Handback::Money`, or `Money` in the namespace). */
  #named(name: string): CedarType {
    const at = name.lastIndexOf('::');
    const namespace = at < 0 ? CEDAR_NAMES.namespace : name.slice(0, at);
    const type = this.#schema[namespace]?.commonTypes?.[at < 0 ? name : name.slice(at + 2)];
    if (type === undefined) throw new ArgsError(`the schema declares no type ${name}`);
    return type as CedarType;
  }
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * A JSON number as a Cedar decimal literal: an integer part and one to four fraction digits. A number in exponent
 * notation or with more fraction digits is not one.
 */
function decimalText(value: number, path: string): string {
  const text = Number.isInteger(value) && Math.abs(value) < 1e21 ? `${value}.0` : String(value);
  if (!/^-?\d+\.\d{1,4}$/.test(text)) {
    throw new ArgsError(`${path} is ${text}, which does not fit a decimal (at most 4 fraction digits)`);
  }
  return text;
}
