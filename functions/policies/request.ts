import { canonicalJson, utf8Bytes } from '../json.ts';
import { CEDAR_NAMES, LIMITS } from '../vocabulary.ts';
import type { CedarType, EntityJson, SchemaJson } from './cedar.ts';
import type { PolicyRequest } from './port.ts';

/**
 * The Cedar request of one `approval` ask (§17, §19), pure: the principal that paused (an `Agent`, or a `Person`, with
 * its groups as parents), the tool, and the context `{args, tool, now, clock, runId, tenant, format, kind, onBehalfOf?}` — `args` as
 * the deployment's `Args` type declares them: undeclared arguments left out, each declared one in the type it
 * declares (a JSON number a `Long` or a `decimal`), at most `LIMITS.policyArgsBytes` of canonical JSON and
 * `LIMITS.policyArgsElements` elements in any set or record; `now` the request's clock (an argument: nothing here
 * reads the time), and `clock` its weekday, hour and minute in the deployment's time zone. A value that cannot be its
 * type, or arguments past the bounds, are an `ArgsError`: the evaluation fails, closed.
 */

export type { PolicyRequest } from './port.ts';

/** An argument that does not fit its declared type, or arguments past the bounds of a request. */
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

/**
 * The request's context at its clock (`request.now`) in `timeZone`; throws `ArgsError` for an argument that does not
 * fit its declared type, or declared arguments past the bounds.
 */
export function contextOf(
  request: PolicyRequest,
  schema: SchemaJson<string>,
  timeZone = 'UTC',
): Record<string, unknown> {
  const types = new TypeTable(schema);
  const args = types.value(types.args(), request.args ?? {}, 'args') ?? {};
  const bytes = utf8Bytes(canonicalJson(args));
  if (bytes > LIMITS.policyArgsBytes) {
    throw new ArgsError(
      `the declared arguments take ${bytes} bytes as Cedar sees them, over the ${LIMITS.policyArgsBytes} the policies judge`,
    );
  }
  return {
    args,
    tool: request.tool,
    now: { __extn: { fn: 'datetime', arg: request.now.toISOString() } },
    clock: clockOf(request.now, timeZone),
    runId: request.runId,
    tenant: request.tenant,
    format: request.format,
    kind: 'approval',
    // §20
    ...(request.onBehalfOf === undefined ? {} : { onBehalfOf: { __entity: onBehalfOfUid(request) } }),
  };
}

/** A request's wall clock: ISO weekday (Monday 1 to Sunday 7), hour (0–23) and minute, in a time zone. */
export interface Clock {
  weekday: number;
  hour: number;
  minute: number;
}

const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };
const clockFormats = new Map<string, Intl.DateTimeFormat>();

/** `now`'s weekday, hour and minute in `timeZone` (an IANA name; the caller checked it: `isTimeZone`). Pure. */
export function clockOf(now: Date, timeZone: string): Clock {
  let format = clockFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      hour: 'numeric',
      minute: 'numeric',
      hourCycle: 'h23',
    });
    clockFormats.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(now).map((part) => [part.type, part.value]));
  return {
    weekday: WEEKDAYS[parts.weekday as string] as number,
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
  };
}

/** The uid of the person an agent pauses for (§20). */
function onBehalfOfUid(request: PolicyRequest): Uid {
  return { type: CEDAR_NAMES.person, id: request.onBehalfOf?.subject as string };
}

/** The schema's common types, to resolve a named one. */
class TypeTable {
  readonly #schema: SchemaJson<string>;
  /**
   * Bytes the arguments converted so far take, roughly (their leaves and keys as JSON): the conversion stops as soon
   * as they pass the bound, so a huge argument costs no more than the bound to refuse.
   */
  #bytes = 0;

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
    const spend = (bytes: number) => {
      this.#bytes += bytes;
      if (this.#bytes > LIMITS.policyArgsBytes) {
        throw new ArgsError(
          `the declared arguments take more than the ${LIMITS.policyArgsBytes} bytes the policies judge (at ${path})`,
        );
      }
    };
    const count = (size: number, what: string) => {
      if (size > LIMITS.policyArgsElements) {
        throw new ArgsError(
          `${path} holds ${size} ${what}, more than the ${LIMITS.policyArgsElements} a set or record the policies judge may hold`,
        );
      }
    };
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
        spend(20);
        return value;
      case 'decimal':
        expect(typeof value === 'number', 'a number (a decimal)');
        spend(64);
        return { __extn: { fn: 'decimal', arg: decimalText(value as number, path) } };
      case 'ipaddr':
      case 'datetime':
      case 'duration':
        expect(typeof value === 'string', `a string (${name === 'ipaddr' ? 'an' : 'a'} ${name})`);
        spend(40 + (value as string).length);
        return { __extn: { fn: name, arg: value } };
      case 'Entity':
        expect(typeof value === 'string', "a string (an entity's id)");
        spend(40 + (value as string).length);
        return { __entity: { type: (type as { name: string }).name, id: value } };
      case 'String':
        expect(typeof value === 'string', 'a string');
        // A string's UTF-16 length is at most its UTF-8 bytes: a huge one stops the conversion at once.
        spend(2 + (value as string).length);
        return value;
      case 'Bool':
      case 'Boolean':
        expect(typeof value === 'boolean', 'a boolean');
        spend(5);
        return value;
      case 'Set': {
        expect(Array.isArray(value), 'a list (a Set)');
        count((value as unknown[]).length, 'elements');
        spend(2);
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
        spend(2);
        let held = 0;
        for (const [key, attribute] of Object.entries(attributes)) {
          if (!Object.hasOwn(value as object, key)) continue;
          count(++held, 'attributes');
          spend(4 + key.length);
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
