import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkAgainstSchema,
  checkSchema,
  SCHEMA_LIMITS,
  schemaFailures,
  schemaProblems,
} from '../../functions/checkpoints/json-schema/index.ts';
import { BadRequestError, InvalidAnswerError } from '../../functions/errors.ts';
import { JsonValueIds, jsonBytes, jsonShape } from '../../functions/json.ts';

/** `value` behind proxies that count every read the checks make of it (a get, a key list, a descriptor, an `in`). */
function counted<T>(value: T): { value: T; reads: () => number } {
  let reads = 0;
  const proxies = new WeakMap<object, object>();
  const wrap = (node: unknown): unknown => {
    if (typeof node !== 'object' || node === null) return node;
    let proxy = proxies.get(node);
    if (proxy === undefined) {
      proxy = new Proxy(node, {
        get(target, key, receiver) {
          reads += 1;
          return wrap(Reflect.get(target, key, receiver));
        },
        has(target, key) {
          reads += 1;
          return Reflect.has(target, key);
        },
        ownKeys(target) {
          reads += 1;
          return Reflect.ownKeys(target);
        },
        getOwnPropertyDescriptor(target, key) {
          reads += 1;
          return Reflect.getOwnPropertyDescriptor(target, key);
        },
      });
      proxies.set(node, proxy);
    }
    return proxy;
  };
  return { value: wrap(value) as T, reads: () => reads };
}

/** Reads the check of `answer` against `schema` makes of the answer. */
function readsOf(schema: Record<string, unknown> | boolean, answer: unknown): number {
  expect(schemaProblems(schema)).toEqual([]);
  const { value, reads } = counted(answer);
  schemaFailures(schema, value);
  return reads();
}

const nested = (depth: number, inner: unknown = []): unknown => {
  let value = inner;
  for (let level = 0; level < depth; level++) value = [value];
  return value;
};

const stockAjv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, logger: false });

