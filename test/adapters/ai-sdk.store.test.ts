import { aiSdkAdapterSuite } from './ai-sdk-suites.ts';

/**
 * handback/ai-sdk on `ai` 6 (approve, edit, reject, answer, several asks and people, cancel, expiry, a continuation
 * delivered again, a §17 policy's decision as the SDK's automatic approval, streamText): `ai-sdk-suites.ts`.
 * `ai-sdk-v7.store.test.ts` runs the same suite on `ai` 7.
 */
aiSdkAdapterSuite(6);
