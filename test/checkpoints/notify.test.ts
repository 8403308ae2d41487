import { describe, expect, it } from 'vitest';
import { checkNotifyConfigured, parseChannelNames, recipientsOf } from '../../functions/checkpoints/notify.ts';
import { BadRequestError } from '../../functions/errors.ts';
import { parseInput } from '../../functions/inputs.ts';
import { notifyList } from '../../functions/wire.ts';

/** The paths of what is wrong with `notify`, as a pause names them (none when it is well formed). */
function failuresOf(notify: unknown): Array<{ path: string }> {
  try {
    parseInput(notifyList, notify, 'notify', '/notify');
    return [];
  } catch (error) {
    return (error as BadRequestError).failures;
  }
}

describe('notify on a pause', () => {
  it.each([
    ['not an array', 'slack', '/notify'],
    [
      'more than 10 entries',
      Array.from({ length: 11 }, (_, i) => ({ channel: 'email', to: `p${i}@example.com` })),
      '/notify',
    ],
    ['an entry that is not an object', ['C0123456789'], '/notify/0'],
    ['an unknown channel', [{ channel: 'teams', to: 'x' }], '/notify/0/channel'],
    ['a Slack channel name instead of its id', [{ channel: 'slack', to: '#general' }], '/notify/0/to'],
    ['an email without a domain', [{ channel: 'email', to: 'ops@' }], '/notify/0/to'],
    [
      'the same entry twice',
      [
        { channel: 'email', to: 'a@example.com' },
        { channel: 'email', to: 'A@example.com' },
      ],
      '/notify/1',
    ],
  ])('names %s', (_, notify, path) => {
    expect(failuresOf(notify).map((failure) => failure.path)).toEqual([path]);
  });

  it('takes Slack channel ids and email addresses', () => {
    expect(
      failuresOf([
        { channel: 'slack', to: 'C0123456789' },
        { channel: 'slack', to: 'G0123ABCDE' },
        { channel: 'email', to: 'ops@example.com' },
      ]),
    ).toEqual([]);
  });

  it('refuses an entry for a channel that is not configured with a 400 naming it', () => {
    const check = () =>
      checkNotifyConfigured(
        [
          { channel: 'slack', to: 'C0123456789' },
          { channel: 'email', to: 'a@example.com' },
        ],
        ['slack'],
      );
    expect(check).toThrow(BadRequestError);
    expect(check).toThrow(/email channel is not configured/);
  });

  it('delivers to the pause’s own entries of a channel, or to the defaults when it gave none', () => {
    const notify = [
      { channel: 'slack' as const, to: 'C0123456789' },
      { channel: 'email' as const, to: 'a@example.com' },
    ];
    expect(recipientsOf(notify, 'email', ['default@example.com'])).toEqual(['a@example.com']);
    expect(recipientsOf(undefined, 'email', ['default@example.com'])).toEqual(['default@example.com']);
    expect(recipientsOf([], 'slack', ['C0DEFAULT1'])).toEqual([]);
  });
});

describe('the channels a deployment turned on (HANDBACK_CHANNELS, set by the stack)', () => {
  it.each([
    [undefined, []],
    ['', []],
    ['slack', ['slack']],
    ['slack, email', ['slack', 'email']],
  ])('reads %j as %j', (value, names) => {
    expect(parseChannelNames(value)).toEqual(names);
  });

  it('refuses a name that is no channel, naming it', () => {
    expect(() => parseChannelNames('slack,teams')).toThrow('"teams"');
  });
});
