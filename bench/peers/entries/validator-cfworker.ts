import { Validator } from '@cfworker/json-schema';

/** A bundle of @cfworker/json-schema doing one check, to weigh it as the handlers' bundles are weighed. */
export const check = (schema: object, value: unknown) => new Validator(schema, '2020-12', false).validate(value).valid;
