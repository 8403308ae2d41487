import { vi } from 'vitest';
import { aiSdkAdapterSuite, aiSdkProviderSuite } from './ai-sdk-suites.ts';

/**
 * handback/ai-sdk on `ai` 7, in this process: `ai`, `ai/test` and `@ai-sdk/openai` are the aliases the repository
 * installs beside `ai` 6 (`ai-v7`, `ai-sdk-openai-v4`), for this file's every module — the adapter's own import of
 * `ai` included — so the same suites as `ai-sdk.store.test.ts` and `provider-requests.store.test.ts` run on AI SDK 7.
 */
vi.mock('ai', () => import('ai-v7'));
vi.mock('ai/test', () => import('ai-v7/test'));
vi.mock('@ai-sdk/openai', () => import('ai-sdk-openai-v4'));

aiSdkAdapterSuite(7);
aiSdkProviderSuite(7);
