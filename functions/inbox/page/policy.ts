/**
 * The Trusted Types policy the page creates to start its validator worker: the only script URL it ever makes. One
 * module with no imports, so the page (`validate.ts`) and the server's CSP (`../assets.ts`) name the same policy.
 */
export const TRUSTED_TYPES_POLICY = 'handback-inbox';
