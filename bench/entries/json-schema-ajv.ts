import { Ajv2020 } from 'ajv/dist/2020.js';

/** Stock ajv (draft 2020-12) doing one check, to weigh it as a bundle. */
export const check = (schema: object, value: unknown) => new Ajv2020({ strict: false }).compile(schema)(value);
