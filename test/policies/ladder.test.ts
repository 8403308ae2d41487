import { describe, expect, it } from 'vitest';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/memory-store.ts';
import { InvalidPoliciesError } from '../../functions/errors.ts';
import { escalationOf } from '../../functions/handlers/config.ts';
import { durationSeconds, LadderError, parseLadder } from '../../functions/policies/ladder.ts';
import { approvalTranscript } from '../../functions/testing/service-spec.ts';
import { engineOf, load } from './support.ts';

const PERMIT = 'permit(principal, action == Handback::Action::"call", resource)';

/** The `LadderError` parsing `text` throws. */
function ladderRefusal(text: string): LadderError {
  try {
    parseLadder(text);
  } catch (error) {
    expect(error).toBeInstanceOf(LadderError);
    return error as LadderError;
  }
  throw new Error('it parsed');
}

describe('an escalation ladder (§21)', () => {
  it("reads the contract's example: durations from the pause, approvers as @approvers names them, and manager", () => {
    expect(parseLadder('PT30M group:finance-leads; PT2H manager; PT8H email:cfo@example.com')).toEqual([
      { afterSeconds: 1800, approvers: { groups: ['finance-leads'] } },
      { afterSeconds: 7200, manager: true },
      { afterSeconds: 28_800, approvers: { emails: ['cfo@example.com'] } },
    ]);
  });

  it('takes several approvers on a level, manager among them, and white space around everything', () => {
    expect(parseLadder('  P1DT2H3M4S   sub:ann, manager ,slack:T1:U2 ; P2D\tgroup:a ')).toEqual([
      { afterSeconds: 93_784, approvers: { subjects: ['ann', 'slack:T1:U2'] }, manager: true },
      { afterSeconds: 172_800, approvers: { groups: ['a'] } },
    ]);
  });

  it.each([
    ['PT30M', 30 * 60],
    ['PT2H', 7200],
    ['P1D', 86_400],
    ['P1DT12H', 129_600],
    ['PT90S', 90],
  ])('reads the duration %s as %i seconds', (text, seconds) => {
    expect(durationSeconds(text)).toBe(seconds);
  });

  it.each(['P', 'PT', 'PT0S', 'P1Y', 'P1M', 'PT1.5H', '30M', 'pt30m', 'P1W', 'PT-1H', 'P1DT'])(
    'refuses the duration %s',
    (text) => {
      expect(durationSeconds(text)).toBeUndefined();
    },
  );

  it('refuses a bad duration at its column, naming it', () => {
    const error = ladderRefusal('PT30M group:a;  PT2X manager');
    expect(error.offset).toBe(16);
    expect(error.message).toBe(
      '"PT2X" is not an ISO 8601 duration of days, hours, minutes and seconds (PT30M, PT2H, P1DT12H)',
    );
  });

  it('refuses a bad approver at its column, naming it', () => {
    const error = ladderRefusal('PT30M group:a; PT2H boss:ann');
    expect(error.offset).toBe(20);
    expect(error.message).toBe('approver "boss:ann": "boss:" is none of group:, email:, sub: and slack:');
  });

  it('refuses a level without approvers, an empty level, and levels out of order', () => {
    expect(ladderRefusal('PT30M').message).toBe('the level "PT30M" names no approvers after its duration');
    expect(ladderRefusal('PT30M group:a;;PT2H group:b').message).toBe('level 2 is empty');
    expect(ladderRefusal('PT2H group:a; PT30M group:b')).toMatchObject({
      offset: 14,
      message: '"PT30M" is not later than the level before it',
    });
    expect(ladderRefusal(Array.from({ length: 11 }, (_, i) => `PT${i + 1}M group:a`).join(';')).message).toBe(
      'more than 10 levels',
    );
    // Each waiting ask records its ladder in the pause's record: the text is bounded before it is read.
    const long = `PT1M ${Array.from({ length: 50 }, (_, i) => `group:${'g'.repeat(40)}${i}`).join(',')}`;
    expect(ladderRefusal(long)).toMatchObject({
      offset: 2048,
      message: 'longer than 2048 characters: a ladder names a few levels',
    });
  });

  it('as HANDBACK_ESCALATION: read at start, a bad one naming the variable and the column', () => {
    expect(escalationOf({})).toBeUndefined();
    expect(escalationOf({ HANDBACK_ESCALATION: 'PT1M email:boss@example.com' })).toEqual([
      { afterSeconds: 60, approvers: { emails: ['boss@example.com'] } },
    ]);
    expect(() => escalationOf({ HANDBACK_ESCALATION: 'PT1M group:a; 2H group:b' })).toThrow(
      'Environment variable HANDBACK_ESCALATION at column 15: "2H" is not an ISO 8601 duration',
    );
  });
});

