import { defineConfig } from 'vitest/config';

// The AWS SDK warns once per process that its releases after January 2027 need Node 22; the tests start a dozen
// processes (workers, services, a packed consumer), each printing those nine lines. AWS's own switch turns it off
// (aws/aws-sdk-js-v3#7983); set it to anything but "true" to see it again.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Where no terminal shows vitest's live summary (CI, a pipe, a log file), the default reporter prints a line only when
// a whole file ends, which leaves the log silent for the half minute a slow file takes. `verbose` prints each test as
// it ends.
const live = process.stdout.isTTY === true && !process.env.CI;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/build-dist.ts', 'test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: [live ? 'default' : 'verbose'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    coverage: {
      provider: 'v8',
      include: ['functions/rehydrate/**', 'functions/errors.ts'],
      thresholds: { branches: 95 },
      reporter: ['text-summary'],
    },
  },
});
