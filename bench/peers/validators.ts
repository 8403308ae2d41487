import { Validator } from '@cfworker/json-schema';
import { validator as schemasafe } from '@exodus/schemasafe';

/**
 * The lighter JSON Schema 2020-12 validators weighed against Handback's (ajv + re2js, `functions/checkpoints/
 * json-schema/`), each behind the same question: does `value` pass `schema`? `refused` when the validator will not
 * take the schema at all.
 */
export interface Candidate {
  check(schema: unknown, value: unknown): boolean | 'refused';
}

export const candidates: Record<string, Candidate> = {
  '@cfworker/json-schema': {
    check(schema, value) {
      let validator: Validator;
      try {
        validator = new Validator(schema as never, '2020-12', false);
      } catch {
        return 'refused';
      }
      return validator.validate(value).valid;
    },
  },
  '@exodus/schemasafe': {
    check(schema, value) {
      let validate: (value: unknown) => boolean;
      try {
        validate = schemasafe(schema as never, {
          $schemaDefault: 'https://json-schema.org/draft/2020-12/schema',
          mode: 'default',
          allowUnusedKeywords: true,
          requireSchema: false,
        }) as (value: unknown) => boolean;
      } catch {
        return 'refused';
      }
      return validate(value);
    },
  },
};
