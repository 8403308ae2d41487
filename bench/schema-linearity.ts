import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { SCHEMA_LIMITS, schemaFailures, schemaProblems } from '../functions/checkpoints/json-schema/index.ts';

/**
 * Answer size against check time, for the schemas a hostile tenant or person could pick: Handback's checks
 * (`functions/checkpoints/json-schema/index.ts`) beside stock ajv with the same options (its own regular expressions and
 * keywords). Then what a refusal costs at pause time. `npx tsx bench/schema-linearity.ts`; a run takes about a minute.
 * Stock ajv runs only where it finishes within seconds; "—" marks a size it would take far longer on. The two `anyOf`
 * cases are the heaviest union a schema may apply to each item: past its budget of work (`SCHEMA_LIMITS.checkWork`)
 * Handback's check stops with a failure saying so, which is why its time stays flat.
 */

interface Case {
  name: string;
  schema: Record<string, unknown>;
  /** An answer of about `bytes` bytes of JSON. */
  answer: (bytes: number) => unknown;
  /** The largest answer stock ajv is run on. */
  stockUpTo: number;
}

const SIZES = [16 * 1024, 64 * 1024, 256 * 1024 - 64];
// The most branches of `{"type": "string"}` an item's `anyOf` may have: the item schema costs 2 + n units, each
// branch 2.
const UNION = Math.floor((SCHEMA_LIMITS.workPerRepeatedValue - 2) / 3);

const filled = <T>(bytes: number, each: number, make: (index: number) => T): T[] =>
  Array.from({ length: Math.max(1, Math.floor(bytes / each)) }, (_, index) => make(index));

