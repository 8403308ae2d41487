import { isOneOf, LIMITS, POLICY_DEFAULTS, POLICY_MODES, type PolicyDefault, type PolicyMode } from '../vocabulary.ts';

/**
 * Whether this deployment has policies, and how they apply (§17, §19): from the settings of the environment (or, at
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
  /** The IANA time zone of `context.clock` (`HANDBACK_POLICY_TIMEZONE`, §19). @default 'UTC' */
  timeZone: string;
  /** The policy set's version as the deployment names it (`HANDBACK_POLICY_VERSION`); else its files' hash. */
  version?: string;
}

/** The settings as they are given, each by the name it is given under. */
type Given = Record<'policies' | 'schema' | 'mode' | 'default' | 'timeZone' | 'version', string | undefined>;

/**
 * The settings from their values, errors naming each by `names` (environment variables, or the CDK context keys
 * `handback:policies`, … at synthesis).
 */
export function policySettingsFrom(given: Given, names: Record<keyof Given, string>): PolicySettings | undefined {
  const mode = given.mode ?? 'enforce';
  const fallback = given.default ?? 'ask';
  const timeZone = given.timeZone ?? 'UTC';
  if (!isOneOf(POLICY_MODES, mode)) {
    throw new Error(`${names.mode} must be ${POLICY_MODES.join(' or ')}, not ${JSON.stringify(mode)}.`);
  }
  if (!isOneOf(POLICY_DEFAULTS, fallback)) {
    throw new Error(`${names.default} must be ${POLICY_DEFAULTS.join(' or ')}, not ${JSON.stringify(fallback)}.`);
  }
  // Only a zone that was given is checked: `UTC` always is one, and the check's first `Intl.DateTimeFormat` loads the
  // time zone data, which would put it in every cold start.
  if (given.timeZone !== undefined && !isTimeZone(timeZone)) {
    throw new Error(
      `${names.timeZone} must be an IANA time zone such as UTC or Europe/Paris, not ${JSON.stringify(timeZone)}.`,
    );
  }
  if (given.version !== undefined && !LIMITS.policyVersion.test(given.version)) {
    throw new Error(
      `${names.version} must be 1 to 64 visible ASCII characters (no spaces), not ${JSON.stringify(given.version)}.`,
    );
  }
  if (given.policies === undefined) {
    for (const key of ['schema', 'timeZone', 'version'] as const) {
      if (given[key] !== undefined) {
        throw new Error(`${names[key]} is set without ${names.policies}: name the policy file it is for.`);
      }
    }
    return undefined;
  }
  const settings: PolicySettings = { policies: given.policies, mode, default: fallback, timeZone };
  if (given.schema !== undefined) settings.schema = given.schema;
  if (given.version !== undefined) settings.version = given.version;
  return settings;
}

/** Whether `zone` is a time zone this runtime knows (an IANA name, or `UTC`). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone !== '';
  } catch {
    return false;
  }
}
