import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { type AnswerFailure, BadRequestError, InvalidAnswerError } from '../../errors.ts';
import { isPlainObject, jsonShape } from '../../json.ts';
import type { JsonSchema } from '../checkpoint-store.ts';
import { SCHEMA_LIMITS } from './limits.ts';
import { endNumbering, linearKeywords, startNumbering } from './linear.ts';
import { type Charge, meter, metered, meterKeyword, OVER_LIMIT } from './meter.ts';
import { linearRegExpEngine, patternProblem } from './re2.ts';
import { type Analysis, analyse, type Problem } from './refs.ts';

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
 * Browser-safe, for the inbox page's validator worker, which bundles this module so the page checks forms with the
 * server's semantics: no `Buffer`, no `node:` imports. ajv compiles each schema to a function with `new Function`, so
 * the module runs in a dedicated worker served with a policy of its own that allows `'unsafe-eval'`; the page itself
 * has a Content-Security-Policy with Trusted Types and no `eval` (`functions/inbox/assets.ts`). RE2 needs neither.
 *
 * The parts, one module each: the meter (`meter.ts`), the linear keywords (`linear.ts`), the RE2 translator
 * (`re2.ts`), the `$ref` analysis (`refs.ts`) and the bounds (`limits.ts`); this module prepares and caches a
 * schema and answers the checks.
 *
 * Weight of `re2js` 2.10.0 in a bundle: 150,563 bytes minified, 45,746 gzipped (esbuild 0.28.2, ESM, gzip -9):
 * `echo "export { RE2JS } from 're2js'" | npx esbuild --bundle --minify --format=esm | gzip -9 | wc -c`. This whole
 * module for the browser (ajv, re2js and the code here) is 307,464 bytes minified, 94,866 gzipped.
 */

/** Which schema of an ask: an `answer` ask's `answerSchema` or an `approval` ask's `argsSchema`. */
export type SchemaRole = 'answerSchema' | 'argsSchema';

export { patternProblem, SCHEMA_LIMITS };

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
  startNumbering();
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
    endNumbering();
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

function toFailure(error: ErrorObject): AnswerFailure {
  const detail = error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : '';
  return { path: error.instancePath, message: `${error.message ?? 'is invalid'}${detail}` };
}

// ---------------------------------------------------------------------------------------------------------------
// Preparing a schema: bounds, the meta-schema, the analysis, the compile, and a probe — once per distinct schema.
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
    startNumbering();
    try {
      checker.listing(probe);
    } catch (cause) {
      return {
        problems: [
          { path: '', message: ` cannot check a value like ${JSON.stringify(probe)}: ${(cause as Error).message}` },
        ],
      };
    } finally {
      endNumbering();
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
