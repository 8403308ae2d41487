/**
 * What the Lambda bundles hold in place of `ajv`'s default (draft-07) export and `ajv-formats`: only the MCP SDK's
 * default JSON Schema validator imports them, for form-mode elicitation, which Handback never asks (its server passes
 * a validator of its own, `functions/mcp/server.ts`). Handback's own checks import `ajv/dist/2020.js`, untouched.
 */
export default class AjvNotBundled {
  constructor() {
    throw new Error('ajv (draft-07) is not in this bundle: pass the MCP server a jsonSchemaValidator of its own.');
  }
}
