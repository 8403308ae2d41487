import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';
import { useTestTable } from '../support/dynamodb.ts';
import { expectRefundedOnce, type RaceSite } from './race/race.ts';

/**
 * §15's "once" across processes, for every adapter, in the repository (`race/race.ts` says how): one continuation
 * delivered to two worker processes at the same moment, then to a third; the refund runs exactly once. The AI SDK
 * runs on `ai` 6 and on `ai` 7 (its alias, through `test/support/ai-v7.mjs`). The one harness of this scenario: the
 * installed tarball's part is that every subpath loads and type-checks (`test/package/`).
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const table = useTestTable();
const work = mkdtempSync(join(tmpdir(), 'handback-race-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const site = (ai7: boolean): RaceSite => ({
  cwd: root,
  worker: join(root, 'test', 'adapters', 'race', 'worker.ts'),
  imports: ['--import', 'tsx', ...(ai7 ? ['--import', join(root, 'test', 'support', 'ai-v7.mjs')] : [])],
  work,
});

const cases: Array<[string, string, 6 | 7 | undefined]> = [
  ['handback/ai-sdk on ai 6', 'ai-sdk', 6],
  ['handback/ai-sdk on ai 7', 'ai-sdk', 7],
  ['handback/openai-agents', 'openai-agents', undefined],
  ['handback/langgraph', 'langgraph', undefined],
  ['handback/strands', 'strands', undefined],
  ['handback/durable', 'durable', undefined],
];

describe.each(cases)('%s, with two processes receiving the same continuation', (_, adapter, ai) => {
  it('runs the refund exactly once: one process runs it, the other and a later delivery read it', async () => {
    await expectRefundedOnce(site(ai === 7), table, adapter, ai);
  }, 240_000);
});
