import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { schemaFailures } from '../../functions/checkpoints/json-schema/index.ts';
import { type Field, type FormValues, fieldsOf, formFor, readForm } from '../../functions/inbox/page/forms.ts';
import type { JsonSchema } from '../../functions/inbox/page/types.ts';
import { inProcessApi } from './api.ts';

/**
 * The page refuses exactly what the server refuses, for the schemas it makes forms of. The page's verdict is its own
 * reading of the form (`readForm`: required choices, numbers) and then the validator worker's check — which runs
 * `schemaFailures` of `functions/checkpoints/json-schema/index.ts`, the function called here. The server's verdict is the
 * API's answer to the same value (or, where the page refused to make one, the nearest value a form could send: the
 * text as typed, the empty choice left out).
 */

const api = inProcessApi();
let runs = 0;

async function serverVerdict(schema: JsonSchema, value: unknown): Promise<number> {
  const runId = `agree-${++runs}`;
  const paused = await api.json('POST', `/runs/${runId}/pauses`, {
    format: 'openai-chat',
    messages: [
      { role: 'user', content: 'Refund A-1?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ask_human', arguments: '{}' } }],
      },
    ],
    asks: [{ toolCallId: 'c1', answerSchema: schema }],
  });
  expect(paused.status).toBe(201);
  const decided = await api.json('POST', `/runs/${runId}/resume`, {
    interruptId: paused.body.interruptId,
    decisions: [value === undefined ? { toolCallId: 'c1', answer: null } : { toolCallId: 'c1', answer: value }],
  });
  return decided.status;
}

/** What a form would send if it did not read its values: text as typed, empty choices and numbers left out. */
function asTyped(field: Field, values: FormValues): unknown {
  const raw = values[field.id];
  switch (field.kind) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const property of field.properties) {
        const value = asTyped(property, values);
        if (value !== undefined) out[property.pointer.slice(property.pointer.lastIndexOf('/') + 1)] = value;
      }
      return out;
    }
    case 'enum':
      return raw === '' ? undefined : field.options[Number(raw)];
    case 'boolean':
      return raw === true;
    default:
      return raw === '' && !field.required ? undefined : raw;
  }
}

/** Values for every field of `form`: text that is or is not a number, any choice or none, any string. */
function valuesFor(form: Field): fc.Arbitrary<FormValues> {
  const entries = fieldsOf(form)
    .filter((f) => f.kind !== 'object')
    .map((f): [string, fc.Arbitrary<string | boolean>] => {
      switch (f.kind) {
        case 'boolean':
          return [f.id, fc.boolean()];
        case 'enum':
          return [
            f.id,
            fc.oneof(
              { arbitrary: fc.constantFrom(...f.options.map((_, i) => String(i))), weight: 4 },
              { arbitrary: fc.constant(''), weight: 1 },
            ),
          ];
        case 'number':
          return [
            f.id,
            fc.oneof(
              { arbitrary: fc.constantFrom('7', '2.5', '10', ' 3 ', '1e1'), weight: 4 },
              { arbitrary: fc.constantFrom('', 'abc', '1e999', '-0', '0', '100', '101', '1e2'), weight: 2 },
              { arbitrary: fc.integer({ min: -1000, max: 1000 }).map(String), weight: 1 },
              {
                arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map(String),
                weight: 1,
              },
            ),
          ];
        default:
          return [
            f.id,
            fc.oneof(
              { arbitrary: fc.constantFrom('abc', 'ab12', 'DE-1', 'AB-12', 'x'), weight: 4 },
              { arbitrary: fc.constantFrom('', 'x'.repeat(41), 'A1'), weight: 1 },
              { arbitrary: fc.string({ maxLength: 50 }), weight: 1 },
            ),
          ];
      }
    });
  return fc.record(Object.fromEntries(entries));
}

const SCHEMAS: Array<[string, JsonSchema]> = [
  ['a bounded string with a pattern', { type: 'string', minLength: 2, maxLength: 40, pattern: '^[A-Z]{2}-\\d+$' }],
  ['an integer in a range', { type: 'integer', minimum: 0, maximum: 100 }],
  [
    'a number with exclusive bounds and a step',
    { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1000, multipleOf: 0.5 },
  ],
  ['an enum', { enum: ['card', 'voucher', 'bank'] }],
  [
    'an object of those, some required, nothing else allowed',
    {
      type: 'object',
      properties: {
        account: { type: 'string', title: 'Account', minLength: 1, maxLength: 40 },
        method: { enum: ['card', 'voucher', 'bank'] },
        notify: { type: 'boolean' },
        days: { type: 'integer', minimum: 1, maximum: 30 },
        amount: { type: 'number', maximum: 100 },
        code: { type: 'string', pattern: '^[a-z]+\\d*$' },
        nested: { type: 'object', properties: { note: { type: 'string', maxLength: 5 } }, required: ['note'] },
      },
      required: ['account', 'method', 'days'],
      additionalProperties: false,
    },
  ],
];

describe('the page and the server', () => {
  it.each(SCHEMAS)('refuse the same answers for %s', async (_, schema) => {
    const form = formFor(schema, 'f');
    expect(form.kind).not.toBe('json');
    let refused = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(valuesFor(form), async (values) => {
        const read = readForm(form, values);
        const pageRefuses =
          read.errors.length > 0 || ('value' in read && schemaFailures(schema, read.value).length > 0);
        const sent = read.errors.length > 0 ? asTyped(form, values) : read.value;
        const status = await serverVerdict(schema, sent);
        expect(status).toBe(pageRefuses ? 422 : 200);
        if (pageRefuses) refused++;
        else accepted++;
      }),
      { numRuns: 60, seed: 20261101 },
    );
    // Both verdicts were reached, so the property said something.
    expect(refused).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(0);
  });
});
