import { describe, expect, it } from 'vitest';
import { escalate, escalationsOf, escalationView, withLadders } from '../../functions/checkpoints/escalation.ts';
import { groupEmails, managersDue } from '../../functions/checkpoints/escalation-people.ts';
import { laddered } from '../../functions/checkpoints/new-pause.ts';
import type { Ask, PauseRecord } from '../../functions/checkpoints/record.ts';
import { sweepStep } from '../../functions/checkpoints/sweep-step.ts';
import { directoryOfText } from '../../functions/directory/file.ts';
import { lifecycleEventsOf } from '../../functions/events/lifecycle.ts';
import { parseLadder } from '../../functions/policies/ladder.ts';
import { recordOf } from '../../functions/testing/persistence-spec.ts';

/** §21's ladders on the record, pure: recorded at the pause, reached by the sweep one write per level. */

const CREATED = Date.parse('2026-01-01T00:00:00.000Z');
const MIN = 60_000;
const LADDER = parseLadder('PT1M group:leads; PT2M manager; PT3M email:cfo@example.com');

const approval = (toolCallId: string, approvers?: Ask['approvers']): Ask => ({
  toolCallId,
  name: 'refund',
  args: {},
  kind: 'approval',
  ...(approvers === undefined ? {} : { approvers }),
});

/** A new pause of two approval asks (one for `sub:ann`, one anyone may decide), on `LADDER`, expiring at +10 min. */
function paused(overrides: Partial<PauseRecord> = {}): PauseRecord {
  const record = recordOf({
    asks: [approval('call_a', { subjects: ['ann'] }), approval('call_b')],
    decisions: [undefined, undefined],
    createdAt: new Date(CREATED).toISOString(),
    expiresAtMs: CREATED + 10 * MIN,
    dueAtMs: CREATED + 10 * MIN,
    ...overrides,
  });
  return laddered(record, LADDER);
}

describe('a ladder recorded at the pause (§21)', () => {
  it("gives each waiting ask the deployment's ladder and makes the pause due at its first level", () => {
    const record = paused();
    expect(record.asks.map((ask) => ask.escalation)).toEqual([
      { ladder: LADDER, reached: [] },
      { ladder: LADDER, reached: [] },
    ]);
    expect(record.dueAtMs).toBe(CREATED + MIN);
  });

  it("keeps a policy's own ladder, gives none to an ask decided at its pause, and none without a ladder", () => {
    const own = parseLadder('PT5M sub:bob');
    const record = recordOf({
      asks: [{ ...approval('call_a'), escalation: { ladder: own, reached: [] } }, approval('call_b')],
      decisions: [undefined, { body: { decision: 'approve' }, hash: 'h', decidedAt: '2026-01-01T00:00:00.000Z' }],
      createdAt: new Date(CREATED).toISOString(),
      expiresAtMs: CREATED + 10 * MIN,
    });
    const after = withLadders(record, LADDER);
    expect(after.asks[0]?.escalation).toEqual({ ladder: own, reached: [] });
    expect(after.asks[1]).not.toHaveProperty('escalation');
    const plain = recordOf();
    expect(withLadders(plain, undefined)).toBe(plain);
  });

  it('never extends a pause: levels at or after expiresAt are left out, and a ladder left empty is none', () => {
    expect(paused({ expiresAtMs: CREATED + 2 * MIN }).asks[0]?.escalation?.ladder).toEqual(LADDER.slice(0, 1));
    const short = paused({ expiresAtMs: CREATED + MIN, dueAtMs: CREATED + MIN });
    expect(short.asks[0]).not.toHaveProperty('escalation');
    expect(short.dueAtMs).toBe(CREATED + MIN);
  });
});

