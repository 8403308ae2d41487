import type { FormatName } from '../../vocabulary.ts';
import { aiSdk } from './ai-sdk.ts';
import { anthropic } from './anthropic.ts';
import { bedrockConverse } from './bedrock-converse.ts';
import type { MessageFormat } from './format.ts';
import { gemini } from './gemini.ts';
import { langchain } from './langchain.ts';
import { isFormatName, unknownFormat } from './load.ts';
import { openaiChat } from './openai-chat.ts';
import { openaiResponses } from './openai-responses.ts';

/**
 * The table of formats, every one loaded with this module (the library's synchronous `rehydrate`): adding one is a
 * module beside this file, a line here and a line in `load.ts`'s loaders.
 */
export const formats = {
  langchain,
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
  anthropic,
  'bedrock-converse': bedrockConverse,
  gemini,
  'ai-sdk': aiSdk,
} as const satisfies Record<FormatName, MessageFormat<unknown>>;

export { isFormatName } from './load.ts';

/** The format module for `name`; an unknown name is an `InvalidTranscriptError` that says which are known. */
export function formatOf(name: unknown): MessageFormat {
  if (!isFormatName(name)) throw unknownFormat(name);
  return formats[name] as unknown as MessageFormat;
}
