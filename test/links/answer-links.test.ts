import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ForbiddenError, LinkKeyUnavailableError } from '../../functions/errors.ts';
import {
  answerLinksOnFirstUse,
  checkNamesOnlyItsPause,
  createAnswerLinks,
  createKeyCache,
  LinkClosedError,
  LinkRefusedError,
} from '../../functions/links/answer-links.ts';

const key = new TextEncoder().encode('a-link-secret-of-at-least-32-bytes!!');
const grant = { tenant: 'acme', runId: 'run-1', interruptId: '1.1.AAAAAAAAAAAAAAAAAAAAAA' };
const tokenOf = (url: string) => url.slice(url.indexOf('#') + 1);

describe('answer links', () => {
  it('puts the token in the fragment of the inbox URL, and the token names its one pause', async () => {
    const links = createAnswerLinks(key, () => new Date('2026-01-01T00:00:00.000Z'));
    const url = await links.linkFor({ ...grant, expiresAt: '2026-01-08T00:00:00.000Z' }, 'https://h.example/inbox?x=1');
    expect(url.startsWith('https://h.example/inbox?x=1#')).toBe(true);
    expect(url.slice(0, url.indexOf('#'))).not.toContain(tokenOf(url).slice(0, 10));
    expect(await links.verify(tokenOf(url))).toMatchObject(grant);
  });

  it('closes the link when the pause expires', async () => {
    let now = new Date('2026-01-01T00:00:00.000Z');
    const links = createAnswerLinks(key, () => now);
    const url = await links.linkFor({ ...grant, expiresAt: '2026-01-01T00:01:00.000Z' }, 'https://h/inbox');
    now = new Date('2026-01-01T00:01:01.000Z');
    await expect(links.verify(tokenOf(url))).rejects.toBeInstanceOf(LinkClosedError);
  });

  it.each([
    // The signature's first character: its last carries two padding bits, which a flip may leave unchanged.
    [
      'a flipped byte of the signature',
      (token: string) => {
        const at = token.lastIndexOf('.') + 1;
        return `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
      },
    ],
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

describe('what a link decides as (§16)', () => {
  const pause = { ...grant, expiresAt: '2099-01-01T00:00:00.000Z' };
  const ann = {
    kind: 'person' as const,
    subject: 'u-ann',
    email: 'Ann@Example.com',
    emailVerified: true as const,
    name: 'Ann',
    via: 'api' as const,
    groups: ['finance'],
  };
  /** A token signed as part three signed them, with these claims besides the pause's. */
  const partThree = (claims: Record<string, unknown>) =>
    new SignJWT({ tnt: grant.tenant, run: grant.runId, pid: grant.interruptId, ...claims })
      .setProtectedHeader({ alg: 'HS256', typ: 'handback-link+jwt' })
      .setAudience('handback:answer-link')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(key);

  it('decides a delivered link as the address it was mailed to, verified (ASCII case folding only)', async () => {
    const links = createAnswerLinks(key);
    const url = await links.linkFor(pause, 'https://h/inbox', {
      kind: 'delivered',
      recipient: { email: 'Ada.Lovelace@Example.com', name: 'Ada Lovelace' },
    });
    expect(await links.verify(tokenOf(url))).toEqual({
      ...grant,
      recipient: { email: 'Ada.Lovelace@Example.com', name: 'Ada Lovelace' },
      principal: {
        kind: 'link',
        subject: 'email:ada.lovelace@example.com',
        email: 'Ada.Lovelace@Example.com',
        emailVerified: true,
        name: 'Ada Lovelace',
        via: 'link',
      },
    });
  });

  it('decides a granted link as its grantor, through the link, with the recipient as a label', async () => {
    const links = createAnswerLinks(key);
    const url = await links.linkFor(pause, 'https://h/inbox', {
      kind: 'granted',
      grantor: ann,
      recipient: { email: 'mallory@evil.example', name: 'M' },
    });
    expect((await links.verify(tokenOf(url))).principal).toEqual({
      kind: 'person',
      subject: 'u-ann',
      email: 'Ann@Example.com',
      emailVerified: true,
      name: 'Ann',
      via: 'link',
      for: { email: 'mallory@evil.example', name: 'M' },
      groups: ['finance'],
    });
  });

  it('decides the pause’s own link, granted to the person who paused, as that person', async () => {
    const links = createAnswerLinks(key);
    const url = await links.linkFor(pause, 'https://h/inbox', { kind: 'granted', grantor: ann });
    const verified = await links.verify(tokenOf(url));
    expect(verified.recipient).toBeUndefined();
    expect(verified.principal).toMatchObject({ kind: 'person', subject: 'u-ann', via: 'link' });
    expect(verified.principal).not.toHaveProperty('for');
  });

  it('decides a link without a delivery (the lifecycle events’) as no one: the pause’s unattributed link', async () => {
    const links = createAnswerLinks(key);
    const url = await links.linkFor(pause, 'https://h/inbox');
    const verified = await links.verify(tokenOf(url));
    expect(verified.recipient).toBeUndefined();
    expect(verified.principal).toEqual({ kind: 'link', subject: `link:${grant.interruptId}`, via: 'link' });
  });

  it.each([
    [
      'a part-two link (no recipient) as unattributed',
      {},
      { kind: 'link', subject: `link:${grant.interruptId}`, via: 'link' },
    ],
    [
      'a part-three link made through POST …/links as granted by its maker, by subject alone',
      { eml: 'cyd@example.com', nam: 'Cyd', gby: 'u-ann' },
      {
        kind: 'person',
        subject: 'u-ann',
        via: 'link',
        for: { email: 'cyd@example.com', name: 'Cyd' },
        groups: [],
      },
    ],
    [
      'a part-three email-channel link (a recipient, no maker) as delivered to that address',
      { eml: 'Cyd@example.com' },
      { kind: 'link', subject: 'email:cyd@example.com', email: 'Cyd@example.com', emailVerified: true, via: 'link' },
    ],
  ])('reads %s', async (_what, claims, principal) => {
    expect((await createAnswerLinks(key).verify(await partThree(claims))).principal).toEqual(principal);
  });

  it.each([
    ['a recipient that is not a string', { eml: 42 }],
    ['a delivery it does not know', { how: 'x', eml: 'a@example.com' }],
    ['a delivered link without an address', { how: 'd' }],
    ['a granted link without a grantor', { how: 'g' }],
    ['a grantor without a subject', { how: 'g', gby: { e: 'a@example.com' } }],
    ['a grantor whose groups are not strings', { how: 'g', gby: { s: 'u', g: [1] } }],
    ['a part-three maker without a recipient', { gby: 'u-ann' }],
  ])('refuses a token with %s', async (_what, claims) => {
    await expect(createAnswerLinks(key).verify(await partThree(claims))).rejects.toBeInstanceOf(LinkRefusedError);
  });
});

describe('a link request', () => {
  const own = { runId: 'run-1', interruptId: '1.1.AAAA' };

  it.each([
    ['nothing', {}],
    ['its own interruptId in the body', { body: { interruptId: own.interruptId, answer: 1 } }],
    ['its own runId in the query', { query: { runId: own.runId } }],
    ['a body that is not an object', { body: ['interruptId'] }],
  ])('passes when it names %s', (_, request) => {
    expect(() => checkNamesOnlyItsPause(own, request)).not.toThrow();
  });

  it.each([
    ['another interruptId in the body', { body: { interruptId: '5.1.BBBB', answer: 1 } }],
    ['another runId in the body', { body: { runId: 'run-5' } }],
    ['an interruptId that is not a string', { body: { interruptId: 5 } }],
    ['another interruptId in the query', { query: { interruptId: '5.1.BBBB' } }],
    ['another runId in the query', { query: { runId: 'run-5' } }],
  ])('is forbidden when it names %s', (_, request) => {
    const error = (() => {
      try {
        checkNamesOnlyItsPause(own, request);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).code).toBe('forbidden');
  });
});

const good = new TextEncoder().encode('a-link-secret-of-at-least-32-bytes!!');

/** A key cache over `results`, one per read, on a clock the test moves. */
function harness(results: Array<Uint8Array | Error>) {
  let now = 1_000_000;
  const reads: number[] = [];
  const failures: unknown[] = [];
  const get = createKeyCache(
    async () => {
      reads.push(now);
      const next = results.shift() ?? new Error('no more');
      if (next instanceof Error) throw next;
      return next;
    },
    { ttlMs: 300_000, failureTtlMs: 5_000, now: () => now, onFailure: (error) => failures.push(error) },
  );
  return { get, reads, failures, advance: (ms: number) => (now += ms) };
}

describe('the link key read on first use', () => {
  it('reads nothing until asked, then keeps the key for five minutes, then reads it again', async () => {
    const h = harness([good, good]);
    expect(h.reads).toEqual([]);
    expect(await h.get()).toBe(good);
    h.advance(299_999);
    await h.get();
    expect(h.reads).toHaveLength(1);
    h.advance(1);
    await h.get();
    expect(h.reads).toHaveLength(2);
  });

  it('reads once for many requests waiting at once', async () => {
    const h = harness([good]);
    const keys = await Promise.all([h.get(), h.get(), h.get()]);
    expect(keys).toEqual([good, good, good]);
    expect(h.reads).toHaveLength(1);
  });

  it('fails fast with link_key_unavailable for five seconds after a failed read, then tries again', async () => {
    const h = harness([new Error('timed out'), good]);
    const first = await h.get().catch((error: unknown) => error);
    expect(first).toBeInstanceOf(LinkKeyUnavailableError);
    expect(first).toMatchObject({ code: 'link_key_unavailable', retryAfterSeconds: 5 });
    h.advance(3_000);
    await expect(h.get()).rejects.toMatchObject({ code: 'link_key_unavailable', retryAfterSeconds: 2 });
    expect(h.reads).toHaveLength(1);
    h.advance(2_000);
    expect(await h.get()).toBe(good);
    expect(h.reads).toHaveLength(2);
    expect(h.failures).toEqual([new Error('timed out')]);
  });

  it('goes on with the key it had when a later read fails', async () => {
    const h = harness([good, new Error('throttled')]);
    await h.get();
    h.advance(300_000);
    expect(await h.get()).toBe(good);
    expect(h.failures).toHaveLength(1);
  });

  it('counts a key shorter than 256 bits as unavailable', async () => {
    const h = harness([new TextEncoder().encode('short')]);
    await expect(h.get()).rejects.toBeInstanceOf(LinkKeyUnavailableError);
    expect(String(h.failures[0])).toMatch(/at least 32 bytes/);
  });

  it('makes links sign and verify with the key once it is read, and refuse with 503 while it cannot be', async () => {
    const h = harness([new Error('down'), good]);
    const links = createAnswerLinks(h.get);
    const pause = { ...grant, expiresAt: '2099-01-01T00:00:00.000Z' };
    await expect(links.linkFor(pause, 'https://h/inbox')).rejects.toBeInstanceOf(LinkKeyUnavailableError);
    await expect(links.verify('a.b.c')).rejects.toBeInstanceOf(LinkKeyUnavailableError);
    h.advance(5_000);
    const url = await links.linkFor(pause, 'https://h/inbox');
    expect((await links.verify(tokenOf(url))).interruptId).toBe(grant.interruptId);
  });
});

describe('answer links loaded on first use', () => {
  const pause = { ...grant, expiresAt: '2099-01-01T00:00:00.000Z' };

  it('loads nothing until a link is signed or verified, then loads once for every request, concurrent ones too', async () => {
    let loads = 0;
    const links = answerLinksOnFirstUse(async () => {
      loads += 1;
      return createAnswerLinks(key);
    });
    expect(loads).toBe(0);
    const [first, second] = await Promise.all([
      links.linkFor(pause, 'https://h/inbox'),
      links.linkFor(pause, 'https://h/inbox', { kind: 'delivered', recipient: { email: 'ada@example.com' } }),
    ]);
    expect((await links.verify(tokenOf(first))).principal.subject).toBe(`link:${grant.interruptId}`);
    expect((await links.verify(tokenOf(second))).principal.subject).toBe('email:ada@example.com');
    await expect(links.verify('not a token')).rejects.toBeInstanceOf(LinkRefusedError);
    expect(loads).toBe(1);
  });

  it('answers as the loaded links do while the key cannot be had (503), keeping their key cache', async () => {
    const h = harness([new Error('down'), good]);
    let loads = 0;
    const links = answerLinksOnFirstUse(async () => {
      loads += 1;
      return createAnswerLinks(h.get);
    });
    await expect(links.linkFor(pause, 'https://h/inbox')).rejects.toBeInstanceOf(LinkKeyUnavailableError);
    h.advance(5_000);
    const url = await links.linkFor(pause, 'https://h/inbox');
    expect((await links.verify(tokenOf(url))).interruptId).toBe(grant.interruptId);
    expect([loads, h.failures.length]).toEqual([1, 1]);
  });

  it('keeps no failed load: the next request loads again', async () => {
    const made = [new Error('chunk unreadable'), createAnswerLinks(key)];
    const links = answerLinksOnFirstUse(async () => {
      const next = made.shift();
      if (next instanceof Error) throw next;
      return next as ReturnType<typeof createAnswerLinks>;
    });
    await expect(links.linkFor(pause, 'https://h/inbox')).rejects.toThrow('chunk unreadable');
    expect(await links.linkFor(pause, 'https://h/inbox')).toMatch(/^https:\/\/h\/inbox#/);
    expect(made).toEqual([]);
  });
});
