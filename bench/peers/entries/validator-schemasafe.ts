import { validator } from '@exodus/schemasafe';

/** A bundle of @exodus/schemasafe doing one check, to weigh it as the handlers' bundles are weighed. */
export const check = (schema: object, value: unknown) =>
  (
    validator(schema as never, { $schemaDefault: 'https://json-schema.org/draft/2020-12/schema' }) as (
      v: unknown,
    ) => boolean
  )(value);
