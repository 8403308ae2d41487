import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, request, startService, stopAll } from '../black-box/service.ts';
import { createPause, launchChromium, newPage, pauseUrl, turn } from './browser.ts';

/**
 * The signed-in person and their delegation in the inbox (§20), in headless Chromium against `npm start` with a
 * directory file and HS256 tokens: the header names the person the directory says, with the delegation they set, and
 * a vote a delegate cast for them reads "Bob approved for Cyd (delegation until …)" to the delegate.
 */

const SECRET = 'a-jwt-secret-of-at-least-thirty-two-bytes';
let service: RunningService;
let browser: Browser;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handback-inbox-people-'));
  const file = join(dir, 'people.json');
  const person = (id: string, name: string, groups: string[]) => ({
    id,
    name,
    subjects: [`u-${id}`],
    groups,
    tenant: 'acme',
  });
  await writeFile(
    file,
    JSON.stringify({
      people: [
        person('alice', 'Alice Agent', []),
        person('bob', 'Bob Delegate', []),
        person('cyd', 'Cyd Finance', ['finance']),
      ],
    }),
  );
  [service, browser] = await Promise.all([
    startService({ HANDBACK_JWT_SECRET: SECRET, HANDBACK_DIRECTORY: file }),
    launchChromium(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
  await rm(dir, { recursive: true, force: true });
});

const token = (id: string) =>
  new SignJWT({ tenant: 'acme', sub: `u-${id}`, name: id === 'bob' ? 'Bob Delegate' : undefined })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(SECRET));
const bearer = async (id: string) => ({ authorization: `Bearer ${await token(id)}` });

/** A page signed in as `id` (its token in the tab's session, as the token form keeps it). */
async function signedIn(id: string) {
  const { context, page } = await newPage(browser);
  const jwt = await token(id);
  await context.addInitScript((value: string) => sessionStorage.setItem('handback.token', value), jwt);
  return page;
}

describe('the inbox’s person and delegation (§20)', () => {
  it('names the signed-in person, shows the delegation they set, and a delegate’s vote for them', async () => {
    const cyd = await signedIn('cyd');
    await cyd.goto(`${service.url}/inbox`);
    await expect.poll(() => cyd.locator('header .who').textContent()).toBe('Signed in as Cyd Finance');

    const until = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const set = await request(`${service.url}/people/me/delegation`, 'PUT', { to: 'bob', until }, await bearer('cyd'));
    expect(set.status).toBe(200);
    await cyd.reload();
    await expect
      .poll(() => cyd.locator('header .who').textContent())
      .toMatch(/^Signed in as Cyd Finance · Your approvals go to Bob Delegate until .+\.$/);

    const created = await createPause(
      service.url,
      {
        messages: turn([{ id: 'call_refund', name: 'refund_order', args: { orderId: 'A-1042', amount: 42.5 } }]),
        asks: [{ toolCallId: 'call_refund', kind: 'approval', approvers: { groups: ['finance'] }, approvals: 2 }],
      },
      await bearer('alice'),
    );
    const voted = await request(
      `${service.url}/runs/${created.runId}/resume`,
      'POST',
      { interruptId: created.interruptId, decisions: [{ toolCallId: 'call_refund', decision: 'approve' }] },
      await bearer('bob'),
    );
    expect(voted.status).toBe(202);

    const bob = await signedIn('bob');
    await bob.goto(pauseUrl(service.url, created));
    await expect.poll(() => bob.locator('header .who').textContent()).toBe('Signed in as Bob Delegate');
    await expect
      .poll(() => bob.locator('.votes').textContent())
      .toMatch(/^1 of 2 approvals: Bob Delegate approved for Cyd Finance \(delegation until .+\)$/);
    // Cyd reads the same vote without the delegation's end, which is Bob's to hold.
    await cyd.goto(pauseUrl(service.url, created));
    await expect
      .poll(() => cyd.locator('.votes').textContent())
      .toBe('1 of 2 approvals: Bob Delegate approved for Cyd Finance');
  });
});
