/**
 * JSON for reading, pure. Values come from models and agents: they are shown as text only (never markup), and the
 * characters that could make text read differently from what it is — bidirectional overrides and isolates,
 * zero-width characters, line and paragraph separators — are shown escaped, as JSON allows.
 */

const INVISIBLE = /[\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** `value` as indented JSON, with invisible and direction-changing characters escaped. */
export function prettyJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? String(value);
  return escapeInvisible(text);
}

/** `text` with invisible and direction-changing characters written as `\uXXXX`. */
export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
