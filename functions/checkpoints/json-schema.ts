import {
  _,
  Ajv2020,
  type CodeGen,
  type CodeKeywordDefinition,
  type ErrorObject,
  type KeywordCxt,
  type Name,
  str,
  type ValidateFunction,
} from 'ajv/dist/2020.js';
import { RE2JS } from 're2js';
import { type AnswerFailure, BadRequestError, InvalidAnswerError } from '../errors.ts';
import type { JsonSchema } from './checkpoint-store.ts';
import { isPlainObject, JsonValueIds, jsonShape } from './json.ts';

/**
 * The JSON Schema (2020-12) checks of answers and edited arguments, in one place: a schema is checked and compiled
 * when a pause is recorded (one that cannot be compiled, or could not be checked in time linear in the answer, is
 * refused then with a 400, never a 500 at resume), and a value is checked against it when a person decides.
 *
 * Linear in the answer:
 * - `pattern` and `patternProperties` (and so `propertyNames` patterns) run on RE2 (`re2js`, a pure-JS port), which
 *   matches in time linear in the text. A pattern is first parsed as ECMA-262 with the `u` flag (what JSON Schema
 *   specifies), then rewritten so RE2 gives it the same meaning (`.`, `\s`, `\S`, `[]`, `[^]`, `\u` escapes,
 *   `\p{…}` names); one RE2 cannot run (backreferences, lookaround) is refused at pause time, naming it and why.
 * - `uniqueItems`, `enum` and `const` compare values by numbering them (`JsonValueIds`): each part of the answer is
 *   numbered once per check, where ajv's deep equal compares pairs (quadratic for `uniqueItems`, and once per `enum`
 *   value for a wide object).
 * - An analysis at pause time refuses the schemas whose `$ref`s make the work on one value unbounded: a `$ref` cycle
 *   that never goes into the answer (checking would never end), sharing that multiplies the subschemas applied to
 *   one value (`allOf` of two refs to a definition that does the same, forty deep), and recursions that apply more
 *   subschemas at each level of the answer (`items` and `contains` both recursing) — see `SCHEMA_LIMITS`.
 * - A meter in every compiled subschema charges its work as it runs, and stops a check past `checkWork`: whatever
 *   the schema, a check costs at most that much. A check lists every failure (ajv's `allErrors`) while that costs
 *   less than `listedWork`; past it, a second compile of the schema (made on first need) stops at the first failure,
 *   so a long list of error objects cannot exhaust memory.
 *
 * Browser-safe, for the person's inbox page, which bundles this module to check forms with the same semantics: no
 * `Buffer`, no `node:` imports. ajv compiles each schema to a function with `new Function`, so the page's
 * Content-Security-Policy must allow `'unsafe-eval'` in `script-src` (RE2 itself needs nothing).
 *
 * Weight of `re2js` 2.10.0 in a bundle: 150,563 bytes minified, 45,746 gzipped (esbuild 0.28.2, ESM, gzip -9):
 * `echo "export { RE2JS } from 're2js'" | npx esbuild --bundle --minify --format=esm | gzip -9 | wc -c`. This whole
 * module for the browser (ajv, re2js and the code here) is 307,464 bytes minified, 94,866 gzipped.
 */

/** Which schema of an ask: an `answer` ask's `answerSchema` or an `approval` ask's `argsSchema`. */
export type SchemaRole = 'answerSchema' | 'argsSchema';

/** The bounds a schema must keep to be accepted, and the budget of a check. */
export const SCHEMA_LIMITS = {
  /** Bytes of the schema as JSON (UTF-8). */
  bytes: 64 * 1024,
  /** Levels of JSON nesting of the schema (`{"properties": {"a": {}}}` is 3). */
  depth: 64,
  /**
   * Units of work the schema may apply, in all, to the values of an answer it reaches by name (the root, members named
   * in `properties`, `prefixItems`), counting each value as often as `$ref`s make it reachable. A subschema applied
   * to a value costs one plus its number of keywords and entries (`properties`, `required`, `anyOf`, …), so a
   * schema without `$ref`s costs about its own size.
   */
  namedWork: 65_536,
  /**
   * Units of work the schema may apply to each value of which an answer may hold any number: items, members no
   * `properties` names, property names, and every value under a recursion. An answer of n values costs at most
   * about `namedWork + n × workPerRepeatedValue` (and never more than `checkWork`).
   */
  workPerRepeatedValue: 2_048,
  /**
   * Units of work a check may spend listing every failure of an answer; past it, the check starts again and stops at
   * the first failure: ajv builds an error object per failing keyword, and a list that long would only exhaust memory.
   */
  listedWork: 200_000,
  /**
   * Units of work one check of an answer may spend, measured as it runs (each subschema applied charges its keywords
   * and entries, and the length of the string, array or object it loops over). An answer that needs more fails with
   * a failure saying so: whatever the schema and the answer, a check stops within a second or two
   * (`npx tsx bench/schema-linearity.ts`: the heaviest union allowed per item).
   */
  checkWork: 4_000_000,
  /** Steps the analysis may take at pause time before it calls the schema too complex. */
  analysisSteps: 2_000_000,
} as const;

/** Why `schema` is not a usable JSON Schema 2020-12 (empty when it is); paths are relative to the schema. */
export function schemaProblems(schema: unknown, role: SchemaRole = 'answerSchema'): AnswerFailure[] {
  const prepared = prepare(schema);
  if ('problems' in prepared) {
    return prepared.problems.map((problem) => ({ path: problem.path, message: `${role}${problem.message}` }));
  }
  return [];
}

/** Throws `BadRequestError` naming each problem when `schema` is not usable (paths prefixed with `at`). */
export function checkSchema(schema: unknown, role: SchemaRole, at: string): void {
  const problems = schemaProblems(schema, role);
  if (problems.length === 0) return;
  const failures = problems.map((problem) => ({ path: `${at}${problem.path}`, message: problem.message }));
  throw new BadRequestError(`The ${role} is not usable: ${failures.map((f) => f.message).join('; ')}.`, failures);
}

/**
 * The failures of `value` against `schema` (empty when it passes): every failure, or — when listing them all would
 * cost more than `SCHEMA_LIMITS.listedWork` — the first, and a last entry saying so; an answer whose check would cost
 * more than `SCHEMA_LIMITS.checkWork` gets one failure saying that. The schema was checked when the pause was made.
 */
