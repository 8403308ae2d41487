/**
 * A continuation's messages kept as JSON until someone reads them as values. A resume rebuilds only the paused round;
 * every message before it is the stored transcript's own, and its JSON text is already in hand (decompressed, its
 * hash checked). So a continuation carries that text untouched plus the rebuilt round, and the handlers write the
 * same text into a response or a hand-off pointer without parsing the transcript and serializing it again. A caller
 * that reads `messages` gets the array, parsed once on first read: the library's `resume` keeps its type.
 *
 * The text is the one `JSON.stringify` writes for the messages: the stored text was written by `JSON.stringify` of
 * JSON values, and parsing such text and writing it again gives it back byte for byte (keys keep their order, numbers
 * and strings their shortest form), so splicing changes no byte of what a client or the next invocation receives.
 */

/** The messages of a continuation as JSON: the stored text of the messages before the paused round, and the round. */
export class MessagesJson {
  /** The stored text up to the paused round: `[` and the earlier messages, each followed by `,` (UTF-8). */
  readonly #head: Uint8Array;
  /** How many messages `#head` holds. */
  readonly #before: number;
  /** The paused round as rebuilt, and what follows it. */
  readonly #round: readonly unknown[];
  #roundText: string | undefined;

  /** `roundText`, when the caller has it already, is `JSON.stringify(round)`. */
  constructor(head: Uint8Array, before: number, round: readonly unknown[], roundText?: string) {
    this.#head = head;
    this.#before = before;
    this.#round = round;
    this.#roundText = roundText;
  }

  /** How many messages. */
  get length(): number {
    return this.#before + this.#round.length;
  }

  /** UTF-8 bytes of the whole text. */
  get byteLength(): number {
    return this.#head.length + Buffer.byteLength(this.#tail());
  }

  /** The whole text: `JSON.stringify` of the messages. */
  text(): string {
    return Buffer.from(this.#head.buffer, this.#head.byteOffset, this.#head.length).toString('utf8') + this.#tail();
  }

  /** The messages as values: the earlier ones parsed from their text, then the round. */
  parse(): unknown[] {
    if (this.#before === 0) return [...this.#round];
    // The head ends with the comma after the last earlier message: close the array there instead.
    const earlier = Buffer.from(this.#head.buffer, this.#head.byteOffset, this.#head.length - 1).toString('utf8');
    return (JSON.parse(`${earlier}]`) as unknown[]).concat(this.#round);
  }

  /** The round's text without its opening bracket: what follows the head. */
  #tail(): string {
    this.#roundText ??= JSON.stringify(this.#round);
    return this.#roundText.slice(1);
  }
}

/** The objects whose `messages` are still their JSON (never read as values, so never changed). */
const unread = new WeakMap<object, MessagesJson>();

/**
 * Gives `target` (which must already have a `messages` key, so the key keeps its place in the object's key order) a
 * `messages` property that parses `json` on first read, then holds the array like any property.
 */
export function withLazyMessages<T extends { messages: unknown }>(target: T, json: MessagesJson): T {
  const settle = (value: unknown) => {
    Object.defineProperty(target, 'messages', { value, writable: true, enumerable: true, configurable: true });
    unread.delete(target);
  };
  Object.defineProperty(target, 'messages', {
    enumerable: true,
    configurable: true,
    get() {
      const value = json.parse();
      settle(value);
      return value;
    },
    set: settle,
  });
  unread.set(target, json);
  return target;
}

/** The JSON of `value.messages` while they have not been read as values, else undefined. */
export function messagesJsonOf(value: object): MessagesJson | undefined {
  return unread.get(value);
}

/** How many messages `value` carries, without parsing them. */
export function messageCount(value: { messages: readonly unknown[] }): number {
  return unread.get(value)?.length ?? value.messages.length;
}

/**
 * Copies the own keys of `source` (but those in `omit`) onto `target`, in order, as a spread would — except that
 * unparsed `messages` stay unparsed (a spread would read them). Returns `target`.
 */
export function copyInto<T extends object, S extends object, K extends string = never>(
  target: T,
  source: S,
  omit: readonly K[] = [],
): T & Omit<S, K> {
  const json = unread.get(source);
  const copy = target as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    if ((omit as readonly string[]).includes(key)) continue;
    copy[key] = key === 'messages' && json !== undefined ? undefined : (source as Record<string, unknown>)[key];
  }
  if (json !== undefined && Object.hasOwn(copy, 'messages')) withLazyMessages(copy as { messages: unknown }, json);
  return target as T & Omit<S, K>;
}

/** Sets `target.messages` (a key it has already) to `source.messages`, unparsed when they are. Returns `target`. */
export function carryMessages<T extends { messages?: unknown }>(target: T, source: { messages: unknown }): T {
  const json = unread.get(source);
  if (json === undefined) target.messages = source.messages;
  else withLazyMessages(target as { messages: unknown }, json);
  return target;
}

/**
 * `JSON.stringify(value)` of a plain object, its unparsed `messages` spliced in as their text: the same string,
 * without parsing them.
 */
export function stringifyWithMessages(value: object): string {
  const json = unread.get(value);
  if (json === undefined) return JSON.stringify(value);
  const members: string[] = [];
  for (const key of Object.keys(value)) {
    const text = key === 'messages' ? json.text() : JSON.stringify((value as Record<string, unknown>)[key]);
    // As JSON.stringify does, a member whose value JSON cannot carry (undefined, a function) is left out.
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}

/** UTF-8 bytes of `stringifyWithMessages(value)`, without writing the messages' text. */
export function jsonByteLength(value: object): number {
  const json = unread.get(value);
  if (json === undefined) return Buffer.byteLength(JSON.stringify(value) ?? '');
  let bytes = 2;
  let members = 0;
  for (const key of Object.keys(value)) {
    if (key === 'messages') {
      bytes += Buffer.byteLength(JSON.stringify(key)) + 1 + json.byteLength;
      members++;
      continue;
    }
    const text = JSON.stringify((value as Record<string, unknown>)[key]);
    if (text === undefined) continue;
    bytes += Buffer.byteLength(JSON.stringify(key)) + 1 + Buffer.byteLength(text);
    members++;
  }
  return bytes + Math.max(0, members - 1);
}
