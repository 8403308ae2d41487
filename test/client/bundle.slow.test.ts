import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/**
 * handback/client loads nothing of the server: bundled for a browser, its inputs are its own folder and the errors, and
 * it imports no Node module.
 */

describe('handback/client’s imports', () => {
  it('bundle for a browser from its own folder and the errors, with no Node module, validator or server code', async () => {
    const result = await build({
      entryPoints: ['functions/client/index.ts'],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'browser',
      format: 'esm',
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs).sort();
    expect(inputs.filter((input) => !/^functions\/(client\/[\w-]+|errors)\.ts$/.test(input))).toEqual([]);
    const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((i) => i.path));
    expect(imports).toEqual([]);
  });
});
