import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { HandbackHttpError } from '../../functions/client/problems.ts';
import { ApprovalExpiredError, PolicyForbidsError } from '../../functions/errors.ts';
import { AGENTS, type HandbackBackend } from '../../functions/mcp/backend.ts';
import { listDeferred, takeDeferred } from '../../functions/mcp/claude-deferred.ts';
import { claudeAfterHook, claudeHook } from '../../functions/mcp/claude-hook.ts';
import { storeBackend } from '../../functions/mcp/store-backend.ts';
import { useTestTable } from '../support/dynamodb.ts';

/**
 * Claude Code's PreToolUse hook (§18) in-process, on the store the service runs on (the backend a hook without
 * HANDBACK_URL uses): what it answers for each state of the pause, the claim that lets a decided call run once, and
 * failing closed. The real CLI runs it in test/claude-code/claude-code.slow.test.ts.
 */

const table = useTestTable();
const TENANT = 'acme';
const person = { kind: 'person', subject: 'ann', name: 'Ann', via: 'api' } as const;
let backend: HandbackBackend;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  env = { HANDBACK_STATE_DIR: mkdtempSync(join(tmpdir(), 'handback-state-')) };
  backend = await storeBackend({
    endpoint: table.endpoint,
    tableName: table.tableName,
    tenant: TENANT,
    agent: AGENTS.claudeCode,
    env: { ...process.env, ...env },
  });
});

afterAll(async () => {
  await backend.close();
});

const store = () => createDynamoDBCheckpointStore({ client: table.client, tableName: table.tableName });

/** A PreToolUse input for `session` and call `id`, as Claude Code sends it. */
function input(
  session: string,
  id: string,
  toolInput: Record<string, unknown> = { file_path: 'a.txt', content: 'hi' },
) {
  return JSON.stringify({
    session_id: session,
    transcript_path: join(tmpdir(), 'no-transcript.jsonl'),
    cwd: '/home/dev/shop',
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Write',
    tool_input: toolInput,
    tool_use_id: id,
  });
}

const hook = (stdin: string) => claudeHook(stdin, { env, backend });

/** Defers a new call of a new session; its pause. */
async function deferred(toolInput?: Record<string, unknown>) {
  const session = randomUUID();
  const id = `toolu_${randomUUID().replaceAll('-', '')}`;
  const output = await hook(input(session, id, toolInput));
  expect(output.hookSpecificOutput.permissionDecision).toBe('defer');
  const runId = `claude-${session}`;
  const interruptId = /pause (\S+),/.exec(output.hookSpecificOutput.permissionDecisionReason)?.[1] as string;
  return { session, id, runId, interruptId, stdin: input(session, id, toolInput) };
}