describe('@escalate on a policy (§21)', () => {
  it('is read on a permit of call, and the engine gives the first determining permit with one', () => {
    const loaded = load(`@id("small") @escalate("PT1M group:leads; PT1H manager") ${PERMIT};\n@id("plain") ${PERMIT};`);
    expect(loaded.policies.get('small')?.escalate).toEqual([
      { afterSeconds: 60, approvers: { groups: ['leads'] } },
      { afterSeconds: 3600, manager: true },
    ]);
    expect(loaded.policies.get('plain')?.escalate).toBeUndefined();
    const engine = engineOf(`@id("small") @escalate("PT1M group:leads") ${PERMIT};\n@id("plain") ${PERMIT};`);
    expect(engine.ladderOf?.(['plain', 'small'])).toEqual([{ afterSeconds: 60, approvers: { groups: ['leads'] } }]);
    expect(engine.ladderOf?.(['plain'])).toBeUndefined();
  });

  it('refuses a bad duration as a load error at its file, line and column', () => {
    let error: unknown;
    try {
      load(`@id("a") ${PERMIT};\n  @id("b")\n  @escalate("PT1M group:a; PT1Q manager")\n  ${PERMIT};`);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidPoliciesError);
    const refused = error as InvalidPoliciesError;
    expect([refused.file, refused.line, refused.column]).toEqual(['policies.cedar', 3, 28]);
    expect(refused.message).toBe(
      'policies.cedar:3:28: @escalate: "PT1Q" is not an ISO 8601 duration of days, hours, minutes and seconds (PT30M, PT2H, P1DT12H)',
    );
  });

  it('refuses a bad approver, and @escalate on a forbid, at their place', () => {
    expect(() => load(`@id("a") @escalate("PT1M team:x") ${PERMIT};`)).toThrow(
      'policies.cedar:1:26: @escalate: approver "team:x": "team:" is none of group:, email:, sub: and slack:',
    );
    expect(() =>
      load('@id("f") @escalate("PT1M group:a") forbid(principal, action == Handback::Action::"call", resource);'),
    ).toThrow('policies.cedar:1:10: @escalate belongs to permit policies: a forbid rejects');
  });
});

describe('the ladder an ask records at its pause (§21)', () => {
  const clock = () => new Date('2026-01-01T00:00:00.000Z');
  const policies = `@id("refunds") @escalate("PT1M group:leads; PT1H manager")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"refund_order");
@id("mail") permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"send_email");`;

  async function pausedWith(engine: ReturnType<typeof engineOf>, expiresInSeconds = 7200) {
    const store = createMemoryCheckpointStore({
      clock,
      policies: async () => engine,
      escalation: parseLadder('PT10M email:cfo@example.com'),
    });
    const created = await store.pause({
      tenant: 'acme',
      runId: 'r1',
      format: 'openai-chat',
      messages: approvalTranscript(),
      asks: [
        { toolCallId: 'call_refund', kind: 'approval' },
        { toolCallId: 'call_email', kind: 'approval' },
        { toolCallId: 'call_ask', kind: 'answer', answerSchema: { type: 'string' } },
      ],
      expiresInSeconds,
    });
    if (!('interruptId' in created)) throw new Error('not paused');
    return store.getPause({ tenant: 'acme', runId: 'r1', interruptId: created.interruptId });
  }

  it("is the determining permit's @escalate, else the deployment's default, for every ask that waits", async () => {
    const view = await pausedWith(engineOf(policies));
    expect(view.asks.map((ask) => ask.escalation)).toEqual([
      { level: 0, next: { at: '2026-01-01T00:01:00.000Z', approvers: { groups: ['leads'] } } },
      { level: 0, next: { at: '2026-01-01T00:10:00.000Z', approvers: { emails: ['cfo@example.com'] } } },
      { level: 0, next: { at: '2026-01-01T00:10:00.000Z', approvers: { emails: ['cfo@example.com'] } } },
    ]);
  });

  it('is the default in shadow mode (people are asked as if there were no policies), and cut at expiresAt', async () => {
    const view = await pausedWith(engineOf(policies, { mode: 'shadow' }), 300);
    // The default's one level (10 min) is after the expiry (5 min): none.
    expect(view.asks.map((ask) => ask.escalation)).toEqual([undefined, undefined, undefined]);
    const cut = await pausedWith(engineOf(policies), 1800);
    expect(cut.asks[0]?.escalation).toEqual({
      level: 0,
      next: { at: '2026-01-01T00:01:00.000Z', approvers: { groups: ['leads'] } },
    });
  });
});
