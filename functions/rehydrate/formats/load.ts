import { InvalidTranscriptError } from '../../errors.ts';
import { FORMAT_NAMES, type FormatName, isOneOf } from '../../vocabulary.ts';
import type { MessageFormat } from './format.ts';

/**
 * Each format's module loaded on first use: a Lambda function meets one or two of the seven formats, so each is a
 * dynamic `import()` of its own (one esbuild chunk per format, read and parsed only when a pause of that format is
 * met), and the module promise is kept, so a container loads a format once. A pause's format is on its record (or
 * its input) before anything is rebuilt, so the checkpoint service awaits `loadFormat` and hands the module to the
 * synchronous rules of `core.ts`. The library's synchronous `rehydrate` keeps the eager table (`index.ts`).
 */
const LOADERS: { [F in FormatName]: () => Promise<MessageFormat> } = {
  langchain: async () => (await import('./langchain.ts')).langchain as MessageFormat,
  'openai-chat': async () => (await import('./openai-chat.ts')).openaiChat as MessageFormat,
  'openai-responses': async () => (await import('./openai-responses.ts')).openaiResponses as MessageFormat,
  anthropic: async () => (await import('./anthropic.ts')).anthropic as MessageFormat,
  'bedrock-converse': async () => (await import('./bedrock-converse.ts')).bedrockConverse as MessageFormat,
  gemini: async () => (await import('./gemini.ts')).gemini as MessageFormat,
  'ai-sdk': async () => (await import('./ai-sdk.ts')).aiSdk as MessageFormat,
};

const loaded = new Map<FormatName, Promise<MessageFormat>>();

/** Whether `name` is a known format. */
export function isFormatName(name: unknown): name is FormatName {
  return isOneOf(FORMAT_NAMES, name);
}

/** The error of an unknown format name, saying which are known. */
export function unknownFormat(name: unknown): InvalidTranscriptError {
  return new InvalidTranscriptError(
    `Unknown message format ${JSON.stringify(name)}: use one of ${FORMAT_NAMES.join(', ')}.`,
  );
}

/**
 * The format module for `name`, loaded on first use and kept; an unknown name rejects with the
 * `InvalidTranscriptError` that `formatOf` throws. A load that fails (a chunk that cannot be read) is not kept, so
 * the next request tries again.
 */
export function loadFormat(name: unknown): Promise<MessageFormat> {
  if (!isFormatName(name)) return Promise.reject(unknownFormat(name));
  let module = loaded.get(name);
  if (module === undefined) {
    module = LOADERS[name]();
    loaded.set(name, module);
    module.catch(() => loaded.delete(name));
  }
  return module;
}
