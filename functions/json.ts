import { LIMITS } from './vocabulary.ts';

/**
 * JSON values as every check sees them: what JSON cannot carry, how many bytes and levels a value takes, its
 * canonical text. A leaf of the words layer (the input schemas of `inputs.ts` and `wire.ts` use it) and browser-safe
 * (the inbox page bundles the schema checks): no `Buffer`, no `node:` imports. Every walk is iterative, so a value
 * nested thousands of levels deep is measured, not a stack overflow.
 */

/**
 * A value as an error message may quote it: a string (cut to 140 characters) or a number as itself, anything else by
 * its type. Never calls the value's own `toString`, which a hostile object may make throw.
 */
export function shown(value: unknown): string {
  if (typeof value === 'string') return value.length > 140 ? `${value.slice(0, 140)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean') return `${value}`;
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

/** Whether `value` is a plain JSON object (not an array, not a class instance). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** What a walk of a JSON value learned: its bytes as JSON text (UTF-8) and how deep it nests (a scalar is 0). */
export interface JsonShape {
  bytes: number;
  depth: number;
}

/**
 * The bytes and depth of `value` as JSON, or undefined when it is not JSON (undefined, a function, a symbol, a bigint,
 * a non-finite number, a class instance, an array hole, a cycle). Counts what `JSON.stringify` would write, without
 * writing it: an object member whose value is undefined is left out, as `JSON.stringify` leaves it out.
 */
export function jsonShape(value: unknown): JsonShape | undefined {
  let bytes = 0;
  let depth = 0;
  // A node to measure, or (`exit`) a container whose children are done: it leaves the current path.
  const stack: Array<{ node: unknown; level: number; exit?: boolean }> = [{ node: value, level: 0 }];
  const onPath = new Set<object>();
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { node, level } = next;
    if (next.exit) {
      onPath.delete(node as object);
      continue;
    }
    switch (typeof node) {
      case 'string':
        bytes += utf8Bytes(JSON.stringify(node));
        continue;
      case 'number':
        if (!Number.isFinite(node)) return undefined;
        bytes += JSON.stringify(node).length;
        continue;
      case 'boolean':
        bytes += node ? 4 : 5;
        continue;
      case 'object':
        break;
      default:
        return undefined;
    }
    if (node === null) {
      bytes += 4;
      continue;
    }
    if (onPath.has(node)) return undefined;
    const isArray = Array.isArray(node);
    if (!isArray && !isPlainObject(node)) return undefined;
    depth = Math.max(depth, level + 1);
    onPath.add(node);
    stack.push({ node, level, exit: true });
    if (isArray) {
      bytes += 2 + Math.max(0, node.length - 1);
      for (let index = node.length - 1; index >= 0; index--) {
        if (!(index in node)) return undefined;
        stack.push({ node: node[index], level: level + 1 });
      }
    } else {
      // A member whose value is undefined is left out, as JSON.stringify leaves it out.
      const keys = Object.keys(node).filter((key) => (node as Record<string, unknown>)[key] !== undefined);
      bytes += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        bytes += utf8Bytes(JSON.stringify(key)) + 1;
        stack.push({ node: (node as Record<string, unknown>)[key], level: level + 1 });
      }
    }
  }
  return { bytes, depth };
}

/**
 * Whether `value` nests more than `levels` levels deep (a scalar is none, `[1]` one): walked without recursion, in
 * time linear in its size, and stopped at the first container too deep.
 */
export function nestsDeeperThan(value: unknown, levels: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= levels) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Bytes of `value` as JSON text (UTF-8), or undefined when it is not JSON. */
export function jsonBytes(value: unknown): number | undefined {
  return jsonShape(value)?.bytes;
}

/** Where in a value (a JSON pointer) it stops being JSON, and why. */
export interface JsonProblem {
  path: string;
  message: string;
  /** The value is JSON, only nested deeper than `LIMITS.bodyDepth`: what a request body could not be either. */
  tooDeep?: true;
}

/** One object or array being walked: its keys (`undefined` for an array), the next one, and how it was reached. */
interface Frame {
  value: object;
  keys: string[] | undefined;
  size: number;
  next: number;
  key: string;
}

/**
 * The first reason `value` is not JSON as Handback takes it, or undefined when it is: a value JSON cannot carry
 * (undefined, a function, a class instance, `NaN`, a hole, a cycle), or nesting deeper than `LIMITS.bodyDepth` levels
 * (as deep as the HTTP edge lets a request nest, far below what any recursion can bear). Walked without recursion and
 * in time linear in its size; shared references are fine, only a value inside itself is a cycle. A member whose
 * value is undefined counts as absent, as `JSON.stringify` leaves it out: SDKs write such members (the AI SDK's
 * `providerOptions: undefined`), and no provider can tell them from an absent one.
 */
export function jsonProblem(value: unknown): JsonProblem | undefined {
  const frames: Frame[] = [];
  const open = new Set<object>();
  const pathTo = (key: string) =>
    [...frames.slice(1).map((frame) => frame.key), ...(frames.length > 0 ? [key] : [])]
      .map((part) => `/${part.replaceAll('~', '~0').replaceAll('/', '~1')}`)
      .join('');
  let current: unknown = value;
  let key = '';
  for (;;) {
    const problem = valueProblem(current);
    if (problem !== undefined) return { path: pathTo(key), message: problem };
    if (typeof current === 'object' && current !== null) {
      if (open.has(current)) return { path: pathTo(key), message: 'refers to itself' };
      if (frames.length >= LIMITS.bodyDepth) {
        return { path: pathTo(key), message: `nests more than ${LIMITS.bodyDepth} levels deep`, tooDeep: true };
      }
      const keys = Array.isArray(current) ? undefined : Object.keys(current);
      const size = keys === undefined ? (current as unknown[]).length : keys.length;
      frames.push({ value: current, keys, size, next: 0, key });
      open.add(current);
    }
    // The next value to look at: the next child of the innermost open object, closing the finished ones.
    let frame = frames.at(-1);
    while (frame !== undefined && frame.next >= frame.size) {
      open.delete(frame.value);
      frames.pop();
      frame = frames.at(-1);
    }
    if (frame === undefined) return undefined;
    const index = frame.next++;
    if (frame.keys === undefined) {
      key = String(index);
      if (!(index in frame.value)) {
        return { path: pathTo(key), message: 'is a hole in an array, which JSON cannot carry' };
      }
      current = (frame.value as unknown[])[index];
    } else {
      key = frame.keys[index] as string;
      current = (frame.value as Record<string, unknown>)[key];
      if (current === undefined) current = null;
    }
  }
}

/** Why a single value is not JSON, without looking inside it. */
function valueProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `is ${value}, which JSON cannot carry`;
    case 'object': {
      if (value === null || Array.isArray(value)) return undefined;
      const proto = Object.getPrototypeOf(value);
      return proto === Object.prototype || proto === null
        ? undefined
        : `is a ${proto?.constructor?.name ?? 'non-plain'} object, not a JSON object`;
    }
    default:
      return `is ${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}, which JSON cannot carry`;
  }
}

/**
 * JSON text with object keys sorted, so that equal JSON values have equal text whatever their key order (what the
 * hashes of decisions, arguments and requests are taken of). Written without recursion: a value nested thousands of
 * levels deep is text, not a stack overflow. As `JSON.stringify` does, a key whose value JSON cannot carry
 * (undefined, a function, a symbol) is left out.
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  // A value to write, or (`text`) text to write as it is: the commas and brackets between a container's children.
  const stack: Array<{ value: unknown } | { text: string }> = [{ value }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if ('text' in next) {
      parts.push(next.text);
      continue;
    }
    const node = next.value;
    if (node === null || typeof node !== 'object') {
      parts.push(JSON.stringify(node));
      continue;
    }
    const items: Array<{ value: unknown } | { text: string }> = [];
    if (Array.isArray(node)) {
      node.forEach((item, index) => {
        if (index > 0) items.push({ text: ',' });
        items.push({ value: item });
      });
      parts.push('[');
      stack.push({ text: ']' });
    } else {
      const record = node as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((key) => {
          const item = record[key];
          return item !== undefined && typeof item !== 'function' && typeof item !== 'symbol';
        })
        .sort();
      keys.forEach((key, index) => {
        items.push({ text: `${index > 0 ? ',' : ''}${JSON.stringify(key)}:` });
        items.push({ value: record[key] });
      });
      parts.push('{');
      stack.push({ text: '}' });
    }
    for (let index = items.length - 1; index >= 0; index--) stack.push(items[index] as { value: unknown });
  }
  return parts.join('');
}

/** `text` with its first letter in upper case: a problem's message as the start of its sentence. */
export function capitalize(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

const encoder = new TextEncoder();

/** UTF-8 bytes of `text`; lone surrogates count as the three bytes of U+FFFD, as `TextEncoder` writes them. */
export function utf8Bytes(text: string): number {
  // Pure ASCII is the common case and needs no encoding.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is the point
  if (/^[\u0000-\u007f]*$/.test(text)) return text.length;
  return encoder.encode(text).byteLength;
}

/**
 * Numbers that stand for JSON values as JSON Schema compares them (`enum`, `const`, `uniqueItems`): two values get the
 * same number exactly when they are equal — objects whatever their key order, numbers by value, so `1` and `1.0` are
 * one. Each object or array is numbered once, from its children's numbers, so numbering a whole answer costs time
 * linear in its size however often its parts are compared. Use one table per check: it remembers every value it saw.
 */
export class JsonValueIds {
  readonly #ids = new Map<string, number>();
  readonly #known = new WeakMap<object, number>();
  readonly #byList = new WeakMap<readonly unknown[], Set<number>>();

  /** The number of `value`, a JSON value. */
  idOf(value: unknown): number {
    if (typeof value !== 'object' || value === null) return this.#intern(scalarKey(value));
    // Children first, without recursion. A container is marked -1 while its children are numbered: the marked ones are
    // the path down to the one being numbered, so meeting one again means the value contains itself.
    const stack: object[] = [value];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as object;
      const state = this.#known.get(top);
      if (state === undefined) {
        this.#known.set(top, -1);
        for (const child of Array.isArray(top) ? top : Object.values(top)) {
          if (typeof child !== 'object' || child === null) continue;
          const known = this.#known.get(child);
          if (known === -1) throw new TypeError('A JSON value cannot contain itself.');
          if (known === undefined) stack.push(child);
        }
        continue;
      }
      stack.pop();
      if (state === -1) this.#known.set(top, this.#intern(this.#containerKey(top)));
    }
    return this.#known.get(value) as number;
  }

  /** Whether `value` equals one of `values` (as JSON Schema's `enum`); `values` is numbered once per table. */
  isOneOf(value: unknown, values: readonly unknown[]): boolean {
    let ids = this.#byList.get(values);
    if (ids === undefined) {
      ids = new Set(values.map((candidate) => this.idOf(candidate)));
      this.#byList.set(values, ids);
    }
    return ids.has(this.idOf(value));
  }

  /** Whether `a` equals `b` (as JSON Schema's `const`). */
  equal(a: unknown, b: unknown): boolean {
    if (a === b) return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    if (Array.isArray(a) && a.length !== (b as unknown[]).length) return false;
    return this.idOf(a) === this.idOf(b);
  }

  /**
   * The last pair of equal items of `items` as `[i, j]`, `j < i` (as ajv reports `uniqueItems`: the highest index
   * that repeats an earlier item, and the nearest earlier one), or undefined when all are distinct.
   */
  duplicateItems(items: readonly unknown[]): [number, number] | undefined {
    let found: [number, number] | undefined;
    const lastSeen = new Map<number, number>();
    for (let index = 0; index < items.length; index++) {
      const id = this.idOf(items[index]);
      const earlier = lastSeen.get(id);
      if (earlier !== undefined) found = [index, earlier];
      lastSeen.set(id, index);
    }
    return found;
  }

  #intern(key: string): number {
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = this.#ids.size;
      this.#ids.set(key, id);
    }
    return id;
  }

  #childId(child: unknown): number {
    return typeof child === 'object' && child !== null
      ? (this.#known.get(child) as number)
      : this.#intern(scalarKey(child));
  }

  // A key names a container by its kind and its children's numbers, so it is as long as the container's own entries,
  // not its whole subtree. A member is written `length:name` then its number, which no other sequence can read as.
  #containerKey(node: object): string {
    if (Array.isArray(node)) {
      let key = '[';
      for (const child of node) key += `${this.#childId(child)},`;
      return key;
    }
    const record = node as Record<string, unknown>;
    const names = Object.keys(record);
    if (names.length > 1) names.sort();
    let key = '{';
    for (const name of names) key += `${name.length}:${name}${this.#childId(record[name])},`;
    return key;
  }
}

function scalarKey(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `s${value}`;
    case 'number':
      // `String` writes 1 and 1.0 alike, and -0 as 0: JSON Schema compares numbers by value.
      return `n${String(value)}`;
    case 'boolean':
      return value ? 't' : 'f';
    default:
      return 'z';
  }
}
