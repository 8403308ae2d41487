import { describe, expect, it } from 'vitest';
import { InvalidTranscriptError } from '../../functions/errors.ts';
import { formats } from '../../functions/rehydrate/formats/index.ts';
import { loadFormat } from '../../functions/rehydrate/formats/load.ts';
import { FORMAT_NAMES } from '../../functions/vocabulary.ts';

describe('loadFormat', () => {
  it.each(FORMAT_NAMES)(
    'loads %s on first use as the eager table holds it, and keeps the one promise',
    async (name) => {
      const first = loadFormat(name);
      expect(loadFormat(name)).toBe(first);
      expect(await first).toBe(formats[name]);
    },
  );

  it.each([['gpt'], [undefined], [42]])(
    'rejects the format %s with the error formatOf throws, naming the known ones',
    async (name) => {
      const loading = loadFormat(name);
      await expect(loading).rejects.toBeInstanceOf(InvalidTranscriptError);
      await expect(loading).rejects.toThrow(`use one of ${FORMAT_NAMES.join(', ')}`);
    },
  );
});