describe('pattern and patternProperties', () => {
  it('fail 40 a’s and a "!" against ^(a+)+$ at once, where a backtracking engine would run for hours', () => {
    const failures = schemaFailures({ type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(40)}!`);
    expect(failures).toEqual([{ path: '', message: 'must match pattern "^(a+)+$"' }]);
  });

  it('check the property names of patternProperties on the same engine', () => {
    const schema = { type: 'object', patternProperties: { '^(a|a)+$': { type: 'number' } } };
    expect(schemaFailures(schema, { [`${'a'.repeat(40)}`]: 'x', [`${'a'.repeat(40)}!`]: 'y' })).toEqual([
      { path: `/${'a'.repeat(40)}`, message: 'must be number' },
    ]);
  });

  it.each([
    ['a backreference', '(a)\\1', /backreference \(\\1\)/],
    ['a named backreference', '(?<x>a)\\k<x>', /named backreference/],
    ['a lookahead', 'a(?=b)', /lookahead/],
    ['a negative lookahead', 'a(?!b)', /lookahead/],
    ['a lookbehind', '(?<=a)b', /lookbehind/],
    ['a negative lookbehind', '(?<!a)b', /lookbehind/],
    ['a pattern ECMA-262 cannot parse', '(', /not an ECMA-262 regular expression/],
    ['a repeat count RE2 cannot hold', 'a{1001}', /linear-time regular-expression engine \(RE2: .*repeat count/],
    ['a Unicode property RE2 does not know', '\\p{Script_Extensions=Greek}', /RE2: .*\\p\{Script_Extensions=Greek\}/],
  ])('refuse at pause a schema whose pattern has %s, naming the pattern and why', (_, pattern, why) => {
    const problems = schemaProblems({ type: 'string', pattern });
    expect(problems).toEqual([{ path: '/pattern', message: expect.stringContaining(JSON.stringify(pattern)) }]);
    expect(problems[0]?.message).toMatch(why);
  });

  it.each([
    ['patternProperties', { patternProperties: { '^(?=x)': {} } }, '/patternProperties/^(?=x)'],
    ['propertyNames', { propertyNames: { pattern: '(a)\\1' } }, '/propertyNames/pattern'],
    ['a definition', { $defs: { code: { pattern: '(?<!a)b' } } }, '/$defs/code/pattern'],
    ['an item', { items: { anyOf: [{ pattern: '\\k<n>(?<n>a)' }] } }, '/items/anyOf/0/pattern'],
  ])('refuse a pattern RE2 cannot run in %s, at its path', (_, schema, path) => {
    expect(schemaProblems(schema)).toEqual([{ path, message: expect.stringMatching(/cannot run|not an ECMA/) }]);
  });

  it('are refused with BadRequestError by checkSchema, the path prefixed', () => {
    const error = (() => {
      try {
        checkSchema({ pattern: '(a)\\1' }, 'argsSchema', '/asks/0/argsSchema');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).failures).toEqual([
      { path: '/asks/0/argsSchema/pattern', message: expect.stringMatching(/^argsSchema\/pattern "\(a\)\\\\1" uses/) },
    ]);
  });

  // Each pattern is valid ECMA-262 with `u`; the texts probe where RE2's own syntax means something else.
  const PATTERNS = [
    '^.$',
    '^.+$',
    '^\\s+$',
    '^\\S+$',
    '^[\\s]$',
    '^[^\\s]$',
    '^[\\S]$',
    '^[\\sa]$',
    '[]',
    '^[^]$',
    '^\\d+$',
    '^\\w+$',
    '\\bab\\b',
    'a$',
    '^a',
    '^\\u{1F600}$',
    '^\\uD83D\\uDE00$',
    '^[😀-😂]$',
    '^\\p{L}+$',
    '^\\p{Lu}$',
    '^\\P{L}$',
    '^\\p{Script=Greek}+$',
    '^\\p{General_Category=Decimal_Number}$',
    '^\\p{Letter}$',
    '^[\\p{L}\\d]+$',
    '^[[:]+$',
    '^[a-]+$',
    '^[-a]+$',
    '^[\\-\\]\\[]+$',
    '^(?<year>\\d{2})-(?:\\d{2})$',
    '^\\cJ$',
    '^\\0$',
    '^\\x41$',
    '^\\/$',
    '^a{2,3}$',
    '^a+?$',
    '^(?:ab|cd)+$',
    '^[\\b]$',
    '^\\f\\v$',
    '^[^a-c]$',
    '^[\\w-]+$',
    '^\\.$',
    '^\\u00e9$',
    '^[\\u00e0-\\u00ff]+$',
  ];
  const TEXTS = ['', 'a', 'A', 'aa', 'ab', 'b', 'é', 'Ω', 'αβ', '1', '12-34', '٣', '_', '-', '[', ':', ']', '.', '/'];
  const SPECIAL = ['\n', '\r', '\u2028', '\u2029', '\u00a0', '\ufeff', '\v', '\f', '\t', ' ', '\b', '\0', '😀'];

  it.each(PATTERNS)('match %s exactly where ECMA-262 with the u flag matches', (pattern) => {
    const expected = new RegExp(pattern, 'u');
    const schema = { type: 'string', pattern };
    expect(schemaProblems(schema)).toEqual([]);
    const texts = [...TEXTS, ...SPECIAL, ...SPECIAL.map((text) => `a${text}`), ...SPECIAL.map((text) => `${text}a`)];
    for (const text of texts) {
      expect({ text, matches: schemaFailures(schema, text).length === 0 }).toEqual({
        text,
        matches: expected.test(text),
      });
    }
  });

  it('match as ECMA-262 does on any text built of the characters where the engines differ (property)', () => {
    const text = fc
      .array(fc.constantFrom('a', 'b', 'é', '1', '_', '-', ' ', ...SPECIAL), { maxLength: 6 })
      .map((chars) => chars.join(''));
    fc.assert(
      fc.property(fc.constantFrom(...PATTERNS), text, (pattern, sample) => {
        const matches = schemaFailures({ type: 'string', pattern }, sample).length === 0;
        expect(matches).toBe(new RegExp(pattern, 'u').test(sample));
      }),
    );
  });
});

describe('uniqueItems', () => {
  it('reports two items equal as JSON values with ajv’s message and path', () => {
    const answer = { list: [{ a: 1, b: [1, { c: null }] }, 2, JSON.parse('{"b": [1.0, {"c": null}], "a": 1}'), 3] };
    expect(schemaFailures({ properties: { list: { uniqueItems: true } } }, answer)).toEqual([
      { path: '/list', message: 'must NOT have duplicate items (items ## 0 and 2 are identical)' },
    ]);
  });

  it.each([
    ['arrays in another order', [1, 2], [2, 1]],
    ['a number and its text', 1, '1'],
    ['zero and false', 0, false],
    ['null and an empty object', null, {}],
    ['an empty array and an empty object', [], {}],
    ['objects with another value', { a: 1 }, { a: '1' }],
    ['objects with one more key', { a: 1 }, { a: 1, b: null }],
  ])('tells %s apart', (_, first, second) => {
    expect(schemaFailures({ uniqueItems: true }, [first, second])).toEqual([]);
  });

  it('agrees with ajv’s own keyword, message included, on any array (property)', () => {
    const stock = stockAjv.compile({ uniqueItems: true });
    // ajv's deep equal calls a member named toString or valueOf as a method, and throws: leave those out here.
    const json = fc.jsonValue({ maxDepth: 2 }).filter((value) => !/"(toString|valueOf)"/.test(JSON.stringify(value)));
    const items = fc.array(fc.oneof(json, fc.constantFrom(1, { a: 1 }, [1], 'x')), {
      maxLength: 8,
    });
    fc.assert(
      fc.property(items, (array) => {
        stock(array);
        const expected = (stock.errors ?? []).map((error) => ({ path: error.instancePath, message: error.message }));
        expect(schemaFailures({ uniqueItems: true }, array)).toEqual(expected);
      }),
    );
  });

  it('reads the answer a number of times linear in its items, where ajv’s reads grow with their square', () => {
    const items = (count: number) => Array.from({ length: count }, (_, index) => ({ id: index, tags: ['x'] }));
    const small = readsOf({ uniqueItems: true }, items(500));
    const large = readsOf({ uniqueItems: true }, items(4_000));
    expect(large / small).toBeLessThan(8 * 1.2);
  });

  it('numbers each part of a deep answer once, however many levels check uniqueItems', () => {
    const schema = { $defs: { pair: { uniqueItems: true, items: { $ref: '#/$defs/pair' } } }, $ref: '#/$defs/pair' };
    const pairs = (depth: number): unknown => {
      let value: unknown = [];
      for (let level = 0; level < depth; level++) value = [value, level];
      return value;
    };
    const small = readsOf(schema, pairs(25));
    const large = readsOf(schema, pairs(200));
    expect(large / small).toBeLessThan(8 * 1.2);
  });
});

describe('enum and const', () => {
  it.each([
    ['an object in another key order', { enum: [{ a: 1, b: [true] }] }, JSON.parse('{"b":[true],"a":1.0}'), true],
    ['an array in another order', { enum: [[1, 2]] }, [2, 1], false],
    ['a number as text', { enum: [1] }, '1', false],
    ['a const object in another key order', { const: { x: { y: null, z: 'a' } } }, { x: { z: 'a', y: null } }, true],
    ['a const that is a prefix', { const: [1, 2] }, [1, 2, 3], false],
  ])('compare %s as JSON values', (_, schema, answer, passes) => {
    expect(schemaFailures(schema, answer).length === 0).toBe(passes);
  });

  it('compare objects with members named toString or valueOf, on which ajv’s deep equal throws', () => {
    expect(() => stockAjv.validate({ const: {} }, { toString: 0 })).toThrow(TypeError);
    expect(schemaFailures({ const: {} }, { toString: 0 })).toEqual([
      { path: '', message: 'must be equal to constant' },
    ]);
    expect(schemaFailures({ enum: [{ valueOf: 1 }] }, { valueOf: 1 })).toEqual([]);
    expect(() => stockAjv.validate({ uniqueItems: true }, [{}, { toString: 1 }])).toThrow(TypeError);
    expect(schemaFailures({ uniqueItems: true }, [{ toString: 1 }, {}, { toString: 1 }])).toEqual([
      { path: '', message: 'must NOT have duplicate items (items ## 0 and 2 are identical)' },
    ]);
  });

  it('keep ajv’s messages', () => {
    expect(schemaFailures({ properties: { a: { enum: ['x'] }, b: { const: 1 } } }, { a: 'y', b: 2 })).toEqual([
      { path: '/a', message: 'must be equal to one of the allowed values' },
      { path: '/b', message: 'must be equal to constant' },
    ]);
  });

  it('agree with ajv’s own keywords on any value (property)', () => {
    // ajv's deep equal calls a member named toString or valueOf as a method, and throws: leave those out here.
    const json = fc.jsonValue({ maxDepth: 2 }).filter((value) => !/"(toString|valueOf)"/.test(JSON.stringify(value)));
    fc.assert(
      fc.property(fc.array(json, { minLength: 1, maxLength: 4 }), json, (values, answer) => {
        const enumSchema = { enum: values };
        expect(schemaFailures(enumSchema, answer).length === 0).toBe(stockAjv.validate(enumSchema, answer));
        const constSchema = { const: values[0] };
        expect(schemaFailures(constSchema, answer).length === 0).toBe(stockAjv.validate(constSchema, answer));
      }),
    );
  });

  it('read the answer as often whatever the number of enum values, where ajv reads it once per value', () => {
    const answer = Object.fromEntries(Array.from({ length: 1_000 }, (_, index) => [`key${index}`, index]));
    const choices = (count: number) => ({ enum: Array.from({ length: count }, (_, index) => ({ [`k${index}`]: 1 })) });
    const few = readsOf(choices(100), answer);
    const many = readsOf(choices(800), answer);
    expect(many / few).toBeLessThan(1.2);
  });
});

describe('the work of a check', () => {
  const cases: Array<[string, Record<string, unknown>, (count: number) => unknown]> = [
    [
      'contains with minContains and maxContains',
      { contains: { type: 'object', required: ['hit'] }, minContains: 1, maxContains: 1_000_000 },
      (count) => Array.from({ length: count }, (_, index) => (index % 3 === 0 ? { hit: index } : { miss: index })),
    ],
    [
      'unevaluatedProperties after eight anyOf branches',
      {
        anyOf: Array.from({ length: 8 }, (_, branch) => ({
          patternProperties: { [`^p${branch}_`]: { type: 'number' } },
        })),
        unevaluatedProperties: false,
      },
      (count) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`p${index % 8}_${index}`, index])),
    ],
    [
      'unevaluatedItems after prefixItems in two anyOf branches',
      {
        anyOf: [{ prefixItems: [{}, { type: 'string' }] }, { prefixItems: [{}, {}, {}] }],
        unevaluatedItems: { type: 'number' },
      },
      (count) => Array.from({ length: count }, (_, index) => (index % 5 === 0 ? `s${index}` : index)),
    ],
    [
      'dependentSchemas and dependentRequired on many members',
      {
        dependentSchemas: { a: { required: ['b'] }, c: { properties: { d: { type: 'string' } } } },
        dependentRequired: { b: ['a'] },
        additionalProperties: { type: 'number' },
      },
      (count) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`m${index}`, index])),
    ],
    [
      'prefixItems then items',
      { prefixItems: [{ type: 'string' }, { type: 'number' }], items: { type: 'object', properties: { a: {} } } },
      (count) => ['a', 1, ...Array.from({ length: count }, (_, index) => ({ a: index }))],
    ],
    [
      'enum of objects on every item',
      { items: { enum: [{ kind: 'a' }, { kind: 'b' }, { kind: 'c', n: [1] }] } },
      (count) => Array.from({ length: count }, (_, index) => ({ kind: 'c', n: [index % 2] })),
    ],
    [
      'uniqueItems over nested arrays',
      { uniqueItems: true, items: { uniqueItems: true } },
      (count) => Array.from({ length: count }, (_, index) => [index, [index], { index }]),
    ],
    [
      'a recursive tree with uniqueItems and const at each level',
      {
        $defs: {
          node: { properties: { kids: { uniqueItems: true, items: { $ref: '#/$defs/node' } }, v: { const: 1 } } },
        },
        $ref: '#/$defs/node',
      },
      (count) => {
        let tree: unknown = { v: 1, kids: [] };
        for (let level = 0; level < count / 4; level++) tree = { v: 1, kids: [tree, { v: 2, kids: [] }] };
        return tree;
      },
    ],
  ];

  it.each(cases)('reads the answer linearly for %s', (_, schema, answer) => {
    const small = readsOf(schema, answer(250));
    const large = readsOf(schema, answer(2_000));
    expect(large / small).toBeGreaterThan(4);
    expect(large / small).toBeLessThan(8 * 1.2);
  });
});

describe('schemas refused when the pause is made', () => {
  const defsChain = (levels: number) => {
    const $defs: Record<string, unknown> = { d0: { type: 'number' } };
    for (let level = 1; level <= levels; level++) {
      $defs[`d${level}`] = { allOf: [{ $ref: `#/$defs/d${level - 1}` }, { $ref: `#/$defs/d${level - 1}` }] };
    }
    return { $defs, $ref: `#/$defs/d${levels}` };
  };
  const deepSchema = (levels: number) => {
    let schema: Record<string, unknown> = {};
    for (let level = 0; level < levels; level++) schema = { not: schema };
    return schema;
  };

  it.each([
    ['a $dynamicRef to an anchor that does not exist', { $dynamicRef: '#nope' }, '', /^answerSchema\/\$dynamicRef/],
    [
      'a nested $dynamicRef to an anchor that does not exist',
      { properties: { a: { $dynamicRef: '#nope' } } },
      '/properties/a',
      /\$dynamicRef "#nope" must name a \$dynamicAnchor/,
    ],
    [
      'a $dynamicRef by JSON pointer',
      { $dynamicAnchor: 'n', $defs: { a: {} }, items: { $dynamicRef: '#/$defs/a' } },
      '/items',
      /\$dynamicAnchor/,
    ],
    [
      'a $dynamicRef to an anchor not on the root',
      { $defs: { a: { $dynamicAnchor: 'n' } }, items: { $dynamicRef: '#n' } },
      '/items',
      /root/,
    ],
    ['a $ref to a missing anchor', { $ref: '#nope' }, '', /\$ref "#nope" does not resolve within the schema/],
    ['a $ref to a missing definition', { $ref: '#/$defs/missing' }, '', /does not point to a subschema/],
    ['a $ref to a remote URL', { $ref: 'https://example.com/s.json' }, '', /self-contained/],
    [
      'a $ref to the meta-schema',
      { $ref: 'https://json-schema.org/draft/2020-12/schema' },
      '',
      /does not resolve within the schema/,
    ],
    ['a relative $ref without an $id', { items: { $ref: 'other.json' } }, '/items', /self-contained/],
    [
      'a $ref to another document beside the $id',
      { $id: 'https://example.com/a.json', items: { $ref: 'b.json#/$defs/x' } },
      '/items',
      /self-contained/,
    ],
    ['a $ref to something not a schema', { enum: [{}], $ref: '#/enum/0' }, '', /does not point to a subschema/],
    ['a $ref to itself', { $ref: '#' }, '', /never end/],
    ['an anyOf that refers to its root', { anyOf: [{ type: 'string' }, { $ref: '#' }] }, '/anyOf/1', /never end/],
    [
      'a property that refers to itself',
      { properties: { a: { $ref: '#/properties/a' } } },
      '/properties/a',
      /never end/,
    ],
    [
      'two definitions that refer to each other',
      {
        $defs: { a: { $ref: '#/$defs/b' }, b: { allOf: [{ $ref: '#/$defs/a' }] } },
        properties: { x: { $ref: '#/$defs/a' } },
      },
      '/$defs/b/allOf/0',
      /never end/,
    ],
    // biome-ignore lint/suspicious/noThenProperty: "then" is a JSON Schema keyword
    ['a condition that refers to its root', { if: { type: 'object' }, then: { $ref: '#' } }, '/then', /never end/],
    ['draft-07', { $schema: 'http://json-schema.org/draft-07/schema#' }, '/$schema', /JSON Schema 2020-12/],
    ['2019-09', { $schema: 'https://json-schema.org/draft/2019-09/schema' }, '/$schema', /JSON Schema 2020-12/],
    ['a meta-schema of its own', { $schema: 'https://example.com/meta' }, '/$schema', /JSON Schema 2020-12/],
    [
      'a required vocabulary not known',
      { $vocabulary: { 'https://example.com/vocab/ui': true } },
      '/$vocabulary',
      /vocabulary "https:\/\/example.com\/vocab\/ui"/,
    ],
    ['an embedded $id', { $defs: { a: { $id: 'https://example.com/a', type: 'string' } } }, '/$defs/a/$id', /\$defs/],
    [
      'an $id that is also the meta-schema’s, embedded',
      { items: { $id: 'https://json-schema.org/draft/2020-12/schema' } },
      '/items/$id',
      /embeds a schema resource/,
    ],
    ['an $id with a fragment', { $id: 'https://example.com/a#frag' }, '/$id', /must match pattern/],
    [
      'an anchor declared twice',
      { $defs: { a: { $anchor: 'x' }, b: { $anchor: 'x' } } },
      '/$defs/a/$anchor',
      /second time/,
    ],
    ['$async, which would pass every answer', { $async: true, type: 'string' }, '/$async', /pass every answer/],
    ['$recursiveRef', { items: { $recursiveRef: '#' } }, '/items/$recursiveRef', /2019-09/],
    ['a definition shared 2^20 times over', defsChain(20), '', /units of work/],
    [
      'a recursion through both items and contains',
      { $defs: { n: { items: { $ref: '#/$defs/n' }, contains: { $ref: '#/$defs/n' } } }, $ref: '#/$defs/n' },
      '/$defs/n',
      /units of work/,
    ],
    [
      'a recursion through both properties and patternProperties',
      { properties: { a: { $ref: '#' } }, patternProperties: { '^a': { $ref: '#' } } },
      '',
      /units of work/,
    ],
    [
      'a union of 800 branches applied to every item',
      { items: { anyOf: Array.from({ length: 800 }, (_, index) => ({ const: index, minimum: 0 })) } },
      '/items',
      /units of work to each of any number of values of an answer .*over the limit of 2048 per value/,
    ],
    [
      'a recursion through a named member that applies more at each level',
      { properties: { next: { allOf: [{ $ref: '#' }, { $ref: '#' }] } } },
      '/properties/next',
      /units of work/,
    ],
    [
      'a heavy definition reached by name in 2^10 ways',
      (() => {
        const $defs: Record<string, unknown> = {
          d0: { anyOf: Array.from({ length: 300 }, () => ({ type: 'string' })) },
        };
        for (let level = 1; level <= 10; level++) {
          $defs[`d${level}`] = {
            properties: { a: { $ref: `#/$defs/d${level - 1}` }, b: { $ref: `#/$defs/d${level - 1}` } },
          };
        }
        return { $defs, $ref: '#/$defs/d10' };
      })(),
      '/$defs/d0',
      /units of work the schema would apply to the values an answer holds by name .*over the limit of 65536/,
    ],
    ['a schema nested 65 levels deep', deepSchema(64), '', /nests 65 levels deep as JSON, over the limit of 64/],
    [
      'a schema over 64 KB',
      { enum: Array.from({ length: 7_000 }, (_, index) => `choice ${index}`) },
      '',
      /bytes as JSON, over the limit of 65536/,
    ],
    ['a schema that is a string', 'object', '', /an object or a boolean/],
    ['a schema that is not JSON', { minimum: Number.NaN }, '', /must be JSON/],
  ])('refuses %s', (_, schema, path, message) => {
    const problems = schemaProblems(schema);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toEqual({ path, message: expect.stringMatching(message) });
    expect(problems[0]?.message).toMatch(/^answerSchema/);
  });

  it('refuses each of them quickly, however hostile', () => {
    // Not a timing assertion: a refusal that walked 2^40 paths would never return.
    expect(schemaProblems(defsChain(40))).toHaveLength(1);
  });

  it('bounds the schema by the limits it publishes', () => {
    expect(SCHEMA_LIMITS).toMatchObject({ bytes: 65_536, depth: 64, namedWork: 65_536, workPerRepeatedValue: 2_048 });
    expect(SCHEMA_LIMITS.listedWork).toBeLessThan(SCHEMA_LIMITS.checkWork);
    expect(schemaProblems(deepSchema(63))).toEqual([]);
  });
});

describe('schemas accepted', () => {
  const bigForm = {
    type: 'object',
    properties: Object.fromEntries(
      Array.from({ length: 600 }, (_, index) => [
        `field${index}`,
        { type: 'string', minLength: 1, maxLength: 200, pattern: '^[\\p{L} ]+$' },
      ]),
    ),
    required: ['field0'],
    additionalProperties: false,
  };
  it.each([
    [
      'a tree that refers to its root',
      { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#' } } } },
    ],
    [
      'any JSON value, by recursion',
      {
        $defs: {
          value: {
            anyOf: [
              { type: ['null', 'boolean', 'number', 'string'] },
              { type: 'array', items: { $ref: '#/$defs/value' } },
              { type: 'object', additionalProperties: { $ref: '#/$defs/value' } },
            ],
          },
        },
        $ref: '#/$defs/value',
      },
    ],
    ['a $dynamicRef to the root’s $dynamicAnchor', { $dynamicAnchor: 'node', items: { $dynamicRef: '#node' } }],
    ['a $ref by anchor', { $defs: { code: { $anchor: 'code', type: 'string' } }, items: { $ref: '#code' } }],
    [
      'a $ref by the $id’s own URL',
      {
        $id: 'https://example.com/answer.json',
        $defs: { a: { type: 'string' } },
        items: { $ref: 'answer.json#/$defs/a' },
      },
    ],
    [
      'a definition used twice on one value',
      { $defs: { s: { type: 'string' } }, allOf: [{ $ref: '#/$defs/s' }, { $ref: '#/$defs/s' }] },
    ],
    ['a $schema of 2020-12 with an empty fragment', { $schema: 'https://json-schema.org/draft/2020-12/schema#' }],
    [
      'draft-07 dependencies, both forms, which ajv still applies',
      { dependencies: { a: ['b'], c: { required: ['d'] } } },
    ],
    ['a boolean', false],
    ['unknown keywords and formats', { type: 'string', format: 'email', 'x-ui': { widget: 'textarea' } }],
    [
      'a union of 800 branches applied to the root',
      { anyOf: Array.from({ length: 800 }, (_, index) => ({ const: index, minimum: 0 })) },
    ],
    ['a linked list that recurses through a named member', { properties: { value: {}, next: { $ref: '#' } } }],
    ['a 600-field form near the size limit', bigForm],
  ])('accepts %s', (_, schema) => {
    expect(schemaProblems(schema)).toEqual([]);
  });

  it('checks answers against a recursive schema that refers to its root', () => {
    const schema = { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#' } } } };
    expect(schemaFailures(schema, { kids: [{ kids: [] }, { kids: 1 }] })).toEqual([
      { path: '/kids/1/kids', message: 'must be array' },
    ]);
  });

  it('never throws when it checks any value against a schema it accepted (property)', () => {
    const schemas = [
      { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#' } } }, uniqueItems: true },
      { $dynamicAnchor: 'n', anyOf: [{ type: 'string', pattern: '^(a|b)+$' }, { items: { $dynamicRef: '#n' } }] },
      // biome-ignore lint/suspicious/noThenProperty: "then" is a JSON Schema keyword
      { enum: [1, 'x', { a: [1] }], if: { type: 'object' }, then: { unevaluatedProperties: false } },
      { prefixItems: [{ const: 1 }], contains: { type: 'number' }, maxContains: 2, unevaluatedItems: false },
    ];
    for (const schema of schemas) expect(schemaProblems(schema)).toEqual([]);
    fc.assert(
      fc.property(fc.constantFrom(...schemas), fc.jsonValue(), (schema, answer) => {
        expect(Array.isArray(schemaFailures(schema, answer))).toBe(true);
      }),
    );
  });
});

describe('property names that objects inherit (the JSON-Schema-Test-Suite cases)', () => {
  it('require a property the answer has of its own: {} has no "toString" or "constructor"', () => {
    const schema = { type: 'object', required: ['toString', 'constructor'] };
    expect(schemaFailures(schema, {}).map((failure) => failure.message)).toEqual([
      "must have required property 'toString'",
      "must have required property 'constructor'",
    ]);
    expect(schemaFailures(schema, { toString: 1, constructor: 2 })).toEqual([]);
  });

  it('check only properties the answer has of its own', () => {
    const schema = { properties: { toString: { type: 'number' }, constructor: { type: 'number' } } };
    expect(schemaFailures(schema, {})).toEqual([]);
    expect(schemaFailures(schema, JSON.parse('{"toString":"x"}'))).toEqual([
      { path: '/toString', message: 'must be number' },
    ]);
  });

  it('refuse a schema listing "__proto__" in properties, which ajv would silently leave unchecked', () => {
    const schema = JSON.parse('{"properties":{"__proto__":{"type":"number"},"a":{"type":"string"}}}');
    expect(schemaProblems(schema)).toEqual([
      {
        path: '/properties/__proto__',
        message: 'answerSchema/properties/__proto__ names the property "__proto__", which cannot be checked here',
      },
    ]);
  });
});

describe('schemaFailures and checkAgainstSchema', () => {
  it('turn a stored schema that cannot be checked into a failure, not a 500', () => {
    expect(schemaFailures({ $dynamicRef: '#nope' }, null)).toEqual([
      { path: '', message: expect.stringMatching(/^cannot be checked: the schema\/\$dynamicRef/) },
    ]);
  });

  it('fail an answer nested deeper than the stack, against a recursive schema, instead of throwing', () => {
    const schema = { $defs: { n: { items: { $ref: '#/$defs/n' } } }, $ref: '#/$defs/n' };
    expect(schemaFailures(schema, nested(50_000))).toEqual([
      { path: '', message: 'is nested too deeply to be checked' },
    ]);
  });

  it('list every failure of an answer while listing them costs less than the budget', () => {
    const answer = Array.from({ length: 1_000 }, (_, index) => (index % 100 === 0 ? index : `item ${index}`));
    const failures = schemaFailures({ items: { type: 'string' } }, answer);
    expect(failures).toHaveLength(10);
    expect(failures[9]).toEqual({ path: '/900', message: 'must be string' });
  });

  it('stop at the first failure, and say so, when listing them all would cost more than the budget', () => {
    const answer = Array.from({ length: 100_000 }, (_, index) => (index % 100 === 0 ? index : 'item'));
    expect(schemaFailures({ items: { type: 'string' } }, answer)).toEqual([
      { path: '/0', message: 'must be string' },
      { path: '', message: expect.stringMatching(/^may fail in more places/) },
    ]);
    expect(schemaFailures({ items: { type: 'string' } }, answer.map(String))).toEqual([]);
  });

  it('fail, saying why, an answer whose check would cost more than its budget of work, however the schema is built', () => {
    const union = {
      items: { anyOf: [...Array.from({ length: 600 }, () => ({ type: 'string' })), { type: 'number' }] },
    };
    expect(schemaProblems(union)).toEqual([]);
    expect(
      schemaFailures(
        union,
        Array.from({ length: 100 }, () => 1),
      ),
    ).toEqual([]);
    expect(
      schemaFailures(
        union,
        Array.from({ length: 10_000 }, () => 1),
      ),
    ).toEqual([{ path: '', message: expect.stringMatching(/^cannot be checked: .* more than 4000000 units of work/) }]);
  });

  it('throws InvalidAnswerError listing every failure', () => {
    const error = (() => {
      try {
        checkAgainstSchema({ type: 'object', required: ['a'], properties: { b: { type: 'string' } } }, { b: 1 });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(InvalidAnswerError);
    expect((error as InvalidAnswerError).failures).toEqual([
      { path: '', message: "must have required property 'a'" },
      { path: '/b', message: 'must be string' },
    ]);
  });
});

describe('the JSON helpers', () => {
  it('count the bytes JSON.stringify writes, in UTF-8 (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonBytes(value)).toBe(new TextEncoder().encode(JSON.stringify(value)).byteLength);
      }),
    );
  });

  it('measure a value nested 100,000 levels deep without a stack overflow', () => {
    expect(jsonShape(nested(100_000))).toEqual({ bytes: 200_002, depth: 100_001 });
  });

  it.each([
    ['undefined', undefined],
    ['undefined in an array', [1, undefined]],
    ['infinity', [Number.POSITIVE_INFINITY]],
    ['a date', { at: new Date(0) }],
    ['a function', [() => 1]],
    ['a hole', new Array(2)],
  ])('say %s is not JSON', (_, value) => {
    expect(jsonBytes(value)).toBeUndefined();
  });

  it('leave out a member whose value is undefined, counting what JSON.stringify writes', () => {
    const value = { a: undefined, b: 1, c: { d: undefined } };
    expect(jsonBytes(value)).toBe(JSON.stringify(value).length);
  });

  it('say a value that contains itself is not JSON, but a value shared twice is', () => {
    const shared = { a: 1 };
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(jsonBytes([shared, shared])).toBe(17);
    expect(jsonBytes(cyclic)).toBeUndefined();
  });

  it('number two JSON values alike exactly when they are equal, key order aside (property)', () => {
    const sorted = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(sorted)
        : typeof value === 'object' && value !== null
          ? Object.fromEntries(
              Object.keys(value)
                .sort()
                .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
            )
          : value;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), (a, b) => {
        const ids = new JsonValueIds();
        expect(ids.idOf(a) === ids.idOf(b)).toBe(JSON.stringify(sorted(a)) === JSON.stringify(sorted(b)));
        expect(ids.idOf(a)).toBe(ids.idOf(JSON.parse(JSON.stringify(a))));
      }),
    );
  });
});

describe('the schema module in a browser', () => {
  it('uses no Node.js built-in', () => {
    const modules = readdirSync(new URL('../../functions/checkpoints/json-schema/', import.meta.url)).map(
      (name) => `json-schema/${name}`,
    );
    expect(modules).toContain('json-schema/index.ts');
    for (const file of [...modules.map((module) => `checkpoints/${module}`), 'json.ts']) {
      const source = readFileSync(new URL(`../../functions/${file}`, import.meta.url), 'utf8');
      expect(source).not.toMatch(/\bBuffer\.|from 'node:|require\(/);
    }
  });
});
