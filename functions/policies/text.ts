/**
 * Where in a file a Cedar message points: Cedar counts UTF-8 bytes from the start of the text it was given; people
 * read lines and columns of characters. Pure.
 */

/** A place in a file: line and column from 1, the column in characters (code points), not bytes. */
export interface TextPlace {
  line: number;
  column: number;
}

/** The line and column of the character that starts at `byteOffset` (UTF-8) in `text`; past the end, the end. */
export function placeOfByte(text: string, byteOffset: number): TextPlace {
  let bytes = 0;
  let line = 1;
  let column = 1;
  for (const char of text) {
    if (bytes >= byteOffset) break;
    bytes += utf8Length(char);
    if (char === '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
  return { line, column };
}

/** The line and column of the UTF-16 index `index` of `text` (as `indexOf` counts). */
export function placeOfIndex(text: string, index: number): TextPlace {
  return placeOfByte(text, utf8Bytes(text.slice(0, index)));
}

/** The UTF-8 length of `text`. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function utf8Length(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
}

/**
 * `text` with its `//` comments and the insides of its string literals blanked (same length, newlines kept), so that
 * a search for a keyword cannot match inside either.
 */
export function withoutCommentsAndStrings(text: string): string {
  let out = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === '/' && text[index + 1] === '/') {
      const end = text.indexOf('\n', index);
      const stop = end < 0 ? text.length : end;
      out += ' '.repeat(stop - index);
      index = stop;
    } else if (char === '"') {
      let end = index + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      end = Math.min(end, text.length);
      out += `"${text.slice(index + 1, end).replace(/[^\n]/g, ' ')}${end < text.length ? '"' : ''}`;
      index = end + 1;
    } else {
      out += char;
      index++;
    }
  }
  return out;
}

/** A statement of a policy file (a policy, `;` included) and where it starts. */
export interface Statement {
  /** Its text, from its first token to its `;`, as the file has it. */
  text: string;
  /** Where it starts: the UTF-16 index (as `indexOf` counts), the UTF-8 byte offset (as Cedar counts), the line. */
  index: number;
  byte: number;
  line: number;
}

/**
 * The statements of a policy file, in the file's order, found in one pass: each starts at the first character that
 * is neither white space nor a comment and ends at the next `;` outside a string (a Cedar policy holds none
 * elsewhere). A text after the last `;` is no statement.
 */
export function statementsOf(text: string): Statement[] {
  const masked = withoutCommentsAndStrings(text);
  const statements: Statement[] = [];
  let start: Omit<Statement, 'text'> | undefined;
  let byte = 0;
  let line = 1;
  for (let index = 0; index < text.length; index++) {
    const char = masked[index] as string;
    if (start === undefined && !/\s/.test(char)) start = { index, byte, line };
    if (start !== undefined && char === ';') {
      statements.push({ ...start, text: text.slice(start.index, index + 1) });
      start = undefined;
    }
    const code = text.charCodeAt(index);
    // A code point above U+FFFF is two UTF-16 units of two bytes each: four bytes in UTF-8.
    byte += code < 0x80 ? 1 : code < 0x800 ? 2 : code >= 0xd800 && code <= 0xdfff ? 2 : 3;
    if (code === 10) line++;
  }
  return statements;
}
