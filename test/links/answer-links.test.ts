import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createAnswerLinks, LinkClosedError, LinkRefusedError } from '../../functions/links/answer-links.ts';

const key = new TextEncoder().encode('a-link-secret-of-at-least-32-bytes!!');
const grant = { tenant: 'acme', runId: 'run-1', interruptId: '1.1.AAAAAAAAAAAAAAAAAAAAAA' };
const tokenOf = (url: string) => url.slice(url.indexOf('#') + 1);

describe('answer links', () => {
  it('puts the token in the fragment of the inbox URL, and the token names its one pause', async () => {
    const links = createAnswerLinks(key, () => new Date('2026-01-01T00:00:00.000Z'));
    const url = await links.linkFor({ ...grant, expiresAt: '2026-01-08T00:00:00.000Z' }, 'https://h.example/inbox?x=1');
    expect(url.startsWith('https://h.example/inbox?x=1#')).toBe(true);
    expect(url.slice(0, url.indexOf('#'))).not.toContain(tokenOf(url).slice(0, 10));
    expect(await links.verify(tokenOf(url))).toEqual(grant);
  });

  it('closes the link when the pause expires', async () => {
    let now = new Date('2026-01-01T00:00:00.000Z');
    const links = createAnswerLinks(key, () => now);
    const url = await links.linkFor({ ...grant, expiresAt: '2026-01-01T00:01:00.000Z' }, 'https://h/inbox');
    now = new Date('2026-01-01T00:01:01.000Z');
    await expect(links.verify(tokenOf(url))).rejects.toBeInstanceOf(LinkClosedError);
  });

  it.each([
    ['a flipped byte of the signature', (token: string) => `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`],
    [
      'a flipped byte of the claims',
      (token: string) => token.replace(/\.(.)/, (_, c: string) => `.${c === 'e' ? 'f' : 'e'}`),
    ],
    ['no token', () => undefined],
    ['a token that is not a JWT', () => 'not-a-token'],
    ['a token far too long', () => `${'a'.repeat(5000)}.b.c`],
  ])('refuses %s without saying why', async (_, tamper) => {
    const links = createAnswerLinks(key);
    const url = await links.linkFor({ ...grant, expiresAt: '2099-01-01T00:00:00.000Z' }, 'https://h/inbox');
    const error = await links.verify(tamper(tokenOf(url))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LinkRefusedError);
    expect((error as Error).message).toBe('This answer link is not valid.');
  });

  it('refuses a link made with another key, and a JWT of the same key that is not an answer link', async () => {
    const links = createAnswerLinks(key);
    const other = createAnswerLinks(new TextEncoder().encode('another-secret-of-at-least-32-bytes!'));
    const foreign = await other.linkFor({ ...grant, expiresAt: '2099-01-01T00:00:00.000Z' }, 'https://h/inbox');
    await expect(links.verify(tokenOf(foreign))).rejects.toBeInstanceOf(LinkRefusedError);
    // A bearer-style token signed with the same bytes: no `typ`, no audience, so it is not a link.
    const bearer = await new SignJWT({ tnt: 'acme', run: 'run-1', pid: grant.interruptId, tenant: 'acme' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(key);
    await expect(links.verify(bearer)).rejects.toBeInstanceOf(LinkRefusedError);
  });

  it('refuses a key shorter than 256 bits', () => {
    expect(() => createAnswerLinks(new TextEncoder().encode('short'))).toThrow(/at least 32 bytes/);
  });
});
