import { describe, expect, it } from 'vitest';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/memory-store.ts';
import type { PeopleDeps } from '../../functions/checkpoints/people-me.ts';
import { directoryOfText } from '../../functions/directory/file.ts';
import type { Directory } from '../../functions/directory/port.ts';
import { createApiHandler } from '../../functions/handlers/http-api.ts';
import openapi from '../../functions/handlers/openapi.json' with { type: 'json' };
import { httpEvent, lambdaContext } from './events.ts';
import { testTelemetry } from './telemetry.ts';

/**
 * `GET /people/me` and a person's own delegation (§20) through the API handler: each answer, each refusal (a 4xx
 * that changes nothing, read back), and the statuses the OpenAPI document gives these routes, each seen here.
 */

const NOW = Date.parse('2026-06-01T09:00:00Z');
const LATER = '2026-06-08T09:00:00Z';

const FILE = JSON.stringify({
  people: [
    { id: 'ann', name: 'Ann', emails: ['ann@example.com'], subjects: ['sub-ann'], groups: ['finance'], manager: 'cyd' },
    { id: 'bob', name: 'Bob', emails: ['bob@example.com'], subjects: ['sub-bob'] },
    { id: 'cyd', name: 'Cyd', emails: ['cyd@example.com'], subjects: ['sub-cyd'] },
    { id: 'dan', name: 'Dan', emails: ['dan@example.com'], subjects: ['sub-dan'], active: false },
    {
      id: 'eve',
      name: 'Eve',
      subjects: ['sub-eve'],
      delegation: { to: 'bob', from: '2026-05-01T00:00:00Z', until: '2026-05-02T00:00:00Z' },
    },
  ],
});

const claims = (sub: string, extra: Record<string, string> = {}) => ({ tenant: 'default', sub, ...extra });

/** (method path) → statuses seen. */
const seen = new Map<string, Set<number>>();

function api(people: PeopleDeps | undefined) {
  const handler = createApiHandler({
    store: createMemoryCheckpointStore(),
    handoff: { deliver: async () => {} },
    ...testTelemetry(),
    now: () => NOW,
    ...(people === undefined ? {} : { people }),
  });
  return async (
    method: string,
    path: string,
    options: { as?: Record<string, string> | null; body?: unknown; rawBody?: string; contentType?: string } = {},
  ) => {
    const result = await handler(
      httpEvent(method, path, {
        claims: options.as === undefined ? claims('sub-ann') : options.as,
        ...(options.body === undefined ? {} : { body: options.body }),
        ...(options.rawBody === undefined ? {} : { rawBody: options.rawBody }),
        ...(options.contentType === undefined ? {} : { contentType: options.contentType }),
      }),
      lambdaContext(),
    );
    const key = `${method} ${path}`;
    seen.set(key, (seen.get(key) ?? new Set()).add(result.statusCode ?? 0));
    return { status: result.statusCode, body: JSON.parse(String(result.body)) as Record<string, unknown> };
  };
}

function writable() {
  const directory = directoryOfText(FILE, 'people.json');
  return { directory, call: api({ directory, writer: directory }) };
}

