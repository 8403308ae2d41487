// The settings of the deployment's Cedar policies (§17, docs/policies.md) and of its default escalation (§21).

import { BOTH, LAMBDA } from './settings-readers.ts';
import { POLICY_DEFAULTS, POLICY_MODES } from './vocabulary.ts';

// The deployment's Cedar policies (§17, docs/policies.md).

export const policies = { env: 'HANDBACK_POLICIES', read: BOTH, type: 'path', context: 'handback:policies' } as const;
export const policySchema = {
  env: 'HANDBACK_POLICY_SCHEMA',
  read: BOTH,
  type: 'path',
  context: 'handback:policySchema',
} as const;
export const policyMode = {
  env: 'HANDBACK_POLICY_MODE',
  read: BOTH,
  type: 'words',
  values: POLICY_MODES,
  context: 'handback:policyMode',
  default: 'enforce',
} as const;
export const policyDefault = {
  env: 'HANDBACK_POLICY_DEFAULT',
  read: BOTH,
  type: 'words',
  values: POLICY_DEFAULTS,
  context: 'handback:policyDefault',
  default: 'ask',
} as const;
// §19: the policies' clock and version.
export const policyTimeZone = {
  env: 'HANDBACK_POLICY_TIMEZONE',
  read: BOTH,
  type: 'string',
  context: 'handback:policyTimeZone',
  default: 'UTC',
} as const;
export const policyVersion = {
  env: 'HANDBACK_POLICY_VERSION',
  read: BOTH,
  type: 'string',
  context: 'handback:policyVersion',
} as const;
// §21 escalation
export const escalation = {
  env: 'HANDBACK_ESCALATION',
  read: BOTH,
  type: 'string',
  context: 'handback:escalation',
} as const;
export const cedarSchema = { env: 'HANDBACK_CEDAR_SCHEMA', read: LAMBDA, type: 'path', setBy: 'stack' } as const;
export const cedarWasm = { env: 'HANDBACK_CEDAR_WASM', read: LAMBDA, type: 'path', setBy: 'stack' } as const;
