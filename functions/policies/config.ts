import { isOneOf, POLICY_DEFAULTS, POLICY_MODES, type PolicyDefault, type PolicyMode } from '../vocabulary.ts';

/**
 * Whether this deployment has policies, and how they apply (§17): from the settings of the environment (or, at
 * synthesis, of the CDK context), pure, and small — it is all of the policies a cold start reads. The engine itself (Cedar and its
 * WebAssembly) is loaded from `engine-files.ts` on the first pause that needs it, and never where no policy file is
 * configured.
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

/** The four settings as they are given, each by the name it is given under. */
type Given = Record<'policies' | 'schema' | 'mode' | 'default', string | undefined>;

/**
 * The settings from their four values, errors naming each by `names` (environment variables, or the CDK context
 * keys `handback:policies`, … at synthesis).
 */
export function policySettingsFrom(given: Given, names: Record<keyof Given, string>): PolicySettings | undefined {
  const mode = given.mode ?? 'enforce';
  const fallback = given.default ?? 'ask';
  if (!isOneOf(POLICY_MODES, mode)) {
    throw new Error(`${names.mode} must be ${POLICY_MODES.join(' or ')}, not ${JSON.stringify(mode)}.`);
  }
  if (!isOneOf(POLICY_DEFAULTS, fallback)) {
    throw new Error(`${names.default} must be ${POLICY_DEFAULTS.join(' or ')}, not ${JSON.stringify(fallback)}.`);
  }
  if (given.policies === undefined) {
    if (given.schema !== undefined) {
      throw new Error(`${names.schema} is set without ${names.policies}: name the policy file it is for.`);
    }
    return undefined;
  }
  const settings: PolicySettings = { policies: given.policies, mode, default: fallback };
  if (given.schema !== undefined) settings.schema = given.schema;
  return settings;
}