describe('GET /people/me (§20)', () => {
  it("shows the caller's person: id, name, emails, groups, manager, and no delegation", async () => {
    const { call } = writable();
    const me = await call('GET', '/people/me');
    expect(me).toEqual({
      status: 200,
      body: { id: 'ann', name: 'Ann', emails: ['ann@example.com'], groups: ['finance'], manager: 'cyd' },
    });
  });

  it('finds the caller by a verified email when its subject is unknown, and shows a delegation that has ended', async () => {
    const { call } = writable();
    expect(
      (await call('GET', '/people/me', { as: claims('other', { email: 'BOB@example.com', email_verified: 'true' }) }))
        .body,
    ).toMatchObject({ id: 'bob' });
    expect((await call('GET', '/people/me', { as: claims('sub-eve') })).body).toMatchObject({
      id: 'eve',
      delegation: { to: 'bob', toName: 'Bob', until: '2026-05-02T00:00:00Z', holds: false },
    });
  });

  it('is 404 not_found for a caller the directory knows no one for, and where there is no directory', async () => {
    const { call } = writable();
    const unknown = await call('GET', '/people/me', { as: claims('sub-zed', { email: 'zed@example.com' }) });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(String(unknown.body.detail)).toMatch(/knows no person for you/);
    const none = await api(undefined)('GET', '/people/me');
    expect(none).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(String(none.body.detail)).toMatch(/HANDBACK_DIRECTORY/);
  });

  it('is 401 without a tenant, 403 for a token whose scopes do not open it', async () => {
    const { call } = writable();
    expect(await call('GET', '/people/me', { as: { sub: 'sub-ann' } })).toMatchObject({ status: 401 });
    const agent = await call('GET', '/people/me', { as: claims('sub-ann', { scope: 'handback/agent' }) });
    expect(agent).toMatchObject({ status: 403, body: { code: 'forbidden' } });
  });

  it('is 500 internal_error, revealing nothing, when the directory fails', async () => {
    const failing: Directory = new Proxy({} as Directory, {
      get: () => async () => {
        throw new Error('the table is down: secret detail');
      },
    });
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { to: 'bob', until: LATER }],
      ['DELETE', undefined],
    ] as const) {
      const path = method === 'GET' ? '/people/me' : '/people/me/delegation';
      const answer = await api({ directory: failing, writer: { setDelegation: async () => 'missing' } })(method, path, {
        ...(body === undefined ? {} : { body }),
      });
      expect(answer).toMatchObject({ status: 500, body: { code: 'internal_error' } });
      expect(JSON.stringify(answer.body)).not.toContain('secret');
    }
  });
});

