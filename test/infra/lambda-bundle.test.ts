import { describe, expect, it } from 'vitest';
import { bundleDefines } from '../../infra/lambda-bundle.ts';

/** What a function's bundle is built for, as esbuild's `define`s say it (`BundleDefines`, functions/settings.ts). */

describe('the bundles’ defines', () => {
  it('say whether a function is bundled with policies, beside its hand-off target, and nothing when not said', () => {
    expect(bundleDefines('sqs', false)).toEqual({
      'globalThis.HANDBACK_BUNDLED_HANDOFF_TARGET': '"sqs"',
      'globalThis.HANDBACK_BUNDLED_POLICIES': '"false"',
    });
    expect(bundleDefines(undefined, true)).toEqual({ 'globalThis.HANDBACK_BUNDLED_POLICIES': '"true"' });
    expect(bundleDefines('none')).toEqual({ 'globalThis.HANDBACK_BUNDLED_HANDOFF_TARGET': '"none"' });
  });
});
