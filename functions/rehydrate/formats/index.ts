import { InvalidTranscriptError } from '../../errors.ts';
import { FORMAT_NAMES, type FormatName, isOneOf } from '../../vocabulary.ts';
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
} as const satisfies Record<FormatName, MessageFormat<unknown>>;

/** Whether `name` is a known format. */
export function isFormatName(name: unknown): name is FormatName {
  return isOneOf(FORMAT_NAMES, name);
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