export function schemaFailures(schema: JsonSchema, value: unknown): AnswerFailure[] {
  const prepared = prepare(schema);
  if ('problems' in prepared) {
    // Only a schema stored before these checks existed gets here: say so, as a failure, rather than a 500.
    const why = prepared.problems.map((problem) => `the schema${problem.message}`).join('; ');
    return [{ path: '', message: `cannot be checked: ${why}` }];
  }
  const listed = run(prepared.listing, value, SCHEMA_LIMITS.listedWork);
  if (listed !== 'over') return listed;
  try {
    prepared.verdict ??= compile(prepared.metered, verdictAjv());
  } catch (cause) {
    // Not seen: the same schema compiled a moment ago with every failure listed.
    return [{ path: '', message: `cannot be checked: the schema cannot be compiled (${(cause as Error).message})` }];
  }
  const first = run(prepared.verdict, value, SCHEMA_LIMITS.checkWork);
  if (first === 'over') {
    return [
      {
        path: '',
        message: `cannot be checked: checking it against this schema takes more than ${SCHEMA_LIMITS.checkWork} units of work; a smaller answer can be`,
      },
    ];
  }
  if (first.length === 0) return first;
  return [
    ...first,
    { path: '', message: 'may fail in more places: the answer is too large for this schema to list every failure' },
  ];
}

/** The failures of `value` by `validate`, or `over` when it would take more than `limit` units of work. */
function run(validate: ValidateFunction, value: unknown, limit: number): AnswerFailure[] | 'over' {
  activeIds = new JsonValueIds();
  meter.used = 0;
  meter.limit = limit;
  try {
    if (validate(value)) return [];
  } catch (cause) {
    if (cause === OVER_LIMIT) return 'over';
    // A recursive schema follows the answer as deep as it goes; the HTTP edge bounds that depth, a library caller
    // might not.
    if (cause instanceof RangeError) return [{ path: '', message: 'is nested too deeply to be checked' }];
    throw cause;
  } finally {
    activeIds = undefined;
    meter.limit = Number.POSITIVE_INFINITY;
  }
  return (validate.errors ?? []).map(toFailure);
}

/** Throws `InvalidAnswerError` listing every failure when `value` fails `schema`; `what` names the value. */
export function checkAgainstSchema(
  schema: JsonSchema,
  value: unknown,
  what = "The answer does not match the pause's answerSchema",
): void {
  const failures = schemaFailures(schema, value);
  if (failures.length === 0) return;
  throw new InvalidAnswerError(
    `${what}: ${failures.map((f) => `${f.path || '/'} ${f.message}`).join('; ')}.`,
    failures,
  );
}

/**
 * Whether `source` can be a `pattern` here, and if not why: it must be an ECMA-262 regular expression (with the `u`
 * flag, as JSON Schema specifies) that RE2 can run with the same meaning.
 */
export function patternProblem(source: string): string | undefined {
  const compiled = linearPattern(source);
  return 'problem' in compiled ? compiled.problem : undefined;
}

function toFailure(error: ErrorObject): AnswerFailure {
  const detail = error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : '';
  return { path: error.instancePath, message: `${error.message ?? 'is invalid'}${detail}` };
}

// ---------------------------------------------------------------------------------------------------------------
// Preparing a schema: bounds, the meta-schema, the analysis, the compile, and a probe — once per distinct schema.

/** A problem with a schema; `message` starts with the path, so the role can be put before it. */
interface Problem {
  path: string;
  message: string;
}

/** What a check of an answer needs: the schema as compiled, and as compiled again when an answer needs it. */
interface Checker {
  /** The schema with its meter (`metered`), as both compiles take it. */
  metered: JsonSchema;
  /** Lists every failure (`allErrors`). */
  listing: ValidateFunction;
  /**
   * Stops at the first failure: for answers whose every failure would be too many to list. Compiled on first need,
   * since compiling is the slow part of accepting a large schema and most answers never need it.
   */
  verdict?: ValidateFunction;
}

const SCHEMA_2020 = 'https://json-schema.org/draft/2020-12/schema';
// Compiled with this `$id` when the schema has none: with `addUsedSchema: false` ajv cannot resolve `"$ref": "#"`
// in a schema without one.
const DEFAULT_ID = 'urn:handback:schema';
// Values checked once after the compile, so that a schema that throws on a value of some type is refused at pause.
const PROBES: unknown[] = [null, true, 0, 0.5, '', [], {}, [null], { '': null }];

const prepared = new Map<string, Checker>();
const PREPARED_MAX = 64;

function prepare(schema: unknown): Checker | { problems: Problem[] } {
  if (typeof schema !== 'boolean' && !isPlainObject(schema)) {
    return { problems: [{ path: '', message: ' must be a JSON Schema: an object or a boolean' }] };
  }
  const shape = jsonShape(schema);
  if (shape === undefined) {
    return {
      problems: [{ path: '', message: ' must be JSON (no undefined, functions, cycles or non-finite numbers)' }],
    };
  }
  if (shape.bytes > SCHEMA_LIMITS.bytes) {
    return {
      problems: [{ path: '', message: ` is ${shape.bytes} bytes as JSON, over the limit of ${SCHEMA_LIMITS.bytes}` }],
    };
  }
  if (shape.depth > SCHEMA_LIMITS.depth) {
    return {
      problems: [
        { path: '', message: ` nests ${shape.depth} levels deep as JSON, over the limit of ${SCHEMA_LIMITS.depth}` },
      ],
    };
  }
  const key = JSON.stringify(schema);
  const cached = prepared.get(key);
  if (cached) {
    // Most recently used last, so the oldest is evicted first.
    prepared.delete(key);
    prepared.set(key, cached);
    return cached;
  }
  const analysed = typeof schema === 'boolean' ? { charges: new Map<string, Charge>() } : objectSchemaProblems(schema);
  if ('problems' in analysed) return analysed;
  let checker: Checker;
  try {
    const copy = metered(schema, analysed.charges);
    checker = { metered: copy, listing: compile(copy, listingAjv()) };
  } catch (cause) {
    return { problems: [{ path: '', message: ` cannot be compiled: ${(cause as Error).message}` }] };
  }
  for (const probe of PROBES) {
    activeIds = new JsonValueIds();
    try {
      checker.listing(probe);
    } catch (cause) {
      return {
        problems: [
          { path: '', message: ` cannot check a value like ${JSON.stringify(probe)}: ${(cause as Error).message}` },
        ],
      };
    } finally {
      activeIds = undefined;
    }
  }
  if (prepared.size >= PREPARED_MAX) {
    const oldest = prepared.keys().next().value;
    if (oldest !== undefined) prepared.delete(oldest);
  }
  prepared.set(key, checker);
  return checker;
}

