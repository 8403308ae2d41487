import type { JsonSchema } from './types.ts';

/**
 * Forms from JSON Schemas, pure (no DOM, unit-tested in Node): an `answerSchema` becomes a field — text, a choice
 * from an `enum`, a checkbox, a number, or an object of those (nested up to `MAX_DEPTH`) — and anything else a JSON
 * editor. The form's values are read back into the JSON value to send; what the form itself can tell (a required
 * field left empty, text that is not a number, JSON that does not parse) is said here, and the rest — every keyword
 * of the schema — by the server's own validator (`validate.ts`). Failures of either are attributed to fields by their
 * JSON pointer.
 */

/** A JSON value an `enum` may offer in a form: a scalar. */
export type EnumOption = string | number | boolean | null;

interface FieldBase {
  /** The JSON pointer of the value in the answer (`''` for the whole answer). */
  pointer: string;
  /** The field's DOM id, unique in the page (ids are made from `prefix` and a counter). */
  id: string;
  /** `title`, else the property name, else `fallbackLabel`. */
  label: string;
  description?: string;
  /** Required by the parent object's `required` (the whole answer is always required). */
  required: boolean;
}

/** One field of a generated form. */
export type Field =
  | (FieldBase & { kind: 'string'; multiline: boolean; maxLength?: number })
  | (FieldBase & { kind: 'number'; integer: boolean })
  | (FieldBase & { kind: 'boolean' })
  | (FieldBase & { kind: 'enum'; options: EnumOption[] })
  | (FieldBase & { kind: 'object'; properties: Field[] })
  | (FieldBase & { kind: 'json' });

/** A form's values by field id: text as typed, a checkbox's state, an enum's option index as text ('' for none). */
export type FormValues = Record<string, string | boolean>;

/** A problem with one field (or, with `id` of the top field, with the whole value). */
export interface FieldError {
  id: string;
  message: string;
}

/** How deep objects nest before the form gives way to a JSON editor. */
export const MAX_DEPTH = 3;
/** Radio buttons up to this many options; a select past it. */
export const MAX_RADIOS = 5;
/** Strings at most this long get a one-line input; longer or unbounded ones a text area. */
const SHORT_STRING = 200;

