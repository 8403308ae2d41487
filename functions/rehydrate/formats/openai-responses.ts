// PLACEHOLDER: replaced by the real format module.
import { openaiChat } from './openai-chat.ts';
export const openaiResponses = openaiChat as never;
