import { describe, expect, it } from 'vitest';
import { onSlackSecret, parseSlackSecret, SlackSecretUnavailableError } from '../../functions/channels/slack-secret.ts';
import { createCachedRead } from '../../functions/links/cached-read.ts';

describe("the Slack app's secret", () => {
  it('holds the bot token and the signing secret as JSON', () => {
    expect(parseSlackSecret('{"botToken":"xoxb-1","signingSecret":"s"}', 'handback/slack')).toEqual({
      botToken: 'xoxb-1',
      signingSecret: 's',
    });
  });

  it.each([
    ['not JSON', 'xoxb-1', 'is not JSON'],
    ['an empty object', '{}', 'has no botToken and signingSecret'],
    ['no signing secret', '{"botToken":"xoxb-1"}', 'has no signingSecret'],
    ['an empty token', '{"botToken":"","signingSecret":"s"}', 'has no botToken'],
    ['an array', '[]', 'has no botToken and signingSecret'],
  ])('is refused when it is %s, naming the secret and never a value', (_what, text, message) => {
    expect(() => parseSlackSecret(text, 'handback/slack')).toThrow(`The Slack secret handback/slack ${message}`);
    expect(() => parseSlackSecret(text, 'handback/slack')).not.toThrow(/xoxb-1/);
  });

  it('makes the channel once per value of the secret, and again when it is rotated', async () => {
    let current = { botToken: 'xoxb-1', signingSecret: 's' };
    const made: string[] = [];
    const channel = onSlackSecret(
      async () => current,
      (secret) => {
        made.push(secret.botToken);
        return { token: secret.botToken };
      },
    );
    expect(await channel()).toEqual({ token: 'xoxb-1' });
    expect(await channel()).toBe(await channel());
    current = { botToken: 'xoxb-2', signingSecret: 's' };
    expect(await channel()).toEqual({ token: 'xoxb-2' });
    expect(made).toEqual(['xoxb-1', 'xoxb-2']);
  });

  it('is read once while fresh, fails fast after a failed read, and keeps serving a value read before', async () => {
    let now = 0;
    const results: Array<string | Error> = ['first', new Error('down'), 'second'];
    let reads = 0;
    const read = createCachedRead(
      async () => {
        reads += 1;
        const next = results.shift() ?? new Error('no more');
        if (next instanceof Error) throw next;
        return next;
      },
      (retryInMs, cause) => new SlackSecretUnavailableError(retryInMs, { cause }),
      { ttlMs: 1_000, failureTtlMs: 100, now: () => now },
    );
    expect(await Promise.all([read(), read()])).toEqual(['first', 'first']);
    expect(reads).toBe(1);
    now = 1_500;
    expect(await read()).toBe('first');
    expect(reads).toBe(2);
    expect(await read()).toBe('first');
    expect(reads).toBe(2);
    now = 1_700;
    expect(await read()).toBe('second');
  });

  it('is unavailable, with when to try again, when it was never read', async () => {
    const read = createCachedRead(
      async () => {
        throw new Error('AccessDenied');
      },
      (retryInMs, cause) => new SlackSecretUnavailableError(retryInMs, { cause }),
      { failureTtlMs: 5_000, now: () => 0 },
    );
    await expect(read()).rejects.toMatchObject({ name: 'SlackSecretUnavailableError', retryInMs: 5_000 });
    await expect(read()).rejects.toBeInstanceOf(SlackSecretUnavailableError);
  });
});