describe('the sweep step at a level (§21)', () => {
  it('does nothing before the first level is due', () => {
    const record = paused();
    expect(sweepStep(record, CREATED + MIN - 1)).toEqual({ do: 'nothing' });
    expect(escalate(record, CREATED + MIN - 1)).toBeUndefined();
  });

  it("reaches level 1: its approvers ADDED to a named ask's, an anyone-ask left to anyone, due next at level 2", () => {
    const now = CREATED + MIN + 500;
    const step = sweepStep(paused(), now);
    if (step.do !== 'escalate') throw new Error(`not an escalation: ${step.do}`);
    expect(step.escalated).toEqual([
      { toolCallId: 'call_a', level: 1, approvers: { groups: ['leads'] }, atMs: now },
      { toolCallId: 'call_b', level: 1, approvers: { groups: ['leads'] }, atMs: now },
    ]);
    expect(step.after.asks[0]?.approvers).toEqual({ subjects: ['ann'], groups: ['leads'] });
    expect(step.after.asks[1]).not.toHaveProperty('approvers');
    expect(step.after.rev).toBe(paused().rev + 1);
    // Due next at level 1's reminder, halfway to level 2.
    expect(step.after.dueAtMs).toBe(CREATED + 1.5 * MIN);
    // The same record read again (a retry, a racing sweeper reading the new revision): nothing more to do.
    expect(sweepStep(step.after, now)).toEqual({ do: 'nothing' });
  });

  it('reaches one level per write: a sweep that fell behind reaches the next on its next look, at once', () => {
    const late = CREATED + 5 * MIN;
    const first = sweepStep(paused(), late);
    if (first.do !== 'escalate') throw new Error('not an escalation');
    expect(first.escalated.map((e) => e.level)).toEqual([1, 1]);
    expect(first.after.dueAtMs).toBe(CREATED + 1.5 * MIN);
    const second = sweepStep(first.after, late);
    if (second.do !== 'escalate') throw new Error('not an escalation');
    expect(second.escalated.map((e) => e.level)).toEqual([2, 2]);
    const third = sweepStep(second.after, late);
    if (third.do !== 'escalate') throw new Error('not an escalation');
    expect(third.escalated[0]).toMatchObject({ level: 3, approvers: { emails: ['cfo@example.com'] } });
    expect(third.after.asks[0]?.approvers).toEqual({
      subjects: ['ann'],
      groups: ['leads'],
      emails: ['cfo@example.com'],
    });
    // The ladder done: due at its last level's reminder, halfway to the expiry, then at the expiry, where onExpiry acts.
    expect(third.after.dueAtMs).toBe(CREATED + 6.5 * MIN);
    const reminded = sweepStep(third.after, CREATED + 6.5 * MIN);
    if (reminded.do !== 'remind-level') throw new Error(`not a reminder: ${reminded.do}`);
    expect(reminded.reminded.map((r) => r.level)).toEqual([3, 3]);
    expect(reminded.after.dueAtMs).toBe(CREATED + 10 * MIN);
  });

  it("reminds a level's approvers once, halfway to the next level, in one write with one Pause Reminder per ask", () => {
    const one = sweepStep(paused(), CREATED + MIN);
    if (one.do !== 'escalate') throw new Error('not an escalation');
    expect(sweepStep(one.after, CREATED + 1.5 * MIN - 1)).toEqual({ do: 'nothing' });
    const now = CREATED + 1.5 * MIN;
    const step = sweepStep(one.after, now);
    if (step.do !== 'remind-level') throw new Error(`not a reminder: ${step.do}`);
    expect(step.reminded).toEqual([
      { toolCallId: 'call_a', level: 1, approvers: { groups: ['leads'] }, atMs: now },
      { toolCallId: 'call_b', level: 1, approvers: { groups: ['leads'] }, atMs: now },
    ]);
    expect(step.after.asks[0]?.escalation?.reached[0]?.remindedAt).toBe(new Date(now).toISOString());
    expect(step.after.dueAtMs).toBe(CREATED + 2 * MIN);
    expect(sweepStep(step.after, now)).toEqual({ do: 'nothing' });
    const events = lifecycleEventsOf({ before: one.after, after: step.after });
    expect(events.map(({ type, detail }) => [type, detail.toolCallId, detail.level, detail.approvers])).toEqual([
      ['Pause Reminder', 'call_a', 1, { groups: ['leads'] }],
      ['Pause Reminder', 'call_b', 1, { groups: ['leads'] }],
    ]);
    // A level that added no one (a manager level without a directory) reminds no one.
    const two = sweepStep(step.after, CREATED + 2 * MIN);
    if (two.do !== 'escalate') throw new Error('not an escalation');
    expect(two.after.dueAtMs).toBe(CREATED + 3 * MIN);
  });

  it('adds no one at a manager level without a directory, and the managers the caller resolves with one', () => {
    const one = sweepStep(paused(), CREATED + MIN);
    if (one.do !== 'escalate') throw new Error('not an escalation');
    const without = sweepStep(one.after, CREATED + 2 * MIN);
    if (without.do !== 'escalate') throw new Error('not an escalation');
    expect(without.escalated[0]).toMatchObject({ level: 2, approvers: {} });
    expect(without.after.asks[0]?.approvers).toEqual({ subjects: ['ann'], groups: ['leads'] });
    const withDirectory = sweepStep(one.after, CREATED + 2 * MIN, () => ({ emails: ['boss@example.com'] }));
    if (withDirectory.do !== 'escalate') throw new Error('not an escalation');
    expect(withDirectory.after.asks[0]?.approvers?.emails).toEqual(['boss@example.com']);
  });

  it("reads a manager level's managers from the directory when it is due: each waiting approver's, the pauser, onBehalfOf, voters and inactive persons skipped", async () => {
    const person = (id: string, more: object) => ({ id, name: id, tenant: 'acme', subjects: [id], ...more });
    const directory = directoryOfText(
      JSON.stringify({
        people: [
          person('ann', { manager: 'pat' }), // Ann's manager is the person the agent paused for: skipped
          person('bob', { manager: 'mia' }),
          person('cyd', { manager: 'max' }), // Cyd voted: not waiting
          person('dee', { manager: 'sam' }), // Sam has no email: named by subject
          person('eve', { manager: 'mia', groups: ['leads'], emails: ['eve@example.com'] }),
          person('fay', { manager: 'ned', groups: ['leads'], emails: ['fay@example.com'], active: false }), // inactive: not waiting
          person('pat', { emails: ['pat@example.com'] }),
          person('mia', { emails: ['mia@example.com', 'mia@example.org'] }),
          person('max', { emails: ['max@example.com'] }),
          person('sam', {}),
          person('ned', { emails: ['ned@example.com'] }),
        ],
      }),
      'people.json',
    );
    const one = sweepStep(
      paused({
        asks: [approval('call_a', { subjects: ['ann', 'bob', 'cyd', 'dee'] }), approval('call_b')],
        pausedBy: {
          kind: 'agent',
          subject: 'agent-9',
          via: 'api',
          onBehalfOf: { kind: 'person', subject: 'pat', via: 'api', person: 'pat' },
        },
        votes: [
          [
            {
              body: { decision: 'approve' },
              hash: 'h',
              argsHash: 'a',
              by: { kind: 'person', subject: 'cyd', via: 'api', person: 'cyd' },
              at: new Date(CREATED).toISOString(),
            },
          ],
          undefined,
        ],
      }),
      CREATED + MIN,
    );
    if (one.do !== 'escalate') throw new Error('not an escalation');
    // Not due yet: the directory is not read, and no one is named.
    expect((await managersDue(directory, one.after, CREATED + MIN))(one.after.asks[0] as Ask)).toBeUndefined();
    const managers = await managersDue(directory, one.after, CREATED + 2 * MIN);
    expect(managers(one.after.asks[0] as Ask)).toEqual({ emails: ['mia@example.com'], subjects: ['sam'] });
    // The ask anyone may decide names no approver, so no manager.
    expect(managers(one.after.asks[1] as Ask)).toBeUndefined();
    expect((await managersDue(undefined, one.after, CREATED + 2 * MIN))(one.after.asks[0] as Ask)).toBeUndefined();
    // A group's active members, at their first email, once and none already named.
    expect(await groupEmails(directory, 'acme', ['leads'], ['EVE@example.com'])).toEqual([]);
    expect(await groupEmails(directory, 'acme', ['leads', 'leads'], [])).toEqual(['eve@example.com']);
  });

  it('skips an ask decided since, and only reschedules when no waiting ask is due', () => {
    const decided = { body: { decision: 'approve' as const }, hash: 'h', decidedAt: '2026-01-01T00:00:30.000Z' };
    const record = { ...paused(), decisions: [decided, undefined] };
    const step = sweepStep(record, CREATED + MIN);
    if (step.do !== 'escalate') throw new Error('not an escalation');
    expect(step.escalated.map((e) => e.toolCallId)).toEqual(['call_b']);
    expect(step.after.asks[0]?.escalation?.reached).toEqual([]);
    const both = { ...paused(), decisions: [decided, decided] };
    expect(sweepStep(both, CREATED + MIN)).toMatchObject({ do: 'reschedule', after: { dueAtMs: CREATED + 10 * MIN } });
  });

  it('never escalates past expiresAt: the expiry acts', () => {
    expect(sweepStep({ ...paused(), onExpiry: 'reject' }, CREATED + 10 * MIN)).toEqual({ do: 'close' });
    expect(escalate(paused(), CREATED + 10 * MIN)).toBeUndefined();
  });
});

