import { InvalidTranscriptError } from '../../errors.ts';
import { aiSdk } from './ai-sdk.ts';
import { anthropic } from './anthropic.ts';
import { bedrockConverse } from './bedrock-converse.ts';
import type { MessageFormat } from './format.ts';
import { gemini } from './gemini.ts';
import { langchain } from './langchain.ts';
import { openaiChat } from './openai-chat.ts';
import { openaiResponses } from './openai-responses.ts';

/** The table of formats: adding one is a module beside this file and a line here. */
export const formats = {
  langchain,
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
  anthropic,
  'bedrock-converse': bedrockConverse,
  gemini,
  'ai-sdk': aiSdk,
} as const satisfies Record<string, MessageFormat<unknown>>;

/** The name of a message format, as a pause names it. */
export type FormatName = keyof typeof formats;

/** Every format name, in the contract's order. */
export const FORMAT_NAMES = Object.keys(formats) as FormatName[];

/** Whether `name` is a known format. */
export function isFormatName(name: unknown): name is FormatName {
  return typeof name === 'string' && Object.hasOwn(formats, name);
}

/** The format module for `name`; an unknown name is an `InvalidTranscriptError` that says which are known. */
export function formatOf(name: unknown): MessageFormat {
  if (!isFormatName(name)) {
    throw new InvalidTranscriptError(
      `Unknown message format ${JSON.stringify(name)}: use one of ${FORMAT_NAMES.join(', ')}.`,
    );
  }
  return formats[name] as unknown as MessageFormat;
}
