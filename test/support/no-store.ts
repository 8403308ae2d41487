import { vi } from 'vitest';

/**
 * A setup file of the `unit` project (`vitest.config.ts`): a test that starts the embedded store (dynalite, directly or
 * through the local service) fails at once, naming the project it belongs in. `test/support/dynamodb.ts` says the
 * same of a test that asks for the store's table.
 */
vi.mock('dynalite', () => ({
  default: () => {
    throw new Error(
      'This test starts the embedded store (dynalite): name its file *.store.test.ts (the README\'s "Develop" says why).',
    );
  },
}));

vi.mock('s3rver', () => ({
  default: class {
    constructor() {
      throw new Error(
        'This test starts the embedded S3 server (s3rver): name its file *.store.test.ts (the README\'s "Develop" says why).',
      );
    }
  },
}));