describe('PUT and DELETE /people/me/delegation (§20)', () => {
  it("sets the caller's delegation (the delegate by email), replaces it, and ends it", async () => {
    const { call, directory } = writable();
    const set = await call('PUT', '/people/me/delegation', {
      body: { to: 'Bob@Example.com', until: LATER, reason: 'On leave' },
    });
    expect(set).toEqual({
      status: 200,
      body: {
        id: 'ann',
        name: 'Ann',
        emails: ['ann@example.com'],
        groups: ['finance'],
        manager: 'cyd',
        delegation: { to: 'bob', toName: 'Bob', until: LATER, reason: 'On leave', holds: true },
      },
    });
    expect((await directory.get('default', 'ann'))?.delegation).toEqual({
      to: 'bob',
      until: LATER,
      reason: 'On leave',
    });
    expect((await directory.delegations('default')).map((person) => person.id)).toEqual(['ann', 'eve']);
    // Bob sees whose approvals he holds now (Eve's delegation to him has ended).
    expect((await call('GET', '/people/me', { as: claims('sub-bob') })).body.delegators).toEqual([
      { id: 'ann', name: 'Ann', until: LATER },
    ]);
    const later = await call('PUT', '/people/me/delegation', {
      body: { to: 'cyd', from: '2026-06-02T00:00:00Z', until: LATER },
    });
    expect(later.body.delegation).toEqual({
      to: 'cyd',
      toName: 'Cyd',
      from: '2026-06-02T00:00:00Z',
      until: LATER,
      holds: false,
    });
    const ended = await call('DELETE', '/people/me/delegation');
    expect(ended.status).toBe(200);
    expect(ended.body.delegation).toBeUndefined();
    expect((await directory.get('default', 'ann'))?.delegation).toBeUndefined();
    // Ending none is the same answer.
    expect(await call('DELETE', '/people/me/delegation')).toEqual(ended);
  });

  it.each([
    ['to no one', { to: 'zed@example.com', until: LATER }, '/to', /no person of your tenant/],
    ['to themselves', { to: 'ann', until: LATER }, '/to', /names you/],
    ['to themselves by email', { to: 'ann@example.com', until: LATER }, '/to', /names you/],
    ['to an inactive person', { to: 'dan', until: LATER }, '/to', /not active/],
    ['until in the past', { to: 'bob', until: '2026-05-31T09:00:00Z' }, '/until', /later than now/],
    ['until now', { to: 'bob', until: '2026-06-01T09:00:00Z' }, '/until', /later than now/],
    ['from after until', { to: 'bob', from: '2026-06-09T00:00:00Z', until: LATER }, '/until', /before it ends/],
    ['until not an instant', { to: 'bob', until: 'next week' }, '/until', /./],
    ['no to', { until: LATER }, '/to', /./],
    ['an unknown field', { to: 'bob', until: LATER, for: 'ann' }, '', /for/],
  ])('is 400 bad_request for a delegation %s, and changes nothing', async (_case, body, path, message) => {
    const { call, directory } = writable();
    const before = await directory.get('default', 'ann');
    const refused = await call('PUT', '/people/me/delegation', { body });
    expect(refused).toMatchObject({ status: 400, body: { code: 'bad_request' } });
    const failure = (refused.body.failures as Array<{ path: string; message: string }>).find((f) =>
      f.path.startsWith(path),
    );
    expect(failure?.message).toMatch(message);
    expect(await directory.get('default', 'ann')).toEqual(before);
  });

  it('is 403 for an agent (a token acting for a person) and for a person the directory says is inactive, changing nothing', async () => {
    const { call, directory } = writable();
    const agent = await call('PUT', '/people/me/delegation', {
      as: { ...claims('sub-ann'), act: JSON.stringify({ sub: 'agent-1' }) },
      body: { to: 'bob', until: LATER },
    });
    expect(agent).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    const inactive = await call('PUT', '/people/me/delegation', {
      as: claims('sub-dan'),
      body: { to: 'bob', until: LATER },
    });
    expect(inactive).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect(String(inactive.body.detail)).toMatch(/dan is not active/);
    expect(await call('DELETE', '/people/me/delegation', { as: claims('sub-dan') })).toMatchObject({ status: 403 });
    expect(await directory.delegations('default')).toHaveLength(1);
  });

  it('is 413 past its limit and 415 without JSON, 401 without a tenant', async () => {
    const { call } = writable();
    const huge = await call('PUT', '/people/me/delegation', {
      rawBody: JSON.stringify({ to: 'bob', until: LATER, reason: 'x'.repeat(300_000) }),
    });
    expect(huge).toMatchObject({ status: 413 });
    const text = await call('PUT', '/people/me/delegation', { rawBody: 'bob', contentType: 'text/plain' });
    expect(text).toMatchObject({ status: 415 });
    expect(
      await call('PUT', '/people/me/delegation', { as: { sub: 'sub-ann' }, body: { to: 'bob', until: LATER } }),
    ).toMatchObject({ status: 401 });
    expect(await call('DELETE', '/people/me/delegation', { as: { sub: 'sub-ann' } })).toMatchObject({ status: 401 });
  });

  it('is 403 for a token whose scopes do not open it', async () => {
    const { call } = writable();
    const scope = { scope: 'handback/agent' };
    expect(
      await call('PUT', '/people/me/delegation', { as: claims('sub-ann', scope), body: { to: 'bob', until: LATER } }),
    ).toMatchObject({ status: 403 });
    expect(await call('DELETE', '/people/me/delegation', { as: claims('sub-ann', scope) })).toMatchObject({
      status: 403,
    });
  });

  it('is 404 naming why where the directory cannot keep a delegation (a file on AWS), and where it knows no one', async () => {
    const directory = directoryOfText(FILE, 'people.json');
    const call = api({ directory, whyReadOnly: 'the file is bundled with every function' });
    for (const method of ['PUT', 'DELETE']) {
      const refused = await call(
        method,
        '/people/me/delegation',
        method === 'PUT' ? { body: { to: 'bob', until: LATER } } : {},
      );
      expect(refused).toMatchObject({ status: 404, body: { code: 'not_found' } });
      expect(String(refused.body.detail)).toMatch(/not configured here: the file is bundled with every function/);
    }
    expect(await directory.delegations('default')).toHaveLength(1);
    const { call: open } = writable();
    const unknown = await open('PUT', '/people/me/delegation', {
      as: claims('sub-zed'),
      body: { to: 'bob', until: LATER },
    });
    expect(unknown).toMatchObject({ status: 404 });
    expect(await open('DELETE', '/people/me/delegation', { as: claims('sub-zed') })).toMatchObject({ status: 404 });
    expect(await api(undefined)('PUT', '/people/me/delegation', { body: { to: 'bob', until: LATER } })).toMatchObject({
      status: 404,
    });
  });
});

describe('the OpenAPI document', () => {
  it('gives these routes exactly the statuses answered above', () => {
    const paths = openapi.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    for (const [key, statuses] of seen) {
      const [method, path] = key.split(' ') as [string, string];
      const documented = Object.keys(paths[path]?.[method.toLowerCase()]?.responses ?? {}).map(Number);
      expect([...statuses].sort(), key).toEqual(documented.sort());
    }
    expect([...seen.keys()].sort()).toEqual([
      'DELETE /people/me/delegation',
      'GET /people/me',
      'PUT /people/me/delegation',
    ]);
  });
});
