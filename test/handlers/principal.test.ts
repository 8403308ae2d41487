import { describe, expect, it } from 'vitest';
import { principalOf, scopesOf } from '../../functions/handlers/principal.ts';

describe('principalOf', () => {
  it.each([
    [
      'an agent-scoped token is an agent',
      { sub: 'c1', scope: 'handback/agent' },
      {},
      { kind: 'agent', subject: 'c1', via: 'api', groups: [] },
    ],
    [
      'a decide-scoped token is a person',
      { sub: 'p1', scope: 'openid handback/decide' },
      {},
      { kind: 'person', subject: 'p1', via: 'api', groups: [] },
    ],
    [
      'a token with both scopes is a person',
      { sub: 'p1', scope: 'handback/agent handback/decide' },
      {},
      { kind: 'person', subject: 'p1', via: 'api', groups: [] },
    ],
    [
      'an unscoped token is a person, with email, name and groups',
      { sub: 'p2', email: 'ana@example.com', name: 'Ana', 'cognito:groups': ['ops', 'finance'] },
      {},
      { kind: 'person', subject: 'p2', email: 'ana@example.com', name: 'Ana', via: 'api', groups: ['ops', 'finance'] },
    ],
    [
      'groups as a space-separated string',
      { sub: 'p3', groups: 'ops finance' },
      { groupsClaim: 'groups' },
      { kind: 'person', subject: 'p3', via: 'api', groups: ['ops', 'finance'] },
    ],
    [
      "groups as API Gateway's [a b] string",
      { sub: 'p4', 'cognito:groups': '[ops finance]' },
      {},
      { kind: 'person', subject: 'p4', via: 'api', groups: ['ops', 'finance'] },
    ],
    [
      'auth off is the anonymous person',
      { tenant: 'default' },
      { anonymous: true },
      { kind: 'person', subject: 'anonymous', via: 'api' },
    ],
  ])('%s', (_name, claims, options, expected) => {
    expect(principalOf(claims, options)).toEqual(expected);
  });
});

describe('scopesOf', () => {
  it.each([
    [{ scope: 'openid handback/decide' }, ['openid', 'handback/decide']],
    [{ scope: '' }, []],
    [{ sub: 'x' }, undefined],
  ])('reads %j as %j', (claims, scopes) => {
    expect(scopesOf(claims)).toEqual(scopes);
  });
});
