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
    [
      'an scp list (Okta) scoped to the agent is an agent',
      { sub: 'c2', scp: ['handback/agent'] },
      {},
      { kind: 'agent', subject: 'c2', via: 'api', groups: [] },
    ],
    [
      "an scp string, as API Gateway's [a b], scoped to the agent is an agent",
      { sub: 'c3', scp: '[handback/agent openid]' },
      {},
      { kind: 'agent', subject: 'c3', via: 'api', groups: [] },
    ],
    [
      'scope and scp together open what either holds',
      { sub: 'p5', scope: 'openid', scp: 'handback/agent handback/decide' },
      {},
      { kind: 'person', subject: 'p5', via: 'api', groups: [] },
    ],
    [
      'email_verified true verifies the email',
      { sub: 'p6', email: 'ann@example.com', email_verified: true },
      {},
      { kind: 'person', subject: 'p6', email: 'ann@example.com', emailVerified: true, via: 'api', groups: [] },
    ],
    [
      'email_verified "true" (as API Gateway passes it) verifies the email',
      { sub: 'p7', email: 'ann@example.com', email_verified: 'true' },
      {},
      { kind: 'person', subject: 'p7', email: 'ann@example.com', emailVerified: true, via: 'api', groups: [] },
    ],
    [
      'email_verified false leaves the email a label',
      { sub: 'p8', email: 'ann@example.com', email_verified: false },
      {},
      { kind: 'person', subject: 'p8', email: 'ann@example.com', via: 'api', groups: [] },
    ],
    [
      'email_verified "false" leaves the email a label',
      { sub: 'p8', email: 'ann@example.com', email_verified: 'false' },
      {},
      { kind: 'person', subject: 'p8', email: 'ann@example.com', via: 'api', groups: [] },
    ],
    [
      "an access token of the stack's own pool carries only verified emails",
      { sub: 'p9', email: 'ann@example.com', iss: 'https://pool.example', token_use: 'access' },
      { verifiedEmailIssuer: 'https://pool.example' },
      { kind: 'person', subject: 'p9', email: 'ann@example.com', emailVerified: true, via: 'api', groups: [] },
    ],
    [
      "another issuer's access token does not vouch for its email",
      { sub: 'p9', email: 'ann@example.com', iss: 'https://other.example', token_use: 'access' },
      { verifiedEmailIssuer: 'https://pool.example' },
      { kind: 'person', subject: 'p9', email: 'ann@example.com', via: 'api', groups: [] },
    ],
    [
      'a groups string is split on spaces only: a comma is part of a name',
      { sub: 'p10', 'cognito:groups': 'CN=finance,OU=x ops' },
      {},
      { kind: 'person', subject: 'p10', via: 'api', groups: ['CN=finance,OU=x', 'ops'] },
    ],
    [
      'a token with act (RFC 8693) is its actor, an agent, on behalf of its sub (§20)',
      {
        sub: 'u-ann',
        email: 'ann@example.com',
        email_verified: true,
        name: 'Ann',
        act: { sub: 'agent-7' },
        scope: 'handback/agent handback/decide',
      },
      {},
      {
        kind: 'agent',
        subject: 'agent-7',
        via: 'api',
        groups: [],
        onBehalfOf: {
          kind: 'person',
          subject: 'u-ann',
          email: 'ann@example.com',
          emailVerified: true,
          name: 'Ann',
          via: 'api',
        },
      },
    ],
    [
      'an act claim given as JSON text names its actor too',
      { sub: 'u-ann', act: '{"sub":"agent-7","act":{"sub":"earlier"}}' },
      {},
      {
        kind: 'agent',
        subject: 'agent-7',
        via: 'api',
        groups: [],
        onBehalfOf: { kind: 'person', subject: 'u-ann', via: 'api' },
      },
    ],
    [
      "an act claim as API Gateway's map[…] text, with earlier actors nested, names its actor",
      { sub: 'u-ann', act: 'map[act:map[sub:earlier] sub:agent-7]' },
      {},
      {
        kind: 'agent',
        subject: 'agent-7',
        via: 'api',
        groups: [],
        onBehalfOf: { kind: 'person', subject: 'u-ann', via: 'api' },
      },
    ],
  ])('%s', (_name, claims, options, expected) => {
    expect(principalOf(claims, options)).toEqual(expected);
  });

  it.each([
    ['an act without sub', { sub: 'u-ann', act: {} }],
    ['a map[…] act whose only sub is an earlier actor’s', { sub: 'u-ann', act: 'map[act:map[sub:earlier]]' }],
    ['an act that is not an object', { sub: 'u-ann', act: 'agent-7' }],
  ])('answers 401 for %s: someone acts, but no one is named', (_what, claims) => {
    expect(() => principalOf(claims)).toThrow(/act claim that names no actor/);
  });
});

describe('a token that names no one', () => {
  it.each([
    ['no sub', { tenant: 'acme' }],
    ['an empty sub', { sub: '' }],
    ['a number as sub', { sub: 42 }],
    ['a list as sub', { sub: ['a'] }],
  ])('is 401 with %s, never a shared subject', (_name, claims) => {
    expect(() => principalOf(claims)).toThrow(expect.objectContaining({ status: 401, code: 'unauthorized' }));
  });
});

describe('scopesOf', () => {
  it.each([
    [{ scope: 'openid handback/decide' }, ['openid', 'handback/decide']],
    [{ scope: '' }, []],
    [{ sub: 'x' }, undefined],
    [{ scp: ['handback/decide'] }, ['handback/decide']],
    [{ scp: 'handback/agent openid' }, ['handback/agent', 'openid']],
  ])('reads %j as %j', (claims, scopes) => {
    expect(scopesOf(claims)).toEqual(scopes);
  });
});
