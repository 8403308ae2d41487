import { _, type CodeGen, type CodeKeywordDefinition, type KeywordCxt, type Name } from 'ajv/dist/2020.js';
import { isPlainObject } from '../../json.ts';
import type { JsonSchema } from '../checkpoint-store.ts';

// The meter: every subschema of a compiled schema charges the work it does as it is applied, so a check stops once it
// has spent its budget, whatever the schema and the answer.

/**
 * What a subschema charges each time it is applied: `[own, strings, arrays, objects, patterns]` — its own work, then
 * per character of a string (`minLength`, `maxLength`, `pattern` each read it), per item of an array (each keyword
 * that loops over the items), per member of an object (each keyword that loops over the members), and per member and
 * character of its name (each of `patternProperties`).
 */
export type Charge = [number, number, number, number, number];

// The keyword the compiled copy of a schema carries in each subschema object; a tenant's own is overwritten.
const METER = 'x-handback-work';
export const OVER_LIMIT = new Error('The check of the answer would cost more than its budget of work.');
export const meter = { used: 0, limit: Number.POSITIVE_INFINITY };

// A call of RE2 costs about as much as this many characters it reads.
const PATTERN_CALL = 4;

function charge(data: unknown, own: number, strings: number, arrays: number, objects: number, patterns: number) {
  let cost = own;
  if (typeof data === 'string') cost += strings * (PATTERN_CALL + data.length);
  else if (Array.isArray(data)) cost += arrays * data.length;
  else if (objects + patterns > 0 && typeof data === 'object' && data !== null) {
    for (const name of Object.keys(data)) cost += objects + patterns * (PATTERN_CALL + name.length);
  }
  meter.used += cost;
  if (meter.used > meter.limit) throw OVER_LIMIT;
}

export const meterKeyword: CodeKeywordDefinition = {
  keyword: METER,
  schemaType: 'array',
  // First, before `$ref` and the applicators: a subschema that fails early (ajv skips the rest of a failing subschema
  // when it stops at the first failure) has paid all the same.
  before: '$ref',
  code(cxt: KeywordCxt) {
    const { gen, data, schema } = cxt;
    const [own, strings, arrays, objects, patterns] = schema as Charge;
    gen.code(_`${useFunction(gen, charge)}(${data}, ${own}, ${strings}, ${arrays}, ${objects}, ${patterns})`);
  },
};

/** A copy of `schema` whose every subschema object carries its charge. */
export function metered(schema: JsonSchema, charges: Map<string, Charge>): JsonSchema {
  if (typeof schema === 'boolean') return schema;
  const copy = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  for (const [pointer, spec] of charges) {
    let target: unknown = copy;
    for (const token of pointer.split('/').slice(1)) {
      const name = token.replaceAll('~1', '/').replaceAll('~0', '~');
      target = (target as Record<string, unknown>)[name];
    }
    if (isPlainObject(target)) target[METER] = spec;
  }
  return copy;
}

/** `ref` as a value the compiled code can call. */
export function useFunction(gen: CodeGen, ref: (...args: never[]) => unknown): Name {
  return gen.scopeValue('func', { ref });
}
