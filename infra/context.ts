import type { Construct } from 'constructs';
import { type ContextKeys, SETTINGS } from '../functions/settings.ts';

/**
 * The stack's context keys (`cdk.json` or `-c key=value`), by their rows of `functions/settings.ts`, and their reading:
 * each value as the type its setting has, or a `ConfigurationError` naming the key.
 */

/**
 * The context keys that configure the stack from `cdk.json` or `-c key=value`, for deployments that do not write
 * their own `app.ts`, by the name of their setting in `functions/settings.ts`. A stack prop, when given, wins over its
 * context key.
 */
export const CONTEXT = Object.fromEntries(
  Object.entries(SETTINGS).flatMap(([name, setting]) =>
    'context' in setting && setting.context !== undefined ? [[name, setting.context]] : [],
  ),
) as ContextKeys;

/**
 * A setting that cannot work, said in one line that names the prop or context key and what to set. `infra/app.ts`
 * prints the message alone and exits non-zero: a stack trace would only hide it.
 */
export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}

/** A context value as a non-empty string, or undefined. */
export function contextString(scope: Construct, key: string): string | undefined {
  const value: unknown = scope.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new ConfigurationError(`Context ${key} must be a string, not ${JSON.stringify(value)}.`);
  }
  return String(value);
}

/** A context value as a list: a JSON array, or a comma-separated string (what `-c key=a,b` gives). */
export function contextList(scope: Construct, key: string): string[] | undefined {
  const value: unknown = scope.node.tryGetContext(key);
  if (Array.isArray(value)) return value.map(String);
  const text = contextString(scope, key);
  return text === undefined
    ? undefined
    : text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
}

/** A context value as a positive integer. */
export function contextInteger(scope: Construct, key: string): number | undefined {
  const text = contextString(scope, key);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0)
    throw new ConfigurationError(`Context ${key} must be a positive integer, not ${text}.`);
  return value;
}

/** A context value as a boolean: `true`/`false`, or the strings `-c key=true` gives. */
export function contextBoolean(scope: Construct, key: string): boolean | undefined {
  const value: unknown = scope.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new ConfigurationError(`Context ${key} must be true or false, not ${JSON.stringify(value)}.`);
}

/** Words as a refusal lists them: `a, b or c`. */
export function oneOf(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** A `words` setting's context value: one of its words, else a refusal listing them. */
export function contextWord<const T extends string>(
  scope: Construct,
  setting: { context: string; values: readonly T[] },
): T | undefined {
  const value = contextString(scope, setting.context);
  if (value === undefined) return undefined;
  if (!(setting.values as readonly string[]).includes(value)) {
    throw new ConfigurationError(`Context ${setting.context} must be ${oneOf(setting.values)}, not ${value}.`);
  }
  return value as T;
}