describe('what a level reached shows (§21)', () => {
  const one = sweepStep(paused(), CREATED + MIN);
  if (one.do !== 'escalate') throw new Error('not an escalation');

  it("the view's escalation: the level reached and the next one, with when and whom", () => {
    const ask = paused().asks[0] as Ask;
    expect(escalationView(paused(), ask)).toEqual({
      level: 0,
      next: { at: new Date(CREATED + MIN).toISOString(), approvers: { groups: ['leads'] } },
    });
    expect(escalationView(one.after, one.after.asks[0] as Ask)).toEqual({
      level: 1,
      last: { at: new Date(CREATED + MIN).toISOString(), approvers: { groups: ['leads'] } },
      next: { at: new Date(CREATED + 2 * MIN).toISOString(), manager: true },
    });
    expect(escalationView(one.after, approval('call_x'))).toBeUndefined();
  });

  it('one Pause Escalated per ask and level, with toolCallId, level and approvers', () => {
    const events = lifecycleEventsOf({ before: paused(), after: one.after });
    expect(events.map((event) => [event.type, event.detail.toolCallId, event.detail.level])).toEqual([
      ['Pause Escalated', 'call_a', 1],
      ['Pause Escalated', 'call_b', 1],
    ]);
    expect(events[0]?.detail.approvers).toEqual({ groups: ['leads'] });
    // Delivered again (at least once), the same change makes the same events; a later change makes none for it.
    expect(lifecycleEventsOf({ before: one.after, after: { ...one.after, rev: one.after.rev + 1 } })).toEqual([]);
  });

  it("the traces' reader: each level an ask reached, when, and how many it added", () => {
    expect(escalationsOf(one.after, 0)).toEqual([{ level: 1, atMs: CREATED + MIN, approvers: 1 }]);
    expect(escalationsOf(paused(), 1)).toEqual([]);
  });
});
