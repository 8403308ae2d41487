import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pauseBody } from '../handlers/events.ts';
import { request, startService, stopAll } from './service.ts';

/**
 * `npm start` on a data dir, killed (SIGKILL) while pauses of three tenants are being written, started again, and
 * killed again, round after round: after every start `GET /pauses?limit=100` answers 200 for every tenant, each pause
 * once and readable. The embedded store writes a pause's index entries before its item, so a kill between the two
 * leaves an entry behind, and the agent's retry of that pause writes the same pause key under a new listing key: the
 * listing used to send that key twice in one BatchGetItem, which DynamoDB refuses, and answer 500 from then on.
 */

const JWT_SECRET = 'a-jwt-secret-of-at-least-thirty-two-bytes';
const TENANTS = ['acme', 'globex', 'initech'];
/** Rounds of write-and-kill, and pauses each round starts per tenant. */
const ROUNDS = 4;
const PAUSES = 24;

let dir: string;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handback-crash-'));
  for (const tenant of TENANTS) {
    tokens[tenant] = await new SignJWT({ tenant, sub: `agent-${tenant}` })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(JWT_SECRET));
  }
});
afterAll(async () => {
  await stopAll();
  await rm(dir, { recursive: true, force: true });
});

const as = (tenant: string) => ({ authorization: `Bearer ${tokens[tenant]}` });
const start = () => startService({ HANDBACK_DATA_DIR: dir, HANDBACK_JWT_SECRET: JWT_SECRET });

/** Every page of a tenant's listing at `limit`: each answer's status, and the runIds listed. */
async function listAll(url: string, tenant: string, query: string) {
  const statuses: number[] = [];
  const runIds: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await request(
      `${url}/pauses?${query}${cursor === undefined ? '' : `&cursor=${cursor}`}`,
      'GET',
      undefined,
      as(tenant),
    );
    statuses.push(page.status);
    if (page.status !== 200) break;
    runIds.push(...page.body.items.map((item: { runId: string }) => item.runId));
    cursor = page.body.cursor;
  } while (cursor !== undefined);
  return { statuses, runIds };
}

describe('npm start on a data dir, killed while pauses are written', () => {
  it(`lists every tenant's pauses, each once, after each of ${ROUNDS} kills`, async () => {
    /** Pauses whose request got no answer before the kill: the agent retries them after the restart. */
    let unanswered: Array<{ tenant: string; runId: string }> = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const service = await start();
      for (const tenant of TENANTS) {
        for (const query of ['limit=100', 'limit=100&status=paused', 'limit=7']) {
          const listed = await listAll(service.url, tenant, query);
          expect(listed.statuses, `${tenant} ${query} round ${round}`).toEqual(listed.statuses.map(() => 200));
          expect(new Set(listed.runIds).size, `${tenant} ${query} round ${round}`).toBe(listed.runIds.length);
        }
        // Whatever is listed is readable.
        const first = await request(`${service.url}/pauses?limit=100`, 'GET', undefined, as(tenant));
        for (const item of first.body.items as Array<{ runId: string; interruptId: string }>) {
          const shown = await request(
            `${service.url}/runs/${item.runId}/pauses/${item.interruptId}`,
            'GET',
            undefined,
            as(tenant),
          );
          expect(shown.status).toBe(200);
        }
      }
      // The agents retry what was not answered (a pause that was written meets 409 open_pause_exists).
      for (const { tenant, runId } of unanswered) {
        const retried = await request(`${service.url}/runs/${runId}/pauses`, 'POST', pauseBody(), as(tenant));
        expect([201, 409]).toContain(retried.status);
      }
      if (round === ROUNDS) {
        expect(await service.stop('SIGTERM')).toBe(0);
        break;
      }
      // Pauses of every tenant in flight, some cancelled as soon as they are made; killed in the middle.
      const pending = new Set<string>();
      const writes = TENANTS.flatMap((tenant) =>
        Array.from({ length: PAUSES }, async (_, index) => {
          const runId = `crash-${round}-${index}`;
          pending.add(`${tenant} ${runId}`);
          const paused = await request(`${service.url}/runs/${runId}/pauses`, 'POST', pauseBody(), as(tenant));
          pending.delete(`${tenant} ${runId}`);
          if (index % 3 === 0 && paused.status === 201) {
            await request(
              `${service.url}/runs/${runId}/pauses/${paused.body.interruptId}/cancel`,
              'POST',
              {},
              as(tenant),
            );
          }
        }).map((write) => write.catch(() => undefined)),
      );
      await new Promise((resolve) => setTimeout(resolve, 150 + round * 60));
      expect(await service.stop('SIGKILL')).toBe('SIGKILL');
      await Promise.all(writes);
      unanswered = [...pending].map((entry) => {
        const [tenant, runId] = entry.split(' ') as [string, string];
        return { tenant, runId };
      });
    }
  }, 300_000);
});
