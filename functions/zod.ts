import { config } from 'zod/mini';
import { globalConfig } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';

/**
 * zod for all of functions/: `zod/mini`, the tree-shakeable functional API (the classic `z` namespace keeps all of
 * zod in every Lambda bundle). Import it as `import * as z from './zod.ts'`, never from 'zod/mini' directly: a
 * namespace import only keeps what is used, and this module loads the English locale, which zod/mini leaves out, once
 * and only when none is configured yet, as the classic API does. Without it every issue reads "Invalid input".
 */
if (!globalConfig.localeError) config(en());

export * from 'zod/mini';
