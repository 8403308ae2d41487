/**
 * A module hook (`node --import ./test/support/ai-v7.mjs`) that runs a process on AI SDK 7: `ai`, `ai/*` and
 * `@ai-sdk/openai` resolve to the `ai-v7` and `ai-sdk-openai-v4` aliases the repository installs beside `ai` 6
 * (package.json), so the same code and the same adapter run on both majors. Everything else resolves as usual.
 */
import { register } from 'node:module';

const hooks = `
  const aliases = [[/^ai(?=$|\\/)/, 'ai-v7'], [/^@ai-sdk\\/openai$/, 'ai-sdk-openai-v4']];
  export async function resolve(specifier, context, next) {
    for (const [pattern, alias] of aliases) if (pattern.test(specifier)) return next(specifier.replace(pattern, alias), context);
    return next(specifier, context);
  }`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