describe('handback claude-hook', () => {
  it('defers a call it sees first, pausing one approval ask as the agent, and notes the session for claude-resume', async () => {
    const { session, id, runId, interruptId } = await deferred();
    const view = await store().getPause({ tenant: TENANT, runId, interruptId });
    expect(view).toMatchObject({
      status: 'paused',
      asks: [{ toolCallId: id, kind: 'approval', name: 'Write', args: { file_path: 'a.txt', content: 'hi' } }],
      pausedBy: { kind: 'agent', subject: 'claude-code' },
      context: { user: 'A Claude Code session in shop' },
      metadata: { source: 'claude-code', sessionId: session, cwd: '/home/dev/shop', project: 'shop' },
    });
    expect((await listDeferred(env)).find((record) => record.interruptId === interruptId)).toMatchObject({
      sessionId: session,
      runId,
      toolUseId: id,
      cwd: '/home/dev/shop',
    });
  });

  it('defers again, on the same pause, while no one has decided', async () => {
    const { stdin, interruptId } = await deferred();
    const again = await hook(stdin);
    expect(again.hookSpecificOutput).toMatchObject({
      permissionDecision: 'defer',
      permissionDecisionReason: expect.stringContaining(interruptId),
    });
  });

  it('allows the decided input once, claiming its execution (§19), and denies every later run of the same call as handed to another run', async () => {
    const { stdin, runId, interruptId, id } = await deferred();
    const edited = { file_path: 'a.txt', content: 'edited' };
    await store().decide({
      tenant: TENANT,
      runId,
      interruptId,
      decisions: [{ toolCallId: id, decision: 'edit', args: edited }],
      by: person,
    });
    const first = await hook(stdin);
    expect(first.hookSpecificOutput).toMatchObject({ permissionDecision: 'allow', updatedInput: edited });
    expect((await listDeferred(env)).some((record) => record.interruptId === interruptId)).toBe(false);
    const view = await store().getPause({ tenant: TENANT, runId, interruptId });
    expect(view.asks[0]?.execution).toMatchObject({ status: 'claimed', by: { kind: 'agent', subject: 'claude-code' } });
    const later = await hook(stdin);
    expect(later.hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringContaining('already decided and handed to another run'),
    });
  });

  it("records how an allowed call ended from Claude Code's PostToolUse and PostToolUseFailure, and leaves other calls alone", async () => {
    /** What Claude Code sends after a call, as its CLI builds it (`hook_event_name`, `tool_response` or `error`). */
    const afterInput = (session: string, id: string, event: 'PostToolUse' | 'PostToolUseFailure') =>
      JSON.stringify({
        session_id: session,
        transcript_path: join(tmpdir(), 'no-transcript.jsonl'),
        cwd: '/home/dev/shop',
        permission_mode: 'default',
        hook_event_name: event,
        tool_name: 'Write',
        tool_input: { file_path: 'a.txt', content: 'hi' },
        ...(event === 'PostToolUse'
          ? { tool_response: { type: 'create', filePath: 'a.txt', content: 'hi' } }
          : { error: 'EACCES: permission denied, open a.txt', is_interrupt: false }),
        tool_use_id: id,
        duration_ms: 12,
      });
    const ran = async (event: 'PostToolUse' | 'PostToolUseFailure') => {
      const { stdin, session, runId, interruptId, id } = await deferred();
      await store().decide({
        tenant: TENANT,
        runId,
        interruptId,
        decisions: [{ toolCallId: id, decision: 'approve' }],
        by: person,
      });
      expect((await hook(stdin)).hookSpecificOutput.permissionDecision).toBe('allow');
      expect(await claudeAfterHook(afterInput(session, id, event), { env, backend })).toEqual({});
      return { session, id, view: await store().getPause({ tenant: TENANT, runId, interruptId }) };
    };
    const succeeded = await ran('PostToolUse');
    expect(succeeded.view.asks[0]?.execution).toMatchObject({ status: 'succeeded' });
    const failed = await ran('PostToolUseFailure');
    expect(failed.view.asks[0]?.execution).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('EACCES: permission denied'),
    });
    // Told once: the note is gone, so a second PostToolUse of the same call asks nothing and changes nothing.
    const refuse = async () => {
      throw new Error('nothing is asked of Handback for a call this hook did not claim');
    };
    const strict = { ...backend, finishExecution: refuse };
    expect(
      await claudeAfterHook(afterInput(succeeded.session, succeeded.id, 'PostToolUse'), { env, backend: strict }),
    ).toEqual({});
    // A call this hook never claimed (no PreToolUse allowed it here), and input it cannot read: left alone.
    expect(
      await claudeAfterHook(afterInput(randomUUID(), 'toolu_other', 'PostToolUse'), { env, backend: strict }),
    ).toEqual({});
    expect(await claudeAfterHook('not json', { env, backend: strict })).toEqual({});
  });

  it('allows at once, deferring nothing, a call whose pause comes back closed (a policy approved it: 200, not 201)', async () => {
    // As §17 closes a pause at pause time: the pause made and decided by the service, its closed body answered.
    const approving: HandbackBackend = {
      ...backend,
      async pause(body) {
        const created = await backend.pause(body);
        const toolCallId = body.asks?.[0]?.toolCallId as string;
        const decided = await store().decide({
          tenant: TENANT,
          ...created,
          decisions: [{ toolCallId, decision: 'approve' }],
          by: { kind: 'service', subject: 'policy:auto-approve', via: 'library' },
        });
        return decided.kind === 'closed' ? decided : created;
      },
    };
    const session = randomUUID();
    const output = await claudeHook(input(session, 'toolu_policy1'), { env, backend: approving });
    expect(output.hookSpecificOutput).toMatchObject({
      permissionDecision: 'allow',
      updatedInput: { file_path: 'a.txt', content: 'hi' },
    });
    expect((await listDeferred(env)).some((record) => record.sessionId === session)).toBe(false);
  });

  it('lets exactly one of many racing runs of a decided call run it', async () => {
    const { stdin, runId, interruptId, id } = await deferred();
    await store().decide({
      tenant: TENANT,
      runId,
      interruptId,
      decisions: [{ toolCallId: id, decision: 'approve' }],
      by: person,
    });
    const outputs = await Promise.all(Array.from({ length: 6 }, () => hook(stdin)));
    const decisions = outputs.map((output) => output.hookSpecificOutput.permissionDecision);
    expect(decisions.filter((decision) => decision === 'allow')).toHaveLength(1);
    expect(decisions.filter((decision) => decision === 'deny')).toHaveLength(5);
  });

  it("denies with the person's reason when they reject, and with the cancel's when it is cancelled", async () => {
    const rejected = await deferred();
    await store().decide({
      tenant: TENANT,
      runId: rejected.runId,
      interruptId: rejected.interruptId,
      decisions: [{ toolCallId: rejected.id, decision: 'reject', reason: 'Not that file.' }],
      by: person,
    });
    expect((await hook(rejected.stdin)).hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringContaining('Reason: Not that file.'),
    });
    const cancelled = await deferred();
    await store().cancel({
      tenant: TENANT,
      runId: cancelled.runId,
      interruptId: cancelled.interruptId,
      reason: 'Stopped.',
      by: person,
    });
    expect((await hook(cancelled.stdin)).hookSpecificOutput.permissionDecisionReason).toMatch(
      /^cancelled: [\s\S]*Stopped\./,
    );
  });

  it('denies another call of the session while the first still waits, naming the pause it waits on', async () => {
    const { session, interruptId } = await deferred();
    const other = await hook(input(session, 'toolu_other1'));
    expect(other.hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringContaining(interruptId),
    });
  });

  describe('one id, one call (§19)', () => {
    /** The same session and tool_use_id as `stdin`, for another tool or other input. */
    function reusing(stdin: string, change: { tool_name?: string; tool_input?: Record<string, unknown> }) {
      return JSON.stringify({ ...JSON.parse(stdin), ...change });
    }

    it.each([
      ['another tool name', { tool_name: 'Bash', tool_input: { file_path: 'a.txt', content: 'hi' } }],
      ['other input', { tool_input: { file_path: 'a.txt', content: 'rm -rf /' } }],
    ])(
      "denies %s under an approved call's id, recording nothing; the approved call itself still runs",
      async (_what, change) => {
        const { stdin, runId, interruptId, id } = await deferred();
        await store().decide({
          tenant: TENANT,
          runId,
          interruptId,
          decisions: [{ toolCallId: id, decision: 'approve' }],
          by: person,
        });
        const before = await store().getPause({ tenant: TENANT, runId, interruptId });
        const reused = await hook(reusing(stdin, change));
        expect(reused.hookSpecificOutput).toMatchObject({
          permissionDecision: 'deny',
          permissionDecisionReason: expect.stringContaining('this id was already used for another call'),
        });
        expect(reused.hookSpecificOutput.updatedInput).toBeUndefined();
        expect(await store().getPause({ tenant: TENANT, runId, interruptId })).toEqual(before);
        // The control: the call the pause was made for gets its decision.
        expect((await hook(stdin)).hookSpecificOutput).toMatchObject({
          permissionDecision: 'allow',
          updatedInput: { file_path: 'a.txt', content: 'hi' },
        });
      },
    );

    it("denies other input under an open pause's id, leaving the pause open and its call deferred", async () => {
      const { stdin, runId, interruptId } = await deferred();
      const before = await store().getPause({ tenant: TENANT, runId, interruptId });
      const reused = await hook(reusing(stdin, { tool_input: { file_path: 'b.txt', content: 'hi' } }));
      expect(reused.hookSpecificOutput.permissionDecisionReason).toContain('this id was already used for another call');
      expect(reused.hookSpecificOutput.permissionDecision).toBe('deny');
      expect(await store().getPause({ tenant: TENANT, runId, interruptId })).toEqual(before);
      expect((await hook(stdin)).hookSpecificOutput.permissionDecision).toBe('defer');
    });
  });

  describe('nothing lost (§19)', () => {
    const failing = (why: Error): HandbackBackend => {
      const fail = async () => {
        throw why;
      };
      return { ...backend, pause: fail, getPause: fail, getContinuation: fail, claimExecution: fail };
    };

    it.each([
      ['cannot reach Handback', new Error('connect ECONNREFUSED')],
      ['has its token refused', new HandbackHttpError('The token has expired.', { status: 401, code: 'unauthorized' })],
    ])(
      'defers again a deferred call whose resume %s, keeps its note, and runs it once Handback answers',
      async (_what, why) => {
        const { stdin, runId, interruptId, id } = await deferred();
        await store().decide({
          tenant: TENANT,
          runId,
          interruptId,
          decisions: [{ toolCallId: id, decision: 'approve' }],
          by: person,
        });
        const again = await claudeHook(stdin, { env, backend: failing(why) });
        expect(again.hookSpecificOutput).toMatchObject({
          permissionDecision: 'defer',
          permissionDecisionReason: expect.stringContaining(`pause ${interruptId}`),
        });
        expect((await listDeferred(env)).some((record) => record.interruptId === interruptId)).toBe(true);
        const view = await store().getPause({ tenant: TENANT, runId, interruptId });
        expect(view.asks[0]?.execution).toMatchObject({ status: 'waiting' });
        // Handback back: the later resume runs it.
        expect((await hook(stdin)).hookSpecificOutput.permissionDecision).toBe('allow');
      },
    );

    it('defers again when the resume has no configuration at all, where a call never seen is denied', async () => {
      const { stdin, interruptId } = await deferred();
      const again = await claudeHook(stdin, { env: { HANDBACK_STATE_DIR: env.HANDBACK_STATE_DIR } });
      expect(again.hookSpecificOutput.permissionDecision).toBe('defer');
      expect((await listDeferred(env)).some((record) => record.interruptId === interruptId)).toBe(true);
      const unseen = await claudeHook(input(randomUUID(), 'toolu_unseen1'), {
        env: { HANDBACK_STATE_DIR: env.HANDBACK_STATE_DIR },
      });
      expect(unseen.hookSpecificOutput.permissionDecision).toBe('deny');
    });

    it.each([
      [
        'a forbid of the policies in force',
        new PolicyForbidsError('Policy no-writes forbids this call now.', {
          policyIds: ['no-writes'],
          reason: 'Frozen.',
        }),
      ],
      ['an approval past its @validFor', undefined],
    ])('denies an approved call whose claim is refused at run time: %s', async (_what, refusal) => {
      const { stdin, runId, interruptId, id } = await deferred();
      await store().decide({
        tenant: TENANT,
        runId,
        interruptId,
        decisions: [{ toolCallId: id, decision: 'approve' }],
        by: person,
      });
      const refusing: HandbackBackend = {
        ...backend,
        async claimExecution(claim) {
          throw (
            refusal ??
            new ApprovalExpiredError(
              { runId: claim.runId, continuationId: claim.continuationId, toolCallId: claim.toolCallId },
              '2026-01-01T00:00:00.000Z',
            )
          );
        },
      };
      const output = await claudeHook(stdin, { env, backend: refusing });
      expect(output.hookSpecificOutput).toMatchObject({
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(/^Not run: refused at run time\./),
      });
      expect(output.hookSpecificOutput.updatedInput).toBeUndefined();
    });
  });

  it.each([
    ['no JSON', 'not json'],
    [
      'another event',
      JSON.stringify({ ...JSON.parse(input(randomUUID(), 'toolu_1')), hook_event_name: 'PostToolUse' }),
    ],
    ['a tool_use_id no run can hold', input(randomUUID(), 'toolu with spaces')],
    ['a session id that is not a UUID (§22)', input('--dangerously-skip-permissions', 'toolu_1')],
  ])('denies, failing closed, for %s on stdin', async (_what, stdin) => {
    const output = await hook(stdin);
    expect(output.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(output.hookSpecificOutput.permissionDecisionReason).toMatch(/denied/);
  });

  it('denies, naming what to set, when nothing tells it where Handback is', async () => {
    const output = await claudeHook(input(randomUUID(), 'toolu_2'), { env: {} });
    expect(output.hookSpecificOutput).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringMatching(/HANDBACK_URL[\s\S]*DYNAMODB_ENDPOINT/),
    });
  });

  it('denies, saying so, when the store does not answer', async () => {
    const broken: HandbackBackend = {
      ...backend,
      pause: async () => {
        throw new Error('connect ECONNREFUSED');
      },
    };
    const output = await claudeHook(input(randomUUID(), 'toolu_3'), { env, backend: broken });
    expect(output.hookSpecificOutput.permissionDecisionReason).toMatch(
      /^Denied because Handback could not be reached at .*ECONNREFUSED.*fails closed/,
    );
  });
});

describe('the deferred sessions', () => {
  it('are taken by one resumer: a second take of the same record finds nothing; a released one is there again', async () => {
    const { interruptId } = await deferred();
    const first = await takeDeferred(env, interruptId);
    expect(first).toBeDefined();
    expect(await takeDeferred(env, interruptId)).toBeUndefined();
    await first?.release();
    const again = await takeDeferred(env, interruptId);
    expect(again).toBeDefined();
    await again?.done();
    expect((await listDeferred(env)).some((record) => record.interruptId === interruptId)).toBe(false);
  });
});
