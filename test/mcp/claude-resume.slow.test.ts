import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { storeOperations } from '../../functions/client/types.ts';
import { listDeferred, recordDeferred } from '../../functions/mcp/claude-deferred.ts';
import { resumeClosedSessions, resumeSession } from '../../functions/mcp/claude-resume.ts';
import { permissionPause } from '../../functions/mcp/permission.ts';

/**
 * `claude-resume` after the resume (§19: nothing lost): a resume that exits 0 while its decided call's execution is
 * still unclaimed — the call neither ran nor was denied — failed, its record given back for the next pass; beside
 * it the controls, a call claimed (as the hook claims it) and a call rejected (the hook denied it). The `claude`
 * it starts is a stand-in that exits 0 and does nothing; the real CLI is test/claude-code's.
 */

const TENANT = 'acme';
const AGENT = { kind: 'agent', subject: 'claude-code', via: 'api' } as const;
const ANN = { kind: 'person', subject: 'ann', name: 'Ann', via: 'api' } as const;

/** A `claude` that exits 0 having run nothing. */
function idleClaude(): string {
  const dir = mkdtempSync(join(tmpdir(), 'handback-claude-'));
  const path = join(dir, 'claude');
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, 0o755);
  return path;
}

/** A session deferred on a memory store, its pause decided by `decision`; what the resumer needs. */
async function decidedSession(decision: 'approve' | 'reject') {
  const store = createMemoryCheckpointStore();
  const operations = storeOperations(store, { tenant: TENANT, by: AGENT });
  const env = { HANDBACK_STATE_DIR: mkdtempSync(join(tmpdir(), 'handback-state-')) };
  const sessionId = randomUUID();
  const runId = `claude-${sessionId}`;
  const toolUseId = `toolu_${randomUUID().replaceAll('-', '')}`;
  const call = { toolUseId, name: 'Write', input: { file_path: 'a.txt', content: 'hi' } };
  const { interruptId } = await operations.pause(
    permissionPause(call, { runId, context: 'Write it.', prompt: 'Claude Code wants to run Write.' }),
  );
  await recordDeferred(env, {
    sessionId,
    runId,
    interruptId,
    toolUseId,
    toolName: 'Write',
    cwd: tmpdir(),
    deferredAt: new Date().toISOString(),
  });
  const closed = await store.decide({
    tenant: TENANT,
    runId,
    interruptId,
    decisions: [
      decision === 'approve' ? { toolCallId: toolUseId, decision } : { toolCallId: toolUseId, decision, reason: 'No.' },
    ],
    by: ANN,
  });
  const continuationId = closed.kind === 'closed' ? (closed.continuationId as string) : '';
  const lines: string[] = [];
  const options = { env, backend: operations, claude: idleClaude(), args: [], log: (line: string) => lines.push(line) };
  /** What the hook does before it answers allow. */
  const claim = () => operations.claimExecution({ runId, continuationId, toolCallId: toolUseId });
  return { options, lines, sessionId, runId, interruptId, claim };
}

describe('handback claude-resume, after the resume (§19)', () => {
  it('fails a resume that exits 0 with the approved call unclaimed, and keeps its record for the next pass', async () => {
    const { options, lines, sessionId, interruptId } = await decidedSession('approve');
    const pass = await resumeClosedSessions(options);
    expect(pass).toMatchObject({ failed: [sessionId], resumed: [] });
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^session ${sessionId}: failed \\(.* exited 0, but approved call toolu_\\w+ \\(Write\\) of pause .* was not claimed: it did not run\\)$`,
      ),
    );
    expect((await listDeferred(options.env)).map((record) => record.interruptId)).toEqual([interruptId]);
  });

  it.each([
    ['an approved call the hook claimed', 'approve'],
    ['a rejected call the hook denied', 'reject'],
  ] as const)('counts a resume of %s as ran, and forgets its record', async (_what, decision) => {
    const { options, lines, sessionId, claim } = await decidedSession(decision);
    if (decision === 'approve') await claim();
    const pass = await resumeClosedSessions(options);
    expect(pass).toMatchObject({ failed: [], resumed: [sessionId] });
    expect(lines.at(-1)).toBe(`session ${sessionId}: ran (claude -p --resume ${sessionId} exited 0)`);
    expect(await listDeferred(options.env)).toEqual([]);
  });

  it('exits 1 for a pointer whose approved call the resume left unclaimed, 0 once it is claimed', async () => {
    const { options, runId, interruptId, claim } = await decidedSession('approve');
    const named = { runId, interruptId, cwd: tmpdir() };
    expect(await resumeSession(options, named)).toBe(1);
    await claim();
    expect(await resumeSession(options, named)).toBe(0);
  });
});
