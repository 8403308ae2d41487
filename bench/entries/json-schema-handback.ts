import { schemaFailures } from '../../functions/checkpoints/json-schema/index.ts';

/** Handback's JSON Schema checks (ajv + re2js, the analysis and the meter) alone, to weigh them as a bundle. */
export const check = (schema: object, value: unknown) => schemaFailures(schema, value).length === 0;