const CASES: Case[] = [
  {
    name: 'pattern ^(a+)+$ on a…a!',
    schema: { type: 'string', pattern: '^(a+)+$' },
    answer: (bytes) => `${'a'.repeat(bytes - 3)}!`,
    stockUpTo: 0,
  },
  {
    name: 'patternProperties ^(a|a)+$, keys a…a!',
    schema: { type: 'object', patternProperties: { '^(a|a)+$': { type: 'number' } } },
    answer: (bytes) => ({ [`${'a'.repeat(bytes - 10)}!`]: 1 }),
    stockUpTo: 0,
  },
  {
    name: 'uniqueItems, distinct objects',
    schema: { type: 'array', uniqueItems: true },
    answer: (bytes) => filled(bytes, 16, (index) => ({ id: index })),
    stockUpTo: 256 * 1024,
  },
  {
    name: 'enum of 2,000 objects vs a wide object',
    schema: { enum: Array.from({ length: 2_000 }, (_, index) => ({ [`k${index}`]: 0 })) },
    answer: (bytes) => Object.fromEntries(filled(bytes, 12, (index) => [`key${index}`, 0])),
    stockUpTo: 256 * 1024,
  },
  {
    name: 'const of a wide object, on every item',
    schema: { items: { const: { a: [1, 2, 3], b: { c: 'x' } } } },
    answer: (bytes) => filled(bytes, 30, () => ({ b: { c: 'x' }, a: [1, 2, 3] })),
    stockUpTo: 256 * 1024,
  },
  {
    name: 'contains + minContains/maxContains',
    schema: { contains: { type: 'object', required: ['hit'] }, minContains: 1, maxContains: 1_000_000 },
    answer: (bytes) => filled(bytes, 12, (index) => (index % 3 ? { miss: 1 } : { hit: 1 })),
    stockUpTo: 256 * 1024,
  },
  {
    name: 'unevaluatedProperties, 16 anyOf branches',
    schema: {
      anyOf: Array.from({ length: 16 }, (_, branch) => ({
        patternProperties: { [`^p${branch}_`]: { type: 'number' } },
      })),
      unevaluatedProperties: false,
    },
    answer: (bytes) => Object.fromEntries(filled(bytes, 14, (index) => [`p${index % 16}_${index}`, 1])),
    stockUpTo: 256 * 1024,
  },
  {
    name: 'dependentSchemas on every member',
    schema: {
      additionalProperties: {
        type: 'object',
        dependentSchemas: { a: { required: ['b'] } },
        dependentRequired: { b: ['a'] },
      },
    },
    answer: (bytes) => Object.fromEntries(filled(bytes, 22, (index) => [`m${index}`, { a: 1, b: 2 }])),
    stockUpTo: 256 * 1024,
  },
  {
    name: 'prefixItems + items + unevaluatedItems',
    schema: { prefixItems: [{ type: 'string' }], items: { type: 'number' }, unevaluatedItems: false },
    answer: (bytes) => ['x', ...filled(bytes, 2, () => 1)],
    stockUpTo: 256 * 1024,
  },
  {
    name: `anyOf of ${UNION} branches per item, all fail`,
    schema: { items: { anyOf: Array.from({ length: UNION }, () => ({ type: 'string' })) } },
    answer: (bytes) => filled(bytes, 2, () => 0),
    stockUpTo: 16 * 1024,
  },
  {
    name: `anyOf of ${UNION} per item, the last passes`,
    schema: {
      items: {
        anyOf: [...Array.from({ length: UNION - 1 }, () => ({ type: 'string' })), { type: 'number' }],
      },
    },
    answer: (bytes) => filled(bytes, 2, () => 0),
    stockUpTo: 16 * 1024,
  },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * Median ms of `run` once warm: a first run untimed (unless it alone takes over a second, when the algorithm is what
 * shows), then runs until 200 ms have passed (at least one, at most 7).
 */
function time(run: () => unknown): number {
  const start = performance.now();
  run();
  const cold = performance.now() - start;
  if (cold > 1_000) return cold;
  const times: number[] = [];
  const started = performance.now();
  do {
    const begin = performance.now();
    run();
    times.push(performance.now() - begin);
  } while (times.length < 7 && performance.now() - started < 200);
  return median(times);
}

const stock = new Ajv2020({
  allErrors: true,
  strict: false,
  validateFormats: false,
  logger: false,
  addUsedSchema: false,
});
const pad = (text: string, width: number) => text.padEnd(width);
const ms = (value: number | undefined) =>
  value === undefined ? '—' : value < 10 ? value.toFixed(2) : value.toFixed(0);

console.log(`Node ${process.version}, ${new Date().toISOString().slice(0, 10)}; ms, median of up to 7 warm runs\n`);
console.log(`${pad('case', 58)}${pad('answer bytes', 14)}${pad('handback ms', 13)}stock ajv ms`);
for (const hostile of CASES) {
  const problems = schemaProblems(hostile.schema);
  if (problems.length > 0) throw new Error(`${hostile.name}: ${problems[0]?.message}`);
  let compiled: ValidateFunction | undefined;
  for (const size of SIZES) {
    const answer = hostile.answer(size);
    const bytes = JSON.stringify(answer).length;
    const ours = time(() => schemaFailures(hostile.schema as Record<string, unknown>, answer));
    let theirs: number | undefined;
    if (size <= hostile.stockUpTo) {
      compiled ??= stock.compile(hostile.schema);
      const validate = compiled;
      theirs = time(() => validate(answer));
    }
    console.log(`${pad(hostile.name, 58)}${pad(String(bytes), 14)}${pad(ms(ours), 13)}${ms(theirs)}`);
  }
}

console.log('\nStock ajv, pattern ^(a+)+$ on n a’s and a "!" (backtracking: doubles with each a; 40 would take hours)');
const redos = stock.compile({ type: 'string', pattern: '^(a+)+$' });
for (const count of [18, 20, 22, 24]) {
  console.log(`${pad(`n = ${count}`, 12)}${ms(time(() => redos(`${'a'.repeat(count)}!`)))} ms`);
}

console.log('\nAt pause time: schemaProblems, ms (a refusal, or the accepted schema)');
const chain = (levels: number) => {
  const $defs: Record<string, unknown> = { d0: { type: 'number' } };
  for (let level = 1; level <= levels; level++) {
    $defs[`d${level}`] = { allOf: [{ $ref: `#/$defs/d${level - 1}` }, { $ref: `#/$defs/d${level - 1}` }] };
  }
  return { $defs, $ref: `#/$defs/d${levels}` };
};
const PAUSE_CASES: Array<[string, unknown]> = [
  ['a definition shared 2^40 times over', chain(40)],
  [
    'a recursion through items and contains',
    { $defs: { n: { items: { $ref: '#/$defs/n' }, contains: { $ref: '#/$defs/n' } } }, $ref: '#/$defs/n' },
  ],
  [
    'a $ref cycle on one value',
    { $defs: { a: { anyOf: [{ $ref: '#/$defs/b' }] }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' },
  ],
  ['a backreference pattern', { pattern: '(a+)\\1' }],
  [
    'a 63 KB form of 500 fields (accepted)',
    {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 500 }, (_, index) => [
          `field_${index}`,
          {
            type: 'string',
            minLength: 1,
            maxLength: 200,
            pattern: '^[\\p{L}\\p{N} .,-]+$',
            description: 'x'.repeat(20),
          },
        ]),
      ),
      required: ['field_0'],
      additionalProperties: false,
    },
  ],
];
for (const [name, schema] of PAUSE_CASES) {
  const bytes = JSON.stringify(schema).length;
  let outcome = '';
  let run = 0;
  // Each run a schema of its own (another $comment), so the compiled-schema cache does not answer.
  const took = time(() => {
    run += 1;
    const problems = schemaProblems({ ...(schema as Record<string, unknown>), $comment: `run ${run}` });
    outcome = problems.length === 0 ? 'accepted' : 'refused';
  });
  console.log(`${pad(name, 46)}${pad(`${bytes} bytes`, 14)}${pad(`${ms(took)} ms`, 12)}${outcome}`);
}
const form = PAUSE_CASES[PAUSE_CASES.length - 1]?.[1] as Record<string, unknown>;
let run = 0;
const stockCompile = time(() => {
  run += 1;
  stock.compile({ ...form, $comment: `stock ${run}` });
});
console.log(`${pad('the same form, stock ajv compile alone', 46)}${pad('', 14)}${ms(stockCompile)} ms`);
