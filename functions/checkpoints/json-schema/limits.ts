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
