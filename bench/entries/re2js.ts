import { RE2JS } from 're2js';

/** re2js alone (Handback's linear-time `pattern`), to weigh it as a bundle. */
export const test = (pattern: string, text: string) => RE2JS.compile(pattern).matches(text);
