// PLACEHOLDER: replaced by the real format module.
import { openaiChat } from './openai-chat.ts';
export const gemini = openaiChat as never;
