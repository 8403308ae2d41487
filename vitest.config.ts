import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// The AWS SDK warns once per process that its releases after January 2027 need Node 22; the tests start a dozen
// processes (workers, services, a packed consumer), each printing those nine lines. AWS's own switch turns it off
// (aws/aws-sdk-js-v3#7983); set it to anything but "true" to see it again.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Where no terminal shows vitest's live summary (CI, a pipe, a log file), the default reporter prints a line only when
// a whole file ends, which leaves the log silent for the half minute a slow file takes. `verbose` prints each test as
// it ends.
const live = process.stdout.isTTY === true && !process.env.CI;

/**
 * Three projects, chosen by the test file's name (the README's "Develop" says which to run when):
 *
 * - `unit` — `*.test.ts`: the pure core, the rules on the memory store, handlers on in-memory ports, the page's pure
 *   modules. `npm run test:unit`, `npm run test:watch`. Its one global setup is the inbox's generated module (which the
 *   API handler imports): an esbuild run of about a second, written only when it changed, so a fresh clone's
 *   `npm run test:unit` or `npx vitest run <file>` needs no build first.
 * - `store` — `*.store.test.ts`: the embedded DynamoDB-compatible store (dynalite), started once, and the inbox's
 *   generated module.
 * - `slow` — `*.slow.test.ts`: the dist build, the inbox build, browsers, packing, bundles, synthesis, `npm start` and
 *   other child processes.
 *
 * `store` and `slow` each have an `-isolated` twin for the few files that need a process of their own (`OWN_PROCESS`);
 * `npm run test:store` and `npm run test:slow` run both (`--project 'store*'`).
 *
 * The type tests (`*.test-d.ts`, `expectTypeOf`) are no project's: `npm run typecheck` compiles them with the rest of
 * `test/`, and a failed expectation is a compile error there, so a second compiler run here would check them again.
 *
 * A `unit` test that starts a child process or the store, or a `store` test that starts a child process, fails at once
 * saying which suffix its file needs (`test/support/no-processes.ts`, `test/support/no-store.ts`).
 */
const STORE = 'test/**/*.store.test.ts';
const SLOW = 'test/**/*.slow.test.ts';
const STORE_SETUP = ['test/support/inbox-setup.ts', 'test/support/dynalite-setup.ts'];
const SLOW_SETUP = ['test/support/build-dist.ts', ...STORE_SETUP];

/**
 * The `store` and `slow` files that change what a process holds for the files after them — a module mocked
 * (`vi.mock`), the environment set or stubbed — each run in a process of its own (the `*-isolated` projects); every
 * other file of those projects shares its worker's modules with the files before it (`isolate: false`), as `unit`'s
 * do. Importing the stack, the service and the frameworks again for each file was most of those projects' time:
 * `test/infra`'s 24 slow files took 230 s of CPU isolated and 54 s shared. `test/infra/suite.test.ts` holds
 * this list to the files that need it.
 */
export const OWN_PROCESS = [
  'test/adapters/ai-sdk-v7.store.test.ts',
  'test/black-box/policy-shadow.store.test.ts',
  'test/channels/aws-directory.store.test.ts',
  'test/channels/aws-handlers.store.test.ts',
  'test/handlers/entry.store.test.ts',
  'test/handlers/retention.store.test.ts',
  'test/handlers/tracing.store.test.ts',
  'test/infra/example-agent.store.test.ts',
  'test/docs/snippets.slow.test.ts',
  'test/infra/workflow-run.slow.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    // Vitest's default is one worker fewer than the cores: one on CI's two, which leaves a core idle while a slow file
    // waits on its child processes, browsers and sockets. Two workers there took `npm test` from 680 s to 423 s; one
    // more than the cores keeps them busy while a worker waits (two workers used 1.6 of CI's two cores).
    maxWorkers: availableParallelism() + 1,
    hookTimeout: 120_000,
    reporters: [live ? 'default' : 'verbose'],
    coverage: {
      provider: 'v8',
      include: ['functions/rehydrate/**', 'functions/errors.ts'],
      thresholds: { branches: 95 },
      reporter: ['text-summary'],
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          isolate: false,
          pool: 'threads',
          // The defaults too: a test folder's own packages (test/mcp/conformance/node_modules) hold others' tests.
          exclude: [...configDefaults.exclude, STORE, SLOW],
          globalSetup: ['test/support/inbox-setup.ts'],
          setupFiles: ['test/support/no-processes.ts', 'test/support/no-store.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'store',
          include: [STORE],
          exclude: [...configDefaults.exclude, ...OWN_PROCESS],
          isolate: false,
          globalSetup: STORE_SETUP,
          setupFiles: ['test/support/no-processes.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'store-isolated',
          include: OWN_PROCESS.filter((file) => file.endsWith('.store.test.ts')),
          globalSetup: STORE_SETUP,
          setupFiles: ['test/support/no-processes.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: [SLOW],
          exclude: [...configDefaults.exclude, ...OWN_PROCESS],
          isolate: false,
          globalSetup: SLOW_SETUP,
        },
      },
      {
        extends: true,
        test: {
          name: 'slow-isolated',
          include: OWN_PROCESS.filter((file) => file.endsWith('.slow.test.ts')),
          globalSetup: SLOW_SETUP,
        },
      },
    ],
  },
});
