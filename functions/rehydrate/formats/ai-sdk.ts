// PLACEHOLDER: replaced by the real format module.
import { openaiChat } from './openai-chat.ts';
export const aiSdk = openaiChat as never;
