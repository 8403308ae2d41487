import { describe, expect, it } from 'vitest';
import {
  choicesOf,
  describeDecision,
  draftDecision,
  firstDraft,
  MAX_REASON_BYTES,
} from '../../functions/inbox/page/decide.ts';
import { attribute, type Field, fieldsOf, formFor, initialValues, readForm } from '../../functions/inbox/page/forms.ts';
import { prettyJson } from '../../functions/inbox/page/json.ts';
import { relativeTime, timeLeft, timeSince } from '../../functions/inbox/page/time.ts';
import type { AskView } from '../../functions/inbox/page/types.ts';

const refund = {
  type: 'object',
  properties: {
    account: { type: 'string', title: 'Account', description: 'Where the money goes', maxLength: 40 },
    method: { enum: ['card', 'voucher', 'bank'] },
    notify: { type: 'boolean', title: 'Tell the customer' },
    days: { type: 'integer', minimum: 1 },
    note: { type: 'string' },
  },
  required: ['account', 'method'],
};

/** A field's shape without ids, to compare. */
function shape(field: Field): unknown {
  const { id: _, ...rest } = field;
  return field.kind === 'object' ? { ...rest, properties: field.properties.map(shape) } : rest;
}

describe('formFor', () => {
  it('makes a fieldset of an object of strings, enums, booleans and numbers, labelled by title else name', () => {
    expect(shape(formFor(refund, 'a0-f'))).toEqual({
      kind: 'object',
      pointer: '',
      label: 'Answer',
      required: true,
      properties: [
        {
          kind: 'string',
          pointer: '/account',
          label: 'Account',
          description: 'Where the money goes',
          required: true,
          multiline: false,
          maxLength: 40,
        },
        { kind: 'enum', pointer: '/method', label: 'method', required: true, options: ['card', 'voucher', 'bank'] },
        { kind: 'boolean', pointer: '/notify', label: 'Tell the customer', required: false },
        { kind: 'number', pointer: '/days', label: 'days', required: false, integer: true },
        { kind: 'string', pointer: '/note', label: 'note', required: false, multiline: true },
      ],
    });
  });

  it('gives every field its own id under the prefix', () => {
    const ids = fieldsOf(formFor(refund, 'a3-f')).map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => id.startsWith('a3-f-'))).toBe(true);
  });

  it.each([
    ['a string', { type: 'string' }, 'string'],
    ['a number', { type: 'number', minimum: 0 }, 'number'],
    ['an integer', { type: 'integer' }, 'number'],
    ['a boolean', { type: 'boolean' }, 'boolean'],
    ['an enum of scalars', { enum: ['yes', 'no', 3, null] }, 'enum'],
    ['no schema', undefined, 'json'],
    ['the schema true', true, 'json'],
    ['an array', { type: 'array', items: { type: 'string' } }, 'json'],
    ['a choice of types', { type: ['string', 'null'] }, 'json'],
    ['anyOf', { anyOf: [{ type: 'string' }, { type: 'number' }] }, 'json'],
    ['a $ref', { $defs: { a: { type: 'string' } }, $ref: '#/$defs/a' }, 'json'],
    ['an enum of objects', { enum: [{ a: 1 }] }, 'json'],
    ['an object with an array property', { type: 'object', properties: { tags: { type: 'array' } } }, 'json'],
    [
      'an object requiring a property it does not describe',
      { type: 'object', properties: {}, required: ['x'] },
      'json',
    ],
    ['an object without properties', { type: 'object' }, 'json'],
    ['an object with patternProperties', { type: 'object', properties: {}, patternProperties: { x: {} } }, 'json'],
  ])('gives %s a %s field', (_, schema, kind) => {
    expect(formFor(schema as never, 'p').kind).toBe(kind);
  });

  it('nests objects up to three levels, then gives way to the JSON editor', () => {
    const nest = (depth: number): Record<string, unknown> =>
      depth === 0 ? { type: 'string' } : { type: 'object', properties: { inner: nest(depth - 1) } };
    expect(formFor(nest(3), 'p').kind).toBe('object');
    expect(formFor(nest(4), 'p').kind).toBe('json');
  });

  it('escapes property names in pointers (RFC 6901)', () => {
    const form = formFor({ type: 'object', properties: { 'a/b~c': { type: 'string' } } }, 'p');
    expect(fieldsOf(form)[1]?.pointer).toBe('/a~1b~0c');
  });
});

