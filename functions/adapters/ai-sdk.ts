/** `handback/ai-sdk`: the AI SDK adapter (§15), being written. */
export {};
