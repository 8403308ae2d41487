import { describe, expect, it } from 'vitest';
import { isTimeZone, policySettingsFrom } from '../../functions/policies/config.ts';
import { clockOf, contextOf } from '../../functions/policies/request.ts';
import { policyVersion } from '../../functions/policies/version.ts';
import { LIMITS } from '../../functions/vocabulary.ts';
import { engineOf, load, request } from './support.ts';

/** What the policies see (§19): the tool's name, the service's clock in the deployment's zone, bounded arguments. */

const HOURS = `
@id("business-hours")
permit(principal, action == Handback::Action::"callWithoutApproval", resource)
when { context.clock.weekday <= 5 && context.clock.hour >= 9 && context.clock.hour < 18 };

@id("no-deletes")
@reason("Nothing is deleted by an agent")
forbid(principal, action, resource) when { context.tool like "delete_*" };

@id("not-before-2026")
forbid(principal, action, resource == Handback::Tool::"launch")
when { context.now < datetime("2026-01-01T00:00:00Z") };
`;

describe('the context of a request', () => {
  it("holds the tool's name, the clock as a Cedar datetime, and the wall clock in the deployment's zone", () => {
    const context = contextOf(request('refund_order', { amount: 5 }), load('').schemaJson, 'Europe/Paris');
    expect(context).toMatchObject({
      tool: 'refund_order',
      now: { __extn: { fn: 'datetime', arg: '2025-03-03T10:00:00.000Z' } },
      // Monday 3 March 2025, 10:00 UTC is 11:00 in Paris.
      clock: { weekday: 1, hour: 11, minute: 0 },
      args: { amount: 5 },
    });
  });

  it.each([
    ['2025-03-09T23:59:00.000Z', 'UTC', { weekday: 7, hour: 23, minute: 59 }],
    ['2025-03-10T00:00:00.000Z', 'UTC', { weekday: 1, hour: 0, minute: 0 }],
    ['2025-03-10T03:30:00.000Z', 'America/New_York', { weekday: 7, hour: 23, minute: 30 }],
    ['2025-03-10T03:30:00.000Z', 'Asia/Kolkata', { weekday: 1, hour: 9, minute: 0 }],
  ])('reads %s in %s as %o (ISO weekdays, 0–23 hours)', (at, zone, clock) => {
    expect(clockOf(new Date(at), zone)).toEqual(clock);
  });

  it('lets a policy forbid every delete_* by the tool’s name, and an unlisted one too', () => {
    const engine = engineOf(HOURS);
    for (const tool of ['delete_customer', 'delete_invoice']) {
      expect(engine.evaluate(request(tool, {}))).toMatchObject({ outcome: 'reject', policyIds: ['no-deletes'] });
    }
    expect(engine.evaluate(request('refund_order', {}))).toMatchObject({ outcome: 'approve' });
  });

  it('judges business hours in the deployment’s time zone, at the clock the request gives', () => {
    const utc = engineOf(HOURS);
    const newYork = engineOf(HOURS, { timeZone: 'America/New_York' });
    // 10:00 UTC on a Monday: business hours in UTC, 05:00 in New York.
    expect(utc.evaluate(request('refund_order', {})).outcome).toBe('approve');
    expect(newYork.evaluate(request('refund_order', {})).outcome).toBe('ask');
    const afternoon = { ...request('refund_order', {}), now: new Date('2025-03-03T15:00:00.000Z') };
    expect(newYork.evaluate(afternoon).outcome).toBe('approve');
    expect(newYork.timeZone).toBe('America/New_York');
  });

  it('compares now with a datetime', () => {
    const engine = engineOf(HOURS);
    expect(engine.evaluate(request('launch', {}))).toMatchObject({ outcome: 'reject', policyIds: ['not-before-2026'] });
    expect(engine.evaluate({ ...request('launch', {}), now: new Date('2026-06-01T10:00:00Z') })).toMatchObject({
      outcome: 'approve',
    });
  });
});