describe('readForm', () => {
  const form = formFor(refund, 'f');
  const id = (pointer: string) => fieldsOf(form).find((f) => f.pointer === pointer)?.id ?? '';
  const values = (set: Record<string, string | boolean>) => ({ ...initialValues(form, refund), ...set });

  it('reads the fields into the answer, leaving optional empty fields out', () => {
    expect(readForm(form, values({ [id('/account')]: 'DE-1', [id('/method')]: '2' }))).toEqual({
      value: { account: 'DE-1', method: 'bank', notify: false },
      errors: [],
    });
    expect(
      readForm(
        form,
        values({ [id('/account')]: 'x', [id('/method')]: '0', [id('/notify')]: true, [id('/days')]: ' 3 ' }),
      ).value,
    ).toEqual({ account: 'x', method: 'card', notify: true, days: 3 });
  });

  it('sends a required text left empty as the empty string, for the schema to judge', () => {
    expect(readForm(form, values({ [id('/method')]: '1' })).value).toEqual({
      account: '',
      method: 'voucher',
      notify: false,
    });
  });

  it('refuses a required choice left empty and a number that is not one, naming each field', () => {
    const read = readForm(form, values({ [id('/days')]: '3 days', [id('/note')]: 'hi' }));
    // What the other fields make, for the schema to check them too.
    expect(read.value).toEqual({ account: '', notify: false, note: 'hi' });
    expect(read.errors).toEqual([
      { id: id('/method'), message: 'Choose one.' },
      { id: id('/days'), message: 'Enter a whole number, like 12.' },
    ]);
  });

  it.each([
    ['1e3', 1000],
    ['-0.5', -0.5],
    ['.5', 0.5],
    ['7', 7],
  ])('reads the number %s', (text, number) => {
    const field = formFor({ type: 'number' }, 'n');
    expect(readForm(field, { [field.id]: text })).toEqual({ value: number, errors: [] });
  });

  it.each(['0x10', 'Infinity', '1e999', '1,5', 'NaN'])('refuses %s as a number', (text) => {
    const field = formFor({ type: 'number' }, 'n');
    expect(readForm(field, { [field.id]: text }).errors).toHaveLength(1);
  });

  it('parses the JSON editor, and says where it does not parse', () => {
    const field = formFor({ type: 'array' }, 'j');
    expect(readForm(field, { [field.id]: '[1, "two"]' }).value).toEqual([1, 'two']);
    expect(readForm(field, { [field.id]: '[1,' }).errors[0]?.message).toMatch(/^This is not valid JSON: /);
    expect(readForm(field, { [field.id]: '  ' }).errors[0]?.message).toBe('Enter a JSON value.');
  });

  it('starts from the schema defaults', () => {
    const schema = {
      type: 'object',
      properties: {
        n: { type: 'number', default: 5 },
        e: { enum: ['a', 'b'], default: 'b' },
        ok: { type: 'boolean', default: true },
      },
    };
    const field = formFor(schema, 'd');
    expect(readForm(field, initialValues(field, schema)).value).toEqual({ n: 5, e: 'b', ok: true });
  });
});

describe('attribute', () => {
  const form = formFor(refund, 'f');
  const id = (pointer: string) => fieldsOf(form).find((f) => f.pointer === pointer)?.id ?? '';

  it('puts a failure on the field at its path, and a missing property on that property', () => {
    expect(
      attribute(form, [
        { path: '/account', message: 'must NOT have more than 40 characters' },
        { path: '', message: "must have required property 'method'" },
        { path: '', message: 'must NOT have additional properties (extra)' },
      ]),
    ).toEqual([
      { id: id('/account'), message: 'Must NOT have more than 40 characters.' },
      { id: id('/method'), message: 'This field is required.' },
      { id: id(''), message: 'Must NOT have additional properties (extra).' },
    ]);
  });

  it('puts a failure inside a JSON value on the editor, with its path', () => {
    const field = formFor({ type: 'array' }, 'j');
    expect(attribute(field, [{ path: '/2', message: 'must be string' }])).toEqual([
      { id: field.id, message: 'At /2: must be string.' },
    ]);
  });
});

const approval: AskView = {
  toolCallId: 'c1',
  name: 'refund_order',
  args: { orderId: 'A-1', amount: 10 },
  kind: 'approval',
  prompt: 'Refund?',
  editable: true,
};
const answer: AskView = {
  toolCallId: 'c2',
  name: 'ask_human',
  args: {},
  kind: 'answer',
  prompt: null,
  answerSchema: refund,
};

