import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/** The schema module runs in the inbox page and its worker: it bundles for the browser platform, RE2 and all. */

describe('the schema module in a browser', () => {
  it('bundles for the browser platform', async () => {
    const bundled = await build({
      entryPoints: [new URL('../../functions/checkpoints/json-schema/index.ts', import.meta.url).pathname],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    expect(bundled.errors).toEqual([]);
    expect(bundled.outputFiles[0]?.text).toContain('RE2');
  });
});
