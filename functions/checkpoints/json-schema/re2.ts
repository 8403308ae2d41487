import { RE2JS } from 're2js';

// Patterns on RE2.

type LinearPattern = { regExp: RE2JS } | { problem: string };

const patterns = new Map<string, LinearPattern>();
const PATTERNS_MAX = 256;

/** `source` compiled for RE2, with the meaning ECMA-262 gives it under the `u` flag, or why it cannot be. */
export function linearPattern(source: string): LinearPattern {
  const known = patterns.get(source);
  if (known) return known;
  const result = compilePattern(source);
  if (patterns.size >= PATTERNS_MAX) patterns.clear();
  patterns.set(source, result);
  return result;
}

function compilePattern(source: string): LinearPattern {
  try {
    // Only parsed, never run: V8 parses a pattern in time linear in its length.
    new RegExp(source, 'u');
  } catch (cause) {
    return { problem: `is not an ECMA-262 regular expression (${(cause as Error).message})` };
  }
  let translated: string;
  try {
    translated = toRe2(source);
  } catch (cause) {
    if (cause instanceof UnsupportedPattern) return { problem: cause.message };
    throw cause;
  }
  try {
    return { regExp: RE2JS.compile(translated) };
  } catch (cause) {
    return {
      problem: `cannot run on a linear-time regular-expression engine (RE2: ${(cause as Error).message})`,
    };
  }
}

/**
 * Whether `source` can be a `pattern` here, and if not why: it must be an ECMA-262 regular expression (with the `u`
 * flag, as JSON Schema specifies) that RE2 can run with the same meaning.
 */
export function patternProblem(source: string): string | undefined {
  const compiled = linearPattern(source);
  return 'problem' in compiled ? compiled.problem : undefined;
}

/** ajv's `code.regExp`: every `pattern` and `patternProperties` of a compiled schema runs on RE2. */
export const linearRegExpEngine = Object.assign(
  (source: string) => {
    const compiled = linearPattern(source);
    if ('problem' in compiled) throw new Error(`pattern ${JSON.stringify(source)} ${compiled.problem}`);
    const { regExp } = compiled;
    // ajv keys its cache of patterns by `toString()`: it must differ between patterns.
    return { test: (text: string) => regExp.test(text), toString: () => `/${source}/u (RE2)` };
  },
  { code: 'handbackLinearRegExp' },
);

class UnsupportedPattern extends Error {}

const hex = (codePoint: number) => `\\x{${codePoint.toString(16)}}`;
const rangesText = (ranges: ReadonlyArray<readonly [number, number]>) =>
  ranges.map(([low, high]) => (low === high ? hex(low) : `${hex(low)}-${hex(high)}`)).join('');

// ECMA-262 `\s`: WhiteSpace and LineTerminator. RE2's `\s` is ASCII only.
const WHITESPACE: ReadonlyArray<readonly [number, number]> = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const NOT_WHITESPACE = complement(WHITESPACE);
const WHITESPACE_TEXT = rangesText(WHITESPACE);
const NOT_WHITESPACE_TEXT = rangesText(NOT_WHITESPACE);
// ECMA-262 `.` stops at every line terminator; RE2's only at `\n`.
const DOT = `[^${rangesText([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
])}]`;
const ANYTHING = `[${hex(0)}-${hex(0x10ffff)}]`;
const NOTHING = `[^${hex(0)}-${hex(0x10ffff)}]`;

function complement(ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const result: Array<[number, number]> = [];
  let next = 0;
  for (const [low, high] of ranges) {
    if (low > next) result.push([next, low - 1]);
    next = high + 1;
  }
  if (next <= 0x10ffff) result.push([next, 0x10ffff]);
  return result;
}

// ECMA-262 names General_Category values long or short; RE2 knows the short ones.
const GENERAL_CATEGORIES: Record<string, string> = {
  Letter: 'L',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Combining_Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
};

function propertyName(body: string): string {
  const equals = body.indexOf('=');
  if (equals < 0) return GENERAL_CATEGORIES[body] ?? body;
  const name = body.slice(0, equals);
  const value = body.slice(equals + 1);
  if (name === 'General_Category' || name === 'gc') return GENERAL_CATEGORIES[value] ?? value;
  if (name === 'Script' || name === 'sc') return value;
  // Script_Extensions and the like: RE2 refuses the name, and the pattern is refused with its message.
  return body;
}

/** One unit a class or the pattern is built of: a code point, or a set written for RE2 outside and inside a class. */
type Atom = { char: number } | { set: string; inClass: string } | { assertion: string };

/**
 * `source`, a valid ECMA-262 `u` pattern, rewritten in RE2 syntax with the same meaning. Literal characters in classes
 * are written as `\x{…}`, so nothing ECMA-262 treats as literal (`[`, `:`, `&`, `-` at an edge) means more to RE2.
 */