function objectSchemaProblems(schema: Record<string, unknown>): Analysis | { problems: Problem[] } {
  const declared = schema.$schema;
  if (declared !== undefined && declared !== SCHEMA_2020 && declared !== `${SCHEMA_2020}#`) {
    return {
      problems: [
        {
          path: '/$schema',
          message: ` must be JSON Schema 2020-12 (it declares ${JSON.stringify(declared)}); drop "$schema" or set it to "${SCHEMA_2020}"`,
        },
      ],
    };
  }
  const validator = listingAjv();
  let valid: boolean;
  try {
    valid = validator.validateSchema(schema) as boolean;
  } catch (cause) {
    return {
      problems: [
        { path: '', message: ` cannot be checked against the 2020-12 meta-schema: ${(cause as Error).message}` },
      ],
    };
  }
  if (!valid) {
    return {
      problems: (validator.errors ?? []).map((error) => ({
        path: error.instancePath,
        message: `${error.instancePath} ${error.message ?? 'is invalid'} (JSON Schema 2020-12)`,
      })),
    };
  }
  return analyse(schema);
}

function compile(schema: JsonSchema, instance: Ajv2020): ValidateFunction {
  const withId = typeof schema === 'object' && schema.$id === undefined ? { $id: DEFAULT_ID, ...schema } : schema;
  return instance.compile(withId);
}

// `format` is an annotation in 2020-12 unless a schema opts into format assertion; ajv follows that with
// `validateFormats: false`. Unknown keywords are allowed, as the specification allows them. `addUsedSchema: false`:
// two pauses may carry different schemas with the same `$id`, which would clash in one shared instance; and the
// instances are shared because building one compiles the 2020-12 meta-schemas (tens of milliseconds) — and built on
// first use, not at import, so a cold start without answer schemas never pays for it. ajv keeps every schema it
// compiled (and every pattern) for the instance's life, so an instance is retired after `COMPILES_PER_INSTANCE`
// compiles: a warm Lambda seeing many tenants' schemas does not grow without bound. `inlineRefs: false`: a `$ref`'s
// target is compiled once and called, not copied into every place that uses it, so the code stays as big as the
// schema.
const COMPILES_PER_INSTANCE = 256;
const listingAjv = sharedAjv(true);
const verdictAjv = sharedAjv(false);

