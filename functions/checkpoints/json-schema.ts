import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { type AnswerFailure, BadRequestError, InvalidAnswerError } from '../errors.ts';
import type { JsonSchema } from './checkpoint-store.ts';
import { isPlainObject, jsonBytes } from './json.ts';

/**
 * The JSON Schema (2020-12) checks of answers and edited arguments, in one place: a schema is checked and compiled
 * when a pause is recorded (a schema that cannot be compiled is refused then, never at resume), and a value is checked
 * against it when a person decides.
 */

/** Which schema of an ask: an `answer` ask's `answerSchema` or an `approval` ask's `argsSchema`. */
export type SchemaRole = 'answerSchema' | 'argsSchema';

/** Why `schema` is not a usable JSON Schema 2020-12 (empty when it is); paths are relative to the schema. */
export function schemaProblems(schema: unknown, role: SchemaRole = 'answerSchema'): AnswerFailure[] {
  if (typeof schema !== 'boolean' && !isPlainObject(schema)) {
    return [{ path: '', message: `${role} must be a JSON Schema: an object or a boolean` }];
  }
  if (jsonBytes(schema) === undefined) {
    return [{ path: '', message: `${role} must be JSON (no undefined, functions, cycles or non-finite numbers)` }];
  }
  const validator = ajv();
  let valid: boolean;
  try {
    valid = validator.validateSchema(schema) as boolean;
  } catch (cause) {
    // ajv throws for a `$schema` it has no meta-schema for (draft-07, 2019-09, …).
    return [
      {
        path: '/$schema',
        message: `${role} must be JSON Schema 2020-12 (${(cause as Error).message}); drop "$schema" or set it to "https://json-schema.org/draft/2020-12/schema"`,
      },
    ];
  }
  if (!valid) {
    return (validator.errors ?? []).map((error) => ({
      path: error.instancePath,
      message: `${role}${error.instancePath} ${error.message ?? 'is invalid'} (JSON Schema 2020-12)`,
    }));
  }
  try {
    compiledSchema(schema as JsonSchema);
  } catch (cause) {
    return [{ path: '', message: `${role} cannot be compiled: ${(cause as Error).message}` }];
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

/** The failures of `value` against `schema` (empty when it passes). The schema was checked when the pause was made. */
export function schemaFailures(schema: JsonSchema, value: unknown): AnswerFailure[] {
  const validate = compiledSchema(schema);
  if (validate(value)) return [];
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

// `format` is an annotation in 2020-12 unless a schema opts into format assertion; ajv follows that with
// `validateFormats: false`. Unknown keywords are allowed, as the specification allows them. `addUsedSchema: false`:
// two pauses may carry different schemas with the same `$id`, which would clash in one shared instance; and the
// instance is shared because building one compiles the 2020-12 meta-schemas (tens of milliseconds) — and built on
// first use, not at import, so a cold start without answer schemas never pays for it.
let sharedAjv: Ajv2020 | undefined;
function ajv(): Ajv2020 {
  sharedAjv ??= new Ajv2020({
    allErrors: true,
    strict: false,
    validateFormats: false,
    logger: false,
    addUsedSchema: false,
  });
  return sharedAjv;
}

const compiled = new Map<string, ValidateFunction>();
const COMPILED_MAX = 64;

function compiledSchema(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached) return cached;
  const validate = ajv().compile(schema);
  if (compiled.size >= COMPILED_MAX) {
    const oldest = compiled.keys().next().value;
    if (oldest !== undefined) compiled.delete(oldest);
  }
  compiled.set(key, validate);
  return validate;
}