describe('the bounds of a request (fail closed past them)', () => {
  const engine = engineOf(HOURS);

  it.each([
    ['a set of 1,001 elements', { tags: Array.from({ length: 1001 }, (_, i) => `t${i}`) }, 'holds 1001 elements'],
    ['a string past 64 KB', { note: 'x'.repeat(LIMITS.policyArgsBytes + 1) }, 'more than the 65536 bytes'],
    [
      'many small values past 64 KB together',
      { tags: Array.from({ length: 1000 }, (_, i) => `${'y'.repeat(80)}${i}`) },
      'more than the 65536 bytes',
    ],
  ])('rejects %s as policy:error, naming the bound', (_, args, words) => {
    const verdict = engine.evaluate(request('refund_order', args));
    expect(verdict).toMatchObject({ outcome: 'reject', basis: 'error', policyIds: [] });
    expect(verdict.reason).toContain(words);
  });

  it('judges a set of 1,000 elements within 64 KB, and leaves undeclared arguments out of the count', () => {
    const tags = Array.from({ length: 1000 }, (_, i) => `t${i}`);
    const huge = 'z'.repeat(1_000_000);
    expect(engine.evaluate(request('refund_order', { tags, undeclared: huge }))).toMatchObject({ outcome: 'approve' });
  });
});

describe('the policy version', () => {
  it('is the first 16 hex digits of the SHA-256 of the files, the mode and the default, in that order', () => {
    const loaded = load(HOURS);
    const version = policyVersion(loaded.sources, 'enforce', 'ask');
    expect(version).toMatch(/^[0-9a-f]{16}$/);
    expect(engineOf(HOURS, { version: undefined }).version).toBe(version);
    expect(policyVersion(loaded.sources, 'shadow', 'ask')).not.toBe(version);
    expect(policyVersion(loaded.sources, 'enforce', 'reject')).not.toBe(version);
    expect(policyVersion([`${loaded.sources[0]} `, ...loaded.sources.slice(1)], 'enforce', 'ask')).not.toBe(version);
    // The parts are kept apart: moving text from one file to the next changes it.
    expect(policyVersion(['ab', 'c'], 'enforce', 'ask')).not.toBe(policyVersion(['a', 'bc'], 'enforce', 'ask'));
  });

  it('is the deployment’s own when it names one', () => {
    expect(engineOf(HOURS, { version: 'release-7' }).version).toBe('release-7');
  });
});

describe('the policy settings of §19', () => {
  const names = {
    policies: 'HANDBACK_POLICIES',
    schema: 'HANDBACK_POLICY_SCHEMA',
    mode: 'HANDBACK_POLICY_MODE',
    default: 'HANDBACK_POLICY_DEFAULT',
    timeZone: 'HANDBACK_POLICY_TIMEZONE',
    version: 'HANDBACK_POLICY_VERSION',
  };
  const given = {
    policies: 'p.cedar',
    schema: undefined,
    mode: undefined,
    default: undefined,
    timeZone: undefined,
    version: undefined,
  };

  it('default the time zone to UTC and leave the version to the files', () => {
    expect(policySettingsFrom(given, names)).toEqual({
      policies: 'p.cedar',
      mode: 'enforce',
      default: 'ask',
      timeZone: 'UTC',
    });
    expect(policySettingsFrom({ ...given, timeZone: 'Europe/Paris', version: 'v1.2' }, names)).toMatchObject({
      timeZone: 'Europe/Paris',
      version: 'v1.2',
    });
  });

  it.each([
    [{ timeZone: 'Mars/Olympus' }, 'HANDBACK_POLICY_TIMEZONE must be an IANA time zone such as UTC or Europe/Paris'],
    [{ timeZone: '' }, 'HANDBACK_POLICY_TIMEZONE must be an IANA time zone'],
    [{ version: 'has space' }, 'HANDBACK_POLICY_VERSION must be 1 to 64 visible ASCII characters'],
    [{ version: 'v'.repeat(65) }, 'HANDBACK_POLICY_VERSION must be 1 to 64'],
    [{ policies: undefined, timeZone: 'UTC' }, 'HANDBACK_POLICY_TIMEZONE is set without HANDBACK_POLICIES'],
    [{ policies: undefined, version: 'v1' }, 'HANDBACK_POLICY_VERSION is set without HANDBACK_POLICIES'],
  ])('refuse %o, naming the variable', (changed, words) => {
    expect(() => policySettingsFrom({ ...given, ...changed }, names)).toThrow(words);
  });

  it('know a time zone from a name that is none', () => {
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Asia/Kolkata')).toBe(true);
    expect(isTimeZone('Europe/Nowhere')).toBe(false);
  });
});