// Keywords a generated field cannot show the person (they combine, branch or constrain shape): such a schema gets the
// JSON editor. Constraints a field can carry as they are (minLength, pattern, minimum, …) are checked by the validator.
const STRUCTURAL = [
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'const',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'patternProperties',
  'propertyNames',
  'unevaluatedProperties',
  'minProperties',
  'maxProperties',
  'items',
  'prefixItems',
  'contains',
  '$defs',
  'definitions',
];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON pointer token (RFC 6901). */
export function pointerToken(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The field for `schema` (an ask's `answerSchema`; absent means any JSON value), its ids made from `prefix`. */
export function formFor(schema: JsonSchema | null | undefined, prefix: string, fallbackLabel = 'Answer'): Field {
  let counter = 0;
  const nextId = () => `${prefix}-${counter++}`;
  const field = (node: unknown, pointer: string, label: string, required: boolean, depth: number): Field => {
    const base: FieldBase = { pointer, id: nextId(), label, required };
    if (!isObject(node)) return { ...base, kind: 'json' };
    if (typeof node.title === 'string' && node.title.trim() !== '') base.label = node.title;
    if (typeof node.description === 'string' && node.description.trim() !== '') base.description = node.description;
    if (STRUCTURAL.some((keyword) => Object.hasOwn(node, keyword))) return { ...base, kind: 'json' };
    const type = node.type;
    if (Array.isArray(node.enum)) {
      const options = node.enum;
      const scalar = options.every((o) => o === null || ['string', 'number', 'boolean'].includes(typeof o));
      if (scalar && options.length > 0 && new Set(options).size === options.length) {
        return { ...base, kind: 'enum', options: options as EnumOption[] };
      }
      return { ...base, kind: 'json' };
    }
    switch (type) {
      case 'string': {
        const maxLength = typeof node.maxLength === 'number' ? node.maxLength : undefined;
        const multiline = maxLength === undefined || maxLength > SHORT_STRING;
        return { ...base, kind: 'string', multiline, ...(maxLength === undefined ? {} : { maxLength }) };
      }
      case 'number':
      case 'integer':
        return { ...base, kind: 'number', integer: type === 'integer' };
      case 'boolean':
        return { ...base, kind: 'boolean' };
      case 'object': {
        if (depth >= MAX_DEPTH || !isObject(node.properties)) return { ...base, kind: 'json' };
        const required = Array.isArray(node.required) ? node.required.filter((r) => typeof r === 'string') : [];
        const names = Object.keys(node.properties);
        // A required property the form would have no field for: only the JSON editor can give it.
        if (required.some((name) => !names.includes(name))) return { ...base, kind: 'json' };
        const properties = names.map((name) =>
          field(
            (node.properties as Record<string, unknown>)[name],
            `${pointer}/${pointerToken(name)}`,
            name,
            required.includes(name),
            depth + 1,
          ),
        );
        // One property the form cannot show makes the whole value a JSON editor: half a form helps nobody.
        if (properties.some((p) => p.kind === 'json')) return { ...base, kind: 'json' };
        return { ...base, kind: 'object', properties };
      }
      default:
        return { ...base, kind: 'json' };
    }
  };
  return field(schema ?? true, '', fallbackLabel, true, 0);
}

/** Every field of a form, the object fields before their properties. */
export function fieldsOf(field: Field): Field[] {
  return field.kind === 'object' ? [field, ...field.properties.flatMap(fieldsOf)] : [field];
}

/** The form's first values: each field's `default` from `schema` when it fits, else empty (a checkbox unchecked). */
export function initialValues(field: Field, schema: JsonSchema | null | undefined): FormValues {
  const values: FormValues = {};
  const fill = (f: Field, node: unknown) => {
    const fallback = isObject(node) ? node.default : undefined;
    switch (f.kind) {
      case 'string':
        values[f.id] = typeof fallback === 'string' ? fallback : '';
        break;
      case 'number':
        values[f.id] = typeof fallback === 'number' ? String(fallback) : '';
        break;
      case 'boolean':
        values[f.id] = fallback === true;
        break;
      case 'enum': {
        const index = fallback === undefined ? -1 : f.options.indexOf(fallback as EnumOption);
        values[f.id] = index < 0 ? '' : String(index);
        break;
      }
      case 'json':
        values[f.id] = fallback === undefined ? '' : JSON.stringify(fallback, null, 2);
        break;
      case 'object': {
        const properties = isObject(node) && isObject(node.properties) ? node.properties : {};
        f.properties.forEach((p) => {
          fill(p, properties[decodeLast(p.pointer)]);
        });
        break;
      }
    }
  };
  fill(field, schema);
  return values;
}

function decodeLast(pointer: string): string {
  const token = pointer.slice(pointer.lastIndexOf('/') + 1);
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The JSON value a form's values make, and what the form itself can tell is wrong: a required number, choice or JSON
 * value left empty, a number that is not one, JSON that does not parse. An optional field left empty is left out of
 * its object; a required text left empty is the empty string, which the schema accepts or not. With errors, `value`
 * is what the other fields make (for the schema to check them too), or absent when there is none.
 */
export function readForm(field: Field, values: FormValues): { value?: unknown; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const read = (f: Field): { present: boolean; value?: unknown } => {
    const raw = values[f.id];
    switch (f.kind) {
      case 'boolean':
        return { present: true, value: raw === true };
      case 'string': {
        const text = typeof raw === 'string' ? raw : '';
        // An optional property left empty is not given (an empty string might not be one of its values); a required
        // one, or the whole answer, is the empty string, and the schema says whether that will do.
        if (text === '' && !f.required) return { present: false };
        return { present: true, value: text };
      }
      case 'number': {
        const text = typeof raw === 'string' ? raw.trim() : '';
        if (text === '') return missing(f);
        if (!NUMBER.test(text) || !Number.isFinite(Number(text))) {
          errors.push({
            id: f.id,
            message: f.integer ? 'Enter a whole number, like 12.' : 'Enter a number, like 12 or 3.5.',
          });
          return { present: false };
        }
        return { present: true, value: Number(text) };
      }
      case 'enum': {
        const index = typeof raw === 'string' && raw !== '' ? Number(raw) : -1;
        if (index < 0 || index >= f.options.length) return missing(f, 'Choose one.');
        return { present: true, value: f.options[index] };
      }
      case 'json': {
        const text = typeof raw === 'string' ? raw.trim() : '';
        if (text === '') return missing(f, 'Enter a JSON value.');
        try {
          return { present: true, value: JSON.parse(text) as unknown };
        } catch (error) {
          errors.push({ id: f.id, message: `This is not valid JSON: ${(error as Error).message}` });
          return { present: false };
        }
      }
      case 'object': {
        const value: Record<string, unknown> = {};
        for (const property of f.properties) {
          const read_ = read(property);
          if (read_.present) value[decodeLast(property.pointer)] = read_.value;
        }
        return { present: true, value };
      }
    }
  };
  const missing = (f: Field, message = 'This field is required.') => {
    if (f.required) errors.push({ id: f.id, message });
    return { present: false };
  };
  const result = read(field);
  return result.present ? { value: result.value, errors } : { errors };
}

/**
 * The validator's failures (JSON pointers into the value) as field errors: on the field at that pointer, a missing
 * required property on that property's field, and anything else on the nearest enclosing field, with its path.
 */
export function attribute(field: Field, failures: ReadonlyArray<{ path: string; message: string }>): FieldError[] {
  const byPointer = new Map(fieldsOf(field).map((f) => [f.pointer, f]));
  return failures.map(({ path, message }) => {
    const exact = byPointer.get(path);
    const missingProperty = /^must have required property '(.+)'$/.exec(message)?.[1];
    if (missingProperty !== undefined) {
      const property = byPointer.get(`${path}/${pointerToken(missingProperty)}`);
      if (property !== undefined) return { id: property.id, message: 'This field is required.' };
    }
    if (exact !== undefined && exact.kind !== 'json') return { id: exact.id, message: sentence(message) };
    let at = path;
    let owner = byPointer.get(at);
    while (owner === undefined && at !== '') {
      at = at.slice(0, at.lastIndexOf('/'));
      owner = byPointer.get(at);
    }
    const target = owner ?? field;
    return { id: target.id, message: failureText({ path, message }) };
  });
}

/** A failure in words: the message as a sentence, after the JSON pointer it is at. */
export function failureText({ path, message }: { path: string; message: string }): string {
  return path === '' ? sentence(message) : `At ${path}: ${message}.`;
}

/** `message` with a capital first letter and a final full stop. */
export function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
