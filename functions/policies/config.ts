import { isOneOf, POLICY_DEFAULTS, POLICY_MODES, type PolicyDefault, type PolicyMode } from '../vocabulary.ts';

/**
 * Whether this deployment has policies, and how they apply (§17): read from the environment, pure, and small — it is
 * all of the policies a cold start reads. The engine itself (Cedar and its WebAssembly) is loaded from
 * `engine-files.ts` on the first pause that needs it, and never where no policy file is configured.
 */

/** A deployment's policy settings. */
export interface PolicySettings {
  /** The policy file (`HANDBACK_POLICIES`). */
  policies: string;
  /** The deployment's schema file with its `Args` (`HANDBACK_POLICY_SCHEMA`). */
  schema?: string;
  mode: PolicyMode;
  default: PolicyDefault;
}

/**
 * The settings `env` gives, or undefined when it names no policy file (then no policy applies, and no default).
 * A mode or a default that is not one of the words is an error naming the variable.
 */
export function policySettingsOf(env: Record<string, string | undefined>): PolicySettings | undefined {
  const policies = env.HANDBACK_POLICIES;
  const mode = env.HANDBACK_POLICY_MODE || 'enforce';
  const fallback = env.HANDBACK_POLICY_DEFAULT || 'ask';
  if (!isOneOf(POLICY_MODES, mode)) {
    throw new Error(`HANDBACK_POLICY_MODE must be ${POLICY_MODES.join(' or ')}, not ${JSON.stringify(mode)}.`);
  }
  if (!isOneOf(POLICY_DEFAULTS, fallback)) {
    throw new Error(
      `HANDBACK_POLICY_DEFAULT must be ${POLICY_DEFAULTS.join(' or ')}, not ${JSON.stringify(fallback)}.`,
    );
  }
  if (policies === undefined || policies === '') {
    if (env.HANDBACK_POLICY_SCHEMA) {
      throw new Error('HANDBACK_POLICY_SCHEMA is set without HANDBACK_POLICIES: name the policy file it is for.');
    }
    return undefined;
  }
  const settings: PolicySettings = { policies, mode, default: fallback };
  if (env.HANDBACK_POLICY_SCHEMA) settings.schema = env.HANDBACK_POLICY_SCHEMA;
  return settings;
}