function toRe2(source: string): string {
  let at = 0;
  let out = '';

  const codePointAt = (index: number) => source.codePointAt(index) as number;
  const take = () => {
    const codePoint = codePointAt(at);
    at += codePoint > 0xffff ? 2 : 1;
    return codePoint;
  };
  const hexDigits = (count: number) => {
    const digits = source.slice(at, at + count);
    at += count;
    return Number.parseInt(digits, 16);
  };

  function escaped(inClass: boolean): Atom {
    const letter = String.fromCodePoint(take());
    switch (letter) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
        return { set: `\\${letter}`, inClass: `\\${letter}` };
      case 's':
        return { set: `[${WHITESPACE_TEXT}]`, inClass: WHITESPACE_TEXT };
      case 'S':
        return { set: `[^${WHITESPACE_TEXT}]`, inClass: NOT_WHITESPACE_TEXT };
      case 'b':
        return inClass ? { char: 0x08 } : { assertion: '\\b' };
      case 'B':
        return { assertion: '\\B' };
      case 'f':
        return { char: 0x0c };
      case 'n':
        return { char: 0x0a };
      case 'r':
        return { char: 0x0d };
      case 't':
        return { char: 0x09 };
      case 'v':
        return { char: 0x0b };
      case '0':
        return { char: 0 };
      case 'c':
        return { char: take() % 32 };
      case 'x':
        return { char: hexDigits(2) };
      case 'u': {
        if (source[at] === '{') {
          const end = source.indexOf('}', at);
          const codePoint = Number.parseInt(source.slice(at + 1, end), 16);
          at = end + 1;
          return { char: codePoint };
        }
        const unit = hexDigits(4);
        // Under `u`, an escaped surrogate pair is the one code point it encodes.
        if (unit >= 0xd800 && unit <= 0xdbff && /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(source.slice(at, at + 6))) {
          at += 2;
          const low = hexDigits(4);
          return { char: 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00) };
        }
        return { char: unit };
      }
      case 'p':
      case 'P': {
        const end = source.indexOf('}', at);
        const name = propertyName(source.slice(at + 1, end));
        at = end + 1;
        return { set: `\\${letter}{${name}}`, inClass: `\\${letter}{${name}}` };
      }
      case 'k':
        throw new UnsupportedPattern('uses a named backreference (\\k<…>), which a linear-time engine cannot run');
      default:
        if (letter >= '1' && letter <= '9') {
          throw new UnsupportedPattern(`uses a backreference (\\${letter}), which a linear-time engine cannot run`);
        }
        // An escaped syntax character (`\.`, `\/`, `\-`, …) is itself.
        return { char: letter.codePointAt(0) as number };
    }
  }

  function classAtom(): Atom {
    const codePoint = take();
    return codePoint === 0x5c ? escaped(true) : { char: codePoint };
  }

  function characterClass(): string {
    let negated = false;
    if (source[at] === '^') {
      negated = true;
      at += 1;
    }
    let body = '';
    while (source[at] !== ']') {
      const low = classAtom();
      if ('char' in low && source[at] === '-' && source[at + 1] !== ']') {
        at += 1;
        const high = classAtom() as { char: number };
        body += `${hex(low.char)}-${hex(high.char)}`;
      } else {
        body += 'char' in low ? hex(low.char) : 'inClass' in low ? low.inClass : '';
      }
    }
    at += 1;
    if (body === '') return negated ? ANYTHING : NOTHING;
    return `[${negated ? '^' : ''}${body}]`;
  }

  function group(): string {
    if (source[at] !== '?') return '(';
    const rest = source.slice(at, at + 3);
    if (rest.startsWith('?:')) {
      at += 2;
      return '(?:';
    }
    if (rest.startsWith('?=') || rest.startsWith('?!')) {
      throw new UnsupportedPattern('uses a lookahead ((?=…) or (?!…)), which a linear-time engine cannot run');
    }
    if (rest === '?<=' || rest === '?<!') {
      throw new UnsupportedPattern('uses a lookbehind ((?<=…) or (?<!…)), which a linear-time engine cannot run');
    }
    if (rest.startsWith('?<')) {
      // A named group: its name matters only to backreferences, which are refused.
      at = source.indexOf('>', at) + 1;
      return '(?:';
    }
    throw new UnsupportedPattern('uses inline modifiers ((?i:…)), which are not part of ECMA-262 here');
  }

  while (at < source.length) {
    const codePoint = take();
    switch (codePoint) {
      case 0x5c: {
        const atom = escaped(false);
        out += 'char' in atom ? hex(atom.char) : 'set' in atom ? atom.set : atom.assertion;
        break;
      }
      case 0x5b:
        out += characterClass();
        break;
      case 0x2e:
        out += DOT;
        break;
      case 0x28:
        out += group();
        break;
      default:
        // Syntax characters (`^ $ | ) * + ? { }`) mean the same to RE2; anything else is a literal.
        out += String.fromCodePoint(codePoint);
    }
  }
  return out;
}
