import { _, type CodeKeywordDefinition, type KeywordCxt, str } from 'ajv/dist/2020.js';
import { JsonValueIds } from '../../json.ts';
import { useFunction } from './meter.ts';

// `uniqueItems`, `enum` and `const`, linear: ajv's compare values pairwise with a deep equal.

// The numbering of the value being checked, so that each of its parts is numbered once per check. Checks are
// synchronous, so one at a time; outside a check (ajv checking a schema against the meta-schema) each call numbers
// afresh.
let activeIds: JsonValueIds | undefined;
const ids = (): JsonValueIds => activeIds ?? new JsonValueIds();

const duplicateItems = (items: unknown[]) => ids().duplicateItems(items);
const isOneOf = (value: unknown, values: unknown[]) => ids().isOneOf(value, values);
const isConst = (value: unknown, constant: unknown) => ids().equal(value, constant);

/** Numbers the value about to be checked afresh: call before a check, and `endNumbering` after it. */
export function startNumbering(): void {
  activeIds = new JsonValueIds();
}

/** Ends the numbering of the value just checked, so the next call outside a check numbers afresh. */
export function endNumbering(): void {
  activeIds = undefined;
}

/** `uniqueItems`, `enum` and `const` as ajv keywords that compare by numbering. */
export const linearKeywords: CodeKeywordDefinition[] = [
  {
    keyword: 'uniqueItems',
    type: 'array',
    schemaType: 'boolean',
    // ajv's own message and params, so failures read the same.
    error: {
      message: ({ params: { i, j } }) => str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
      params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`,
    },
    code(cxt: KeywordCxt) {
      const { gen, data, schema } = cxt;
      if (schema !== true) return;
      const pair = gen.const('pair', _`${useFunction(gen, duplicateItems)}(${data})`);
      cxt.setParams({ i: _`${pair}[0]`, j: _`${pair}[1]` });
      cxt.fail(_`${pair} !== undefined`);
    },
  },
  {
    keyword: 'enum',
    schemaType: 'array',
    error: {
      message: 'must be equal to one of the allowed values',
      params: ({ schemaCode }) => _`{allowedValues: ${schemaCode}}`,
    },
    code(cxt: KeywordCxt) {
      const { gen, data, schemaValue } = cxt;
      cxt.fail(_`!${useFunction(gen, isOneOf)}(${data}, ${schemaValue})`);
    },
  },
  {
    keyword: 'const',
    error: {
      message: 'must be equal to constant',
      params: ({ schemaCode }) => _`{allowedValue: ${schemaCode}}`,
    },
    code(cxt: KeywordCxt) {
      const { gen, data, schemaValue } = cxt;
      cxt.fail(_`!${useFunction(gen, isConst)}(${data}, ${schemaValue})`);
    },
  },
];