function sharedAjv(allErrors: boolean): () => Ajv2020 {
  let instance: Ajv2020 | undefined;
  let compiles = 0;
  return () => {
    if (instance === undefined || compiles >= COMPILES_PER_INSTANCE) {
      compiles = 0;
      instance = new Ajv2020({
        allErrors,
        strict: false,
        validateFormats: false,
        // A required or listed property must be the value's own: `{}` has no "toString" (JSON-Schema-Test-Suite).
        ownProperties: true,
        logger: false,
        addUsedSchema: false,
        inlineRefs: false,
        code: { regExp: linearRegExpEngine },
      });
      for (const keyword of linearKeywords) {
        instance.removeKeyword(keyword.keyword as string);
        instance.addKeyword(keyword);
      }
      instance.addKeyword(meterKeyword);
    }
    compiles += 1;
    return instance;
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The meter: every subschema of a compiled schema charges the work it does as it is applied, so a check stops once it
// has spent its budget, whatever the schema and the answer.

/**
 * What a subschema charges each time it is applied: `[own, strings, arrays, objects, patterns]` — its own work, then
 * per character of a string (`minLength`, `maxLength`, `pattern` each read it), per item of an array (each keyword
 * that loops over the items), per member of an object (each keyword that loops over the members), and per member and
 * character of its name (each of `patternProperties`).
 */
type Charge = [number, number, number, number, number];

// The keyword the compiled copy of a schema carries in each subschema object; a tenant's own is overwritten.
const METER = 'x-handback-work';
const OVER_LIMIT = new Error('The check of the answer would cost more than its budget of work.');
const meter = { used: 0, limit: Number.POSITIVE_INFINITY };

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

const meterKeyword: CodeKeywordDefinition = {
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
function metered(schema: JsonSchema, charges: Map<string, Charge>): JsonSchema {
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

// ---------------------------------------------------------------------------------------------------------------
// `uniqueItems`, `enum` and `const`, linear: ajv's compare values pairwise with a deep equal.

// The numbering of the value being checked, so that each of its parts is numbered once per check. Checks are
// synchronous, so one at a time; outside a check (ajv checking a schema against the meta-schema) each call numbers
// afresh.
let activeIds: JsonValueIds | undefined;
const ids = (): JsonValueIds => activeIds ?? new JsonValueIds();

const duplicateItems = (items: unknown[]) => ids().duplicateItems(items);
const isOneOf = (value: unknown, values: unknown[]) => ids().isOneOf(value, values);
const isConst = (value: unknown, constant: unknown) => ids().equal(value, constant);

function useFunction(gen: CodeGen, ref: (...args: never[]) => unknown): Name {
  return gen.scopeValue('func', { ref });
}

const linearKeywords: CodeKeywordDefinition[] = [
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

// ---------------------------------------------------------------------------------------------------------------
// Patterns on RE2.

type LinearPattern = { regExp: RE2JS } | { problem: string };

const patterns = new Map<string, LinearPattern>();
const PATTERNS_MAX = 256;

/** `source` compiled for RE2, with the meaning ECMA-262 gives it under the `u` flag, or why it cannot be. */
function linearPattern(source: string): LinearPattern {
  const known = patterns.get(source);
  if (known) return known;
  const result = compilePattern(source);
  if (patterns.size >= PATTERNS_MAX) patterns.clear();
  patterns.set(source, result);
  return result;
}

function compilePattern(source: string): LinearPattern {
  try {
    // Only parsed, never run: V8 parses a pattern in time linear in its length.
    new RegExp(source, 'u');
  } catch (cause) {
    return { problem: `is not an ECMA-262 regular expression (${(cause as Error).message})` };
  }
  let translated: string;
  try {
    translated = toRe2(source);
  } catch (cause) {
    if (cause instanceof UnsupportedPattern) return { problem: cause.message };
    throw cause;
  }
  try {
    return { regExp: RE2JS.compile(translated) };
  } catch (cause) {
    return {
      problem: `cannot run on a linear-time regular-expression engine (RE2: ${(cause as Error).message})`,
    };
  }
}

/** ajv's `code.regExp`: every `pattern` and `patternProperties` of a compiled schema runs on RE2. */
const linearRegExpEngine = Object.assign(
  (source: string) => {
    const compiled = linearPattern(source);
    if ('problem' in compiled) throw new Error(`pattern ${JSON.stringify(source)} ${compiled.problem}`);
    const { regExp } = compiled;
    // ajv keys its cache of patterns by `toString()`: it must differ between patterns.
    return { test: (text: string) => regExp.test(text), toString: () => `/${source}/u (RE2)` };
  },
  { code: 'handbackLinearRegExp' },
);

class UnsupportedPattern extends Error {}

const hex = (codePoint: number) => `\\x{${codePoint.toString(16)}}`;
const rangesText = (ranges: ReadonlyArray<readonly [number, number]>) =>
  ranges.map(([low, high]) => (low === high ? hex(low) : `${hex(low)}-${hex(high)}`)).join('');

// ECMA-262 `\s`: WhiteSpace and LineTerminator. RE2's `\s` is ASCII only.
const WHITESPACE: ReadonlyArray<readonly [number, number]> = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const NOT_WHITESPACE = complement(WHITESPACE);
const WHITESPACE_TEXT = rangesText(WHITESPACE);
const NOT_WHITESPACE_TEXT = rangesText(NOT_WHITESPACE);
// ECMA-262 `.` stops at every line terminator; RE2's only at `\n`.
const DOT = `[^${rangesText([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
])}]`;
const ANYTHING = `[${hex(0)}-${hex(0x10ffff)}]`;
const NOTHING = `[^${hex(0)}-${hex(0x10ffff)}]`;

function complement(ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const result: Array<[number, number]> = [];
  let next = 0;
  for (const [low, high] of ranges) {
    if (low > next) result.push([next, low - 1]);
    next = high + 1;
  }
  if (next <= 0x10ffff) result.push([next, 0x10ffff]);
  return result;
}

// ECMA-262 names General_Category values long or short; RE2 knows the short ones.
const GENERAL_CATEGORIES: Record<string, string> = {
  Letter: 'L',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Combining_Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
};

function propertyName(body: string): string {
  const equals = body.indexOf('=');
  if (equals < 0) return GENERAL_CATEGORIES[body] ?? body;
  const name = body.slice(0, equals);
  const value = body.slice(equals + 1);
  if (name === 'General_Category' || name === 'gc') return GENERAL_CATEGORIES[value] ?? value;
  if (name === 'Script' || name === 'sc') return value;
  // Script_Extensions and the like: RE2 refuses the name, and the pattern is refused with its message.
  return body;
}

/** One unit a class or the pattern is built of: a code point, or a set written for RE2 outside and inside a class. */
type Atom = { char: number } | { set: string; inClass: string } | { assertion: string };

/**
 * `source`, a valid ECMA-262 `u` pattern, rewritten in RE2 syntax with the same meaning. Literal characters in classes
 * are written as `\x{…}`, so nothing ECMA-262 treats as literal (`[`, `:`, `&`, `-` at an edge) means more to RE2.
 */
function toRe2(source: string): string {
  let at = 0;
  let out = '';

  const codePointAt = (index: number) => source.codePointAt(index) as number;
  const take = () => {
    const codePoint = codePointAt(at);
    at += codePoint > 0xffff ? 2 : 1;
    return codePoint;
  };
  const hexDigits = (count: number) => {
    const digits = source.slice(at, at + count);
    at += count;
    return Number.parseInt(digits, 16);
  };

  function escaped(inClass: boolean): Atom {
    const letter = String.fromCodePoint(take());
    switch (letter) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
        return { set: `\\${letter}`, inClass: `\\${letter}` };
      case 's':
        return { set: `[${WHITESPACE_TEXT}]`, inClass: WHITESPACE_TEXT };
      case 'S':
        return { set: `[^${WHITESPACE_TEXT}]`, inClass: NOT_WHITESPACE_TEXT };
      case 'b':
        return inClass ? { char: 0x08 } : { assertion: '\\b' };
      case 'B':
        return { assertion: '\\B' };
      case 'f':
        return { char: 0x0c };
      case 'n':
        return { char: 0x0a };
      case 'r':
        return { char: 0x0d };
      case 't':
        return { char: 0x09 };
      case 'v':
        return { char: 0x0b };
      case '0':
        return { char: 0 };
      case 'c':
        return { char: take() % 32 };
      case 'x':
        return { char: hexDigits(2) };
      case 'u': {
        if (source[at] === '{') {
          const end = source.indexOf('}', at);
          const codePoint = Number.parseInt(source.slice(at + 1, end), 16);
          at = end + 1;
          return { char: codePoint };
        }
        const unit = hexDigits(4);
        // Under `u`, an escaped surrogate pair is the one code point it encodes.
        if (unit >= 0xd800 && unit <= 0xdbff && /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(source.slice(at, at + 6))) {
          at += 2;
          const low = hexDigits(4);
          return { char: 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00) };
        }
        return { char: unit };
      }
      case 'p':
      case 'P': {
        const end = source.indexOf('}', at);
        const name = propertyName(source.slice(at + 1, end));
        at = end + 1;
        return { set: `\\${letter}{${name}}`, inClass: `\\${letter}{${name}}` };
      }
      case 'k':
        throw new UnsupportedPattern('uses a named backreference (\\k<…>), which a linear-time engine cannot run');
      default:
        if (letter >= '1' && letter <= '9') {
          throw new UnsupportedPattern(`uses a backreference (\\${letter}), which a linear-time engine cannot run`);
        }
        // An escaped syntax character (`\.`, `\/`, `\-`, …) is itself.
        return { char: letter.codePointAt(0) as number };
    }
  }

  function classAtom(): Atom {
    const codePoint = take();
    return codePoint === 0x5c ? escaped(true) : { char: codePoint };
  }

  function characterClass(): string {
    let negated = false;
    if (source[at] === '^') {
      negated = true;
      at += 1;
    }
    let body = '';
    while (source[at] !== ']') {
      const low = classAtom();
      if ('char' in low && source[at] === '-' && source[at + 1] !== ']') {
        at += 1;
        const high = classAtom() as { char: number };
        body += `${hex(low.char)}-${hex(high.char)}`;
      } else {
        body += 'char' in low ? hex(low.char) : 'inClass' in low ? low.inClass : '';
      }
    }
    at += 1;
    if (body === '') return negated ? ANYTHING : NOTHING;
    return `[${negated ? '^' : ''}${body}]`;
  }

  function group(): string {
    if (source[at] !== '?') return '(';
    const rest = source.slice(at, at + 3);
    if (rest.startsWith('?:')) {
      at += 2;
      return '(?:';
    }
    if (rest.startsWith('?=') || rest.startsWith('?!')) {
      throw new UnsupportedPattern('uses a lookahead ((?=…) or (?!…)), which a linear-time engine cannot run');
    }
    if (rest === '?<=' || rest === '?<!') {
      throw new UnsupportedPattern('uses a lookbehind ((?<=…) or (?<!…)), which a linear-time engine cannot run');
    }
    if (rest.startsWith('?<')) {
      // A named group: its name matters only to backreferences, which are refused.
      at = source.indexOf('>', at) + 1;
      return '(?:';
    }
    throw new UnsupportedPattern('uses inline modifiers ((?i:…)), which are not part of ECMA-262 here');
  }

  while (at < source.length) {
    const codePoint = take();
    switch (codePoint) {
      case 0x5c: {
        const atom = escaped(false);
        out += 'char' in atom ? hex(atom.char) : 'set' in atom ? atom.set : atom.assertion;
        break;
      }
      case 0x5b:
        out += characterClass();
        break;
      case 0x2e:
        out += DOT;
        break;
      case 0x28:
        out += group();
        break;
      default:
        // Syntax characters (`^ $ | ) * + ? { }`) mean the same to RE2; anything else is a literal.
        out += String.fromCodePoint(codePoint);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The analysis: refs resolved within the schema, and the work one value of the answer can cost, bounded.

/** A subschema: what it applies to the same value, and what to the value's items or members. */
interface SchemaNode {
  /** Work of applying this subschema alone to one value. */
  own: number;
  /** Subschemas applied to the same value (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, …, refs). */
  same: string[];
  refs: Array<{ keyword: '$ref' | '$dynamicRef'; value: string }>;
  properties: Map<string, string>;
  patterns: Array<{ regExp: RE2JS | undefined; target: string }>;
  additionalProperties?: string;
  unevaluatedProperties?: string;
  propertyNames?: string;
  prefixItems: string[];
  items?: string;
  contains?: string;
  unevaluatedItems?: string;
  /** Only a `$ref` (and annotations): the same as its target. */
  forwards: boolean;
  /** What it charges the meter (objects only). */
  charge?: Charge;
}

const SAME_VALUE_ONE = ['not', 'if', 'then', 'else'] as const;
const SAME_VALUE_LIST = ['allOf', 'anyOf', 'oneOf'] as const;
// `dependencies` is draft-07's, but ajv's 2020 instance still applies it.
const SAME_VALUE_MAP = ['dependentSchemas', 'dependencies'] as const;
const DEFINITIONS = ['$defs', 'definitions'] as const;
const ANNOTATIONS = new Set(['$ref', 'title', 'description', '$comment', 'default', 'examples', 'deprecated']);
const VOCABULARIES_2020 = new Set(
  [
    'core',
    'applicator',
    'unevaluated',
    'validation',
    'meta-data',
    'format-annotation',
    'format-assertion',
    'content',
  ].map((name) => `https://json-schema.org/draft/2020-12/vocab/${name}`),
);
const LIST_WORK = new Set(['required', 'allOf', 'anyOf', 'oneOf', 'prefixItems']);
// Keywords whose work grows with the value: the string's length, the array's items, the object's members.
const STRING_LOOPS = ['minLength', 'maxLength', 'pattern'] as const;
const ARRAY_LOOPS = ['items', 'prefixItems', 'contains', 'unevaluatedItems', 'uniqueItems'] as const;
const OBJECT_LOOPS = [
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
] as const;
const MAP_WORK = new Set(['properties', 'patternProperties', 'dependentSchemas', 'dependentRequired', 'dependencies']);

const escapeToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');

/** What the analysis of a schema learned: by JSON pointer, what each subschema object charges the meter. */
interface Analysis {
  charges: Map<string, Charge>;
}

/**
 * Problems of a schema the meta-schema accepted — keywords ajv handles unlike 2020-12, refs that do not resolve
 * within the schema, patterns, and unbounded work — or, when it has none, what its subschemas charge.
 */
function analyse(root: Record<string, unknown>): Analysis | { problems: Problem[] } {
  const problems: Problem[] = [];
  const nodes = new Map<string, SchemaNode>();
  const anchors = new Map<string, string>();
  const dynamicAnchors = new Map<string, string[]>();
  const problem = (path: string, message: string) => problems.push({ path, message: `${path} ${message}` });

  // Walk every place that holds a schema; nothing else (an `enum` value is not a schema).
  const stack: Array<{ schema: unknown; pointer: string }> = [{ schema: root, pointer: '' }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { schema, pointer } = next;
    const node: SchemaNode = {
      own: 1,
      same: [],
      refs: [],
      properties: new Map(),
      patterns: [],
      prefixItems: [],
      forwards: false,
    };
    nodes.set(pointer, node);
    if (!isPlainObject(schema)) continue;
    // The pointer of a subschema to walk, or undefined where the value is no schema (only ajv's keywords outside
    // 2020-12, such as `dependencies`, are not checked by the meta-schema).
    const child = (value: unknown, ...tokens: string[]): string | undefined => {
      if (typeof value !== 'boolean' && !isPlainObject(value)) return undefined;
      const at = `${pointer}/${tokens.map(escapeToken).join('/')}`;
      stack.push({ schema: value, pointer: at });
      return at;
    };
    const applies = (list: string[], at: string | undefined) => {
      if (at !== undefined) list.push(at);
    };
    node.forwards = typeof schema.$ref === 'string' && Object.keys(schema).every((key) => ANNOTATIONS.has(key));
    for (const [keyword, value] of Object.entries(schema)) {
      node.own += 1;
      if (LIST_WORK.has(keyword) && Array.isArray(value)) node.own += value.length;
      if (MAP_WORK.has(keyword) && isPlainObject(value)) node.own += Object.keys(value).length;
    }
    const present = (keywords: readonly string[]) => keywords.filter((keyword) => schema[keyword] !== undefined).length;
    node.charge = [
      node.own,
      present(STRING_LOOPS),
      present(ARRAY_LOOPS),
      present(OBJECT_LOOPS),
      isPlainObject(schema.patternProperties) ? Object.keys(schema.patternProperties).length : 0,
    ];

    if (schema.$async !== undefined) {
      problem(`${pointer}/$async`, 'is not supported: ajv would check asynchronously, and pass every answer');
    }
    for (const keyword of ['$recursiveRef', '$recursiveAnchor']) {
      if (schema[keyword] !== undefined) {
        problem(`${pointer}/${keyword}`, 'is a 2019-09 keyword; use $dynamicRef and $dynamicAnchor');
      }
    }
    if (pointer !== '' && schema.$id !== undefined) {
      problem(
        `${pointer}/$id`,
        'embeds a schema resource, which is not supported here; put the subschema in $defs and $ref it by "#/$defs/…" or an $anchor',
      );
    }
    if (isPlainObject(schema.$vocabulary)) {
      for (const [uri, required] of Object.entries(schema.$vocabulary)) {
        if (required === true && !VOCABULARIES_2020.has(uri)) {
          problem(`${pointer}/$vocabulary`, `requires the vocabulary ${JSON.stringify(uri)}, which is not known here`);
        }
      }
    }
    for (const keyword of ['$anchor', '$dynamicAnchor'] as const) {
      const name = schema[keyword];
      if (typeof name !== 'string') continue;
      if (anchors.has(name) && anchors.get(name) !== pointer) {
        problem(`${pointer}/${keyword}`, `declares the anchor ${JSON.stringify(name)} a second time`);
      }
      anchors.set(name, pointer);
      if (keyword === '$dynamicAnchor') dynamicAnchors.set(name, [...(dynamicAnchors.get(name) ?? []), pointer]);
    }
    if (typeof schema.$ref === 'string') node.refs.push({ keyword: '$ref', value: schema.$ref });
    if (typeof schema.$dynamicRef === 'string') node.refs.push({ keyword: '$dynamicRef', value: schema.$dynamicRef });
    if (typeof schema.pattern === 'string') {
      const why = patternProblem(schema.pattern);
      if (why) problem(`${pointer}/pattern`, `${JSON.stringify(schema.pattern)} ${why}`);
    }

    for (const keyword of SAME_VALUE_ONE) {
      applies(node.same, child(schema[keyword], keyword));
    }
    for (const keyword of SAME_VALUE_LIST) {
      const list = schema[keyword];
      if (!Array.isArray(list)) continue;
      for (const [index, item] of list.entries()) applies(node.same, child(item, keyword, String(index)));
    }
    for (const keyword of SAME_VALUE_MAP) {
      const map = schema[keyword];
      if (!isPlainObject(map)) continue;
      for (const [name, value] of Object.entries(map)) {
        applies(node.same, child(value, keyword, name));
      }
    }
    for (const keyword of DEFINITIONS) {
      const map = schema[keyword];
      if (isPlainObject(map)) for (const [name, value] of Object.entries(map)) child(value, keyword, name);
    }
    if (isPlainObject(schema.properties)) {
      for (const [name, value] of Object.entries(schema.properties)) {
        if (name === '__proto__') {
          // ajv drops this entry from `properties` without a word: an answer's "__proto__" would go unchecked.
          problem(`${pointer}/properties/__proto__`, 'names the property "__proto__", which cannot be checked here');
          continue;
        }
        const at = child(value, 'properties', name);
        if (at !== undefined) node.properties.set(name, at);
      }
    }
    if (isPlainObject(schema.patternProperties)) {
      for (const [source, value] of Object.entries(schema.patternProperties)) {
        const target = child(value, 'patternProperties', source);
        const compiled = linearPattern(source);
        if ('problem' in compiled) {
          problem(
            `${pointer}/patternProperties/${escapeToken(source)}`,
            `${JSON.stringify(source)} ${compiled.problem}`,
          );
        }
        if (target !== undefined) {
          node.patterns.push({ regExp: 'regExp' in compiled ? compiled.regExp : undefined, target });
        }
      }
    }
    if (Array.isArray(schema.prefixItems)) {
      for (const [index, item] of schema.prefixItems.entries()) {
        applies(node.prefixItems, child(item, 'prefixItems', String(index)));
      }
    }
    const single = (keyword: string) => child(schema[keyword], keyword);
    node.additionalProperties = single('additionalProperties');
    node.unevaluatedProperties = single('unevaluatedProperties');
    node.propertyNames = single('propertyNames');
    node.items = single('items');
    node.contains = single('contains');
    node.unevaluatedItems = single('unevaluatedItems');
  }
  if (problems.length > 0) return { problems };

  // Refs: only within the schema, by JSON pointer or anchor.
  const rootId = typeof root.$id === 'string' ? absoluteUrl(root.$id) : undefined;
  const resolve = (ref: string): string | undefined => {
    let fragment: string;
    if (ref.startsWith('#')) fragment = ref.slice(1);
    else {
      if (rootId === undefined) return undefined;
      const url = absoluteUrl(ref, rootId);
      if (url === undefined || withoutFragment(url) !== withoutFragment(rootId)) return undefined;
      fragment = url.includes('#') ? url.slice(url.indexOf('#') + 1) : '';
    }
    if (fragment === '') return '';
    if (!fragment.startsWith('/')) return anchors.get(fragment);
    try {
      return decodeURIComponent(fragment);
    } catch {
      return undefined;
    }
  };
  for (const [pointer, node] of nodes) {
    for (const { keyword, value } of node.refs) {
      // The path is the subschema's (as ajv names a ref it cannot resolve); the message names the keyword.
      const at = (message: string) =>
        problems.push({ path: pointer, message: `${pointer}/${keyword} ${JSON.stringify(value)} ${message}` });
      if (keyword === '$dynamicRef') {
        const name = value.slice(1);
        if (!value.startsWith('#') || root.$dynamicAnchor !== name) {
          at(`must name a $dynamicAnchor of the schema's root ("#name"); other dynamic references are not supported`);
          continue;
        }
        // Whichever anchor of that name the dynamic scope picks, it is one of these.
        node.same.push('', ...(dynamicAnchors.get(name) ?? []).filter((target) => target !== ''));
        continue;
      }
      const target = resolve(value);
      if (target === undefined) {
        at(
          'does not resolve within the schema; a schema must be self-contained: refer to its own parts by "#/$defs/…" or "#anchor"',
        );
      } else if (!nodes.has(target)) {
        at('does not point to a subschema');
      } else {
        node.same.push(target);
      }
    }
  }
  if (problems.length > 0) return { problems };
  const unbounded = workProblem(nodes);
  if (unbounded) return { problems: [unbounded] };
  const charges = new Map<string, Charge>();
  for (const [pointer, { charge }] of nodes) if (charge) charges.set(pointer, charge);
  return { charges };
}

function absoluteUrl(reference: string, base?: string): string | undefined {
  try {
    return new URL(reference, base).href;
  } catch {
    return undefined;
  }
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

/**
 * The work a schema applies to an answer, or why it is unbounded. The subschemas that apply to one value form a
 * multiset (one subschema may apply several times, through `allOf` and refs); the multisets that apply to a value's
 * items and members follow from it — each value of an answer gets exactly one, found from its parent's and its own
 * name or index. The analysis walks every multiset reachable from the root (over-approximating which of
 * `patternProperties` may match) and counts how many values of an answer each can apply to: a bounded number, for
 * values reached by name (summed over every way to reach them), or any number, for items, members not named, and all
 * values under a cycle. A recursion that applies more subschemas at each level of the answer makes ever larger
 * multisets, and is refused when one passes the limits.
 */
function workProblem(nodes: Map<string, SchemaNode>): Problem | undefined {
  const node = (pointer: string) => nodes.get(pointer) as SchemaNode;
  let steps = 0;
  const refuse = (path: string, message: string) => ({ path, message: `${path} ${message}` });
  const tooComplex = () =>
    refuse(
      '',
      `is too complex to analyse (over ${SCHEMA_LIMITS.analysisSteps} steps); use fewer $refs applied to the same values`,
    );

  // Same-value edges must not cycle: checking a value would never end. Order the nodes so every edge goes forward.
  const order: string[] = [];
  const visit = new Map<string, 'open' | 'done'>();
  for (const start of nodes.keys()) {
    if (visit.has(start)) continue;
    const path: Array<{ pointer: string; next: number }> = [{ pointer: start, next: 0 }];
    visit.set(start, 'open');
    while (path.length > 0) {
      const top = path[path.length - 1] as { pointer: string; next: number };
      const edges = node(top.pointer).same;
      if (top.next < edges.length) {
        const target = edges[top.next++] as string;
        if (visit.get(target) === 'open') {
          return refuse(
            top.pointer,
            `applies ${target === top.pointer ? 'itself' : `"#${target}"`} to the same value again and again through $ref (checking would never end): a recursion must go into an item or a member`,
          );
        }
        if (!visit.has(target)) {
          visit.set(target, 'open');
          path.push({ pointer: target, next: 0 });
        }
        continue;
      }
      visit.set(top.pointer, 'done');
      order.push(top.pointer);
      path.pop();
    }
  }
  const rank = new Map(order.map((pointer, index) => [pointer, index]));
  const forward = (pointer: string) => {
    let at = pointer;
    while (node(at).forwards) at = node(at).same[0] as string;
    return at;
  };

  /** Every subschema applying to a value, with how many times, given the multiset applied directly. */
  const closure = (applied: Map<string, number>): Map<string, number> => {
    const reached = new Set<string>();
    const pending = [...applied.keys()];
    for (let pointer = pending.pop(); pointer !== undefined; pointer = pending.pop()) {
      if (reached.has(pointer)) continue;
      reached.add(pointer);
      steps += 1;
      pending.push(...node(pointer).same);
    }
    // From the sources of the same-value edges on: a node's count is complete before it passes it on.
    const sorted = [...reached].sort((a, b) => (rank.get(b) as number) - (rank.get(a) as number));
    const counts = new Map(applied);
    for (const pointer of sorted) {
      const count = counts.get(pointer) ?? 0;
      for (const target of node(pointer).same) counts.set(target, (counts.get(target) ?? 0) + count);
      steps += node(pointer).same.length;
    }
    return counts;
  };

  const add = (multiset: Map<string, number>, pointer: string | undefined, count: number) => {
    if (pointer === undefined) return;
    const at = forward(pointer);
    multiset.set(at, (multiset.get(at) ?? 0) + count);
  };

  /** What applies to the members and items of a value to which `applying` applies; `many` when a value may hold any number of them. */
  type Child = { applied: Map<string, number>; keysOnly: boolean; many: boolean };
  const children = (applying: Map<string, number>): Child[] => {
    const result: Child[] = [];
    // Who names each member in its `properties`; and what applies to a member no `properties` names, from the
    // subschemas without `patternProperties` (the others are looked at name by name).
    const namedBy = new Map<string, Array<[string, number]>>();
    const unnamed = new Map<string, number>();
    let prefixLength = 0;
    for (const [pointer, count] of applying) {
      const schema = node(pointer);
      for (const name of schema.properties.keys()) {
        namedBy.set(name, [...(namedBy.get(name) ?? []), [pointer, count]]);
        steps += 1;
      }
      if (schema.patterns.length === 0)
        add(unnamed, schema.additionalProperties ?? schema.unevaluatedProperties, count);
      prefixLength = Math.max(prefixLength, schema.prefixItems.length);
    }
    const withPatterns = [...applying].filter(([pointer]) => node(pointer).patterns.length > 0);
    for (const [name, namers] of namedBy) {
      const applied = new Map(unnamed);
      steps += unnamed.size + namers.length;
      for (const [pointer, count] of namers) {
        const schema = node(pointer);
        add(applied, schema.properties.get(name), count);
        if (schema.patterns.length > 0) continue;
        // It names this member, so its fallback does not apply: take back what `unnamed` counted for it.
        const fallback = schema.additionalProperties ?? schema.unevaluatedProperties;
        if (fallback !== undefined) add(applied, fallback, -count);
      }
      for (const [pointer, count] of withPatterns) {
        const schema = node(pointer);
        let matched = false;
        for (const { regExp, target } of schema.patterns) {
          steps += 1;
          if (regExp?.test(name)) {
            matched = true;
            add(applied, target, count);
          }
        }
        if (!schema.properties.has(name) && !matched) {
          add(applied, schema.additionalProperties ?? schema.unevaluatedProperties, count);
        }
      }
      for (const [pointer, count] of applied) if (count === 0) applied.delete(pointer);
      result.push({ applied, keysOnly: false, many: false });
    }
    // Any other member: every pattern may match it, or none.
    const other = new Map<string, number>();
    const keys = new Map<string, number>();
    for (const [pointer, count] of applying) {
      const schema = node(pointer);
      for (const { target } of schema.patterns) add(other, target, count);
      add(other, schema.additionalProperties ?? schema.unevaluatedProperties, count);
      add(keys, schema.propertyNames, count);
    }
    result.push({ applied: other, keysOnly: false, many: true }, { applied: keys, keysOnly: true, many: true });
    // Items: each index below the longest `prefixItems`, then any other.
    for (let index = 0; index <= prefixLength; index++) {
      const applied = new Map<string, number>();
      for (const [pointer, count] of applying) {
        const schema = node(pointer);
        const positional = index < schema.prefixItems.length ? schema.prefixItems[index] : undefined;
        add(applied, positional ?? schema.items ?? schema.unevaluatedItems, count);
        add(applied, schema.contains, count);
      }
      result.push({ applied, keysOnly: false, many: index === prefixLength });
    }
    return result;
  };

  // The multisets found, each with its work and the edges to its children's.
  const states: Array<{ work: number; at: string; edges: Array<{ to: number; many: boolean }> }> = [];
  const index = new Map<string, number>();
  const queue: Array<Child & { from?: number }> = [
    { applied: new Map([[forward(''), 1]]), keysOnly: false, many: false },
  ];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    const { applied, keysOnly, many, from } = next;
    if (applied.size === 0) continue;
    const key = `${keysOnly ? 'k' : 'v'}${[...applied].sort(([a], [b]) => (a < b ? -1 : 1)).join(';')}`;
    let known = index.get(key);
    if (known === undefined) {
      if (steps > SCHEMA_LIMITS.analysisSteps) return tooComplex();
      const applying = closure(applied);
      let work = 0;
      for (const [pointer, count] of applying) work += count * node(pointer).own;
      const at = [...applied.keys()][0] as string;
      const limit = many ? SCHEMA_LIMITS.workPerRepeatedValue : SCHEMA_LIMITS.namedWork;
      if (work > limit) return tooMuchWork(at, work, many);
      known = states.length;
      states.push({ work, at, edges: [] });
      index.set(key, known);
      if (!keysOnly) for (const child of children(applying)) queue.push({ ...child, from: known });
    }
    if (from !== undefined) (states[from] as (typeof states)[number]).edges.push({ to: known, many });
  }

  // How many values each multiset may apply to: the root one; along a `many` edge or a cycle, any number.
  const inDegree = new Array<number>(states.length).fill(0);
  for (const state of states) for (const edge of state.edges) inDegree[edge.to] = (inDegree[edge.to] ?? 0) + 1;
  const reach = new Array<number>(states.length).fill(0);
  reach[0] = 1;
  const finished = new Array<boolean>(states.length).fill(false);
  // A root inside a cycle applies to any number of values, and so does everything after it.
  const ready = inDegree[0] === 0 ? [0] : [];
  for (let at = ready.pop(); at !== undefined; at = ready.pop()) {
    finished[at] = true;
    for (const edge of (states[at] as (typeof states)[number]).edges) {
      reach[edge.to] = edge.many ? Number.POSITIVE_INFINITY : (reach[edge.to] ?? 0) + (reach[at] ?? 0);
      inDegree[edge.to] = (inDegree[edge.to] ?? 0) - 1;
      if (inDegree[edge.to] === 0) ready.push(edge.to);
    }
  }
  let namedWork = 0;
  let heaviest = { at: '', cost: 0 };
  for (const [at, state] of states.entries()) {
    const count = finished[at] ? (reach[at] as number) : Number.POSITIVE_INFINITY;
    if (count === Number.POSITIVE_INFINITY) {
      if (state.work > SCHEMA_LIMITS.workPerRepeatedValue) return tooMuchWork(state.at, state.work, true);
      continue;
    }
    namedWork += count * state.work;
    if (count * state.work > heaviest.cost) heaviest = { at: state.at, cost: count * state.work };
  }
  if (namedWork > SCHEMA_LIMITS.namedWork) {
    return refuse(
      heaviest.at,
      `applies the most of the ${namedWork > 1e15 ? 'over 10^15' : namedWork} units of work the schema would apply to the values an answer holds by name (the root, named members, prefixItems), over the limit of ${SCHEMA_LIMITS.namedWork}: $refs apply the same subschemas to them many times over`,
    );
  }
  return undefined;
}

function tooMuchWork(at: string, work: number, repeated: boolean): Problem {
  const amount = work > 1e15 ? 'over 10^15' : String(work);
  const message = repeated
    ? `would apply ${amount} units of work to each of any number of values of an answer (items, members no "properties" names, or values under a recursion), over the limit of ${SCHEMA_LIMITS.workPerRepeatedValue} per value`
    : `would apply ${amount} units of work to one value of an answer, over the limit of ${SCHEMA_LIMITS.namedWork}: $refs apply the same subschemas to it many times over, or a recursion applies more of them at each level`;
  return { path: at, message: `${at} ${message}` };
}
