import { createHash } from 'node:crypto';
import type { PolicyDefault, PolicyMode } from '../vocabulary.ts';

/**
 * A policy set's version (§19): the first 16 hex digits of the SHA-256 of the policy file, the schema files
 * (Handback's, then the deployment's), the mode and the default, in that order, each followed by a NUL byte so that no
 * two different sets hash the same text. The same files give the same version wherever they are loaded — `npm start`,
 * each Lambda function's copies, `handback policies check`.
 */
export function policyVersion(sources: readonly string[], mode: PolicyMode, fallback: PolicyDefault): string {
  const hash = createHash('sha256');
  for (const part of [...sources, mode, fallback]) hash.update(part, 'utf8').update('\0');
  return hash.digest('hex').slice(0, 16);
}