describe('drafts and decisions', () => {
  it('offers approve, edit and reject for an approval ask, without edit when not editable, and later when several wait', () => {
    expect(choicesOf(approval, false)).toEqual(['approve', 'edit', 'reject']);
    expect(choicesOf({ ...approval, editable: false }, true)).toEqual(['approve', 'reject', 'later']);
    expect(choicesOf(answer, false)).toEqual(['answer', 'reject']);
  });

  it('starts an answer ask on its form and an approval ask undecided (later, when others wait)', () => {
    expect(firstDraft(answer, 1, true).choice).toBe('answer');
    expect(firstDraft(approval, 0, false).choice).toBeUndefined();
    expect(firstDraft(approval, 0, true).choice).toBe('later');
    expect(firstDraft(approval, 0, false).argsText).toBe(JSON.stringify(approval.args, null, 2));
  });

  it('asks for a choice, and makes approve, reject (with and without reason) and edit decisions', () => {
    const draft = firstDraft(approval, 0, false);
    expect(draftDecision(approval, 0, draft)).toEqual({
      kind: 'errors',
      errors: [{ id: 'a0-choice', message: 'Choose what to do with this request.' }],
    });
    expect(draftDecision(approval, 0, { ...draft, choice: 'approve' })).toEqual({
      kind: 'decision',
      decision: { toolCallId: 'c1', decision: 'approve' },
    });
    expect(draftDecision(approval, 0, { ...draft, choice: 'reject', reason: '  too much ' })).toMatchObject({
      decision: { toolCallId: 'c1', decision: 'reject', reason: 'too much' },
    });
    expect(draftDecision(approval, 0, { ...draft, choice: 'reject' })).toMatchObject({
      decision: { toolCallId: 'c1', decision: 'reject' },
    });
    const schema = { type: 'object' };
    expect(
      draftDecision({ ...approval, argsSchema: schema }, 0, { ...draft, choice: 'edit', argsText: '{"amount": 5}' }),
    ).toEqual({
      kind: 'decision',
      decision: { toolCallId: 'c1', decision: 'edit', args: { amount: 5 } },
      check: { schema, value: { amount: 5 }, field: 'args' },
    });
  });

  it('refuses edited arguments that are not a JSON object, and a reason over 2 KB', () => {
    const draft = { ...firstDraft(approval, 0, false), choice: 'edit' as const };
    expect(draftDecision(approval, 0, { ...draft, argsText: '[1]' })).toMatchObject({
      errors: [{ id: 'a0-args', message: 'The arguments must be a JSON object, in { }.' }],
    });
    expect(draftDecision(approval, 0, { ...draft, argsText: '{' })).toMatchObject({
      errors: [{ id: 'a0-args', message: expect.stringMatching(/^This is not valid JSON/) }],
    });
    const long = 'é'.repeat(MAX_REASON_BYTES / 2 + 1);
    expect(draftDecision(approval, 0, { ...draft, choice: 'reject', reason: long })).toMatchObject({
      errors: [
        { id: 'a0-reason', message: `The reason is ${MAX_REASON_BYTES + 2} bytes long; at most 2048 fit. Shorten it.` },
      ],
    });
  });

  it.each([
    [{ decision: 'approve' }, 'Approved'],
    [{ decision: 'reject', reason: 'not now' }, 'Rejected: not now'],
    [{ decision: 'reject' }, 'Rejected'],
    [{ decision: 'edit', args: { amount: 5 } }, 'Approved with edited arguments: {"amount":5}'],
    [{ answer: { account: 'x' } }, 'Answered: {"account":"x"}'],
    [{ answer: 'yes' }, 'Answered: yes'],
  ] as const)('describes %j as "%s"', (decision, text) => {
    expect(describeDecision(decision)).toBe(text);
  });
});

describe('text for reading', () => {
  it('shows JSON indented, with direction overrides and invisible characters escaped', () => {
    expect(prettyJson({ a: 'x\u202Ey\u200Bz' })).toBe('{\n  "a": "x\\u202ey\\u200bz"\n}');
  });

  it.each([
    [-3 * 60_000, '3 minutes ago'],
    [6 * 24 * 3600_000, 'in 6 days'],
    [7 * 24 * 3600_000 - 5000, 'in 7 days'],
    [(6 * 24 + 20) * 3600_000, 'in 7 days'],
    [-1 * 24 * 3600_000, 'yesterday'],
    [500, 'now'],
  ])('says %d ms from now as "%s"', (delta, text) => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(relativeTime(new Date(now + delta).toISOString(), now)).toBe(text);
  });

  it.each([
    // The page's clock ticks every 30 s: a decision made 2 s after its last tick is 2 s "after now".
    [2000, 'just now'],
    [-20_000, 'just now'],
    [-3 * 60_000, '3 minutes ago'],
    [-2 * 3600_000, '2 hours ago'],
  ])('says an instant that happened %d ms from the page’s clock as "%s", never as to come', (delta, text) => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(timeSince(new Date(now + delta).toISOString(), now)).toBe(text);
  });

  it('says how long is left, or since when it expired', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(timeLeft('2026-01-07T00:00:00Z', now)).toBe('expires in 6 days');
    expect(timeLeft('2025-12-31T22:00:00Z', now)).toBe('expired 2 hours ago');
  });
});
