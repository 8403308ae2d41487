import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildLambdaBundle } from '../../infra/lambda-bundle.ts';
import { ENTRY } from '../../infra/paths.ts';

const TARGETS = ['sqs', 'eventbridge', 'lambda', 'none'] as const;
type Target = (typeof TARGETS)[number];

/** What `Handoff.bind` sets for each target. */
const TARGET_ENV: Record<Target, Record<string, string>> = {
  sqs: { HANDOFF_TARGET: 'sqs', HANDOFF_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111122223333/handoff' },
  eventbridge: { HANDOFF_TARGET: 'eventbridge', HANDOFF_EVENT_BUS_NAME: 'handoff-bus' },
  lambda: { HANDOFF_TARGET: 'lambda', HANDOFF_FUNCTION_NAME: 'next-turn' },
  none: { HANDOFF_TARGET: 'none' },
};

const dir = mkdtempSync(join(tmpdir(), 'handback-bundled-target-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The SQS trigger's entry bundled for `target`, as `HandbackFunction` bundles it (ESM chunks, the defines). */
async function bundleFor(target: Target): Promise<string> {
  return buildLambdaBundle(ENTRY.sqs, join(dir, target), target).entry;
}

/** Loads a bundle in a fresh Node with `env`; its exit status and what it printed. */
function load(file: string, env: Record<string, string>) {
  const done = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(typeof m.handler);`,
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        AWS_REGION: 'eu-west-1',
        TABLE_NAME: 'checkpoints',
        ...env,
      },
      encoding: 'utf8',
    },
  );
  return { status: done.status, stdout: done.stdout.trim(), stderr: done.stderr };
}

describe('a resume function bundled for its hand-off target', () => {
  it.each(TARGETS)('loads for %s and exports a handler', async (target) => {
    const file = await bundleFor(target);
    expect(load(file, TARGET_ENV[target])).toMatchObject({ status: 0, stdout: 'function' });
  });

  it('fails at cold start, naming both, when HANDOFF_TARGET names another target', async () => {
    const file = await bundleFor('eventbridge');
    const loaded = load(file, TARGET_ENV.sqs);
    expect(loaded.status).not.toBe(0);
    expect(loaded.stderr).toContain(
      'HANDOFF_TARGET is sqs, but this function was bundled for the hand-off target eventbridge',
    );
  });
});
