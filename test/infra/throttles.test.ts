import { describe, expect, it } from 'vitest';
import { isBearer, ROUTES, type RouteSpec } from '../../functions/handlers/routes.ts';
import {
  MAX_THROTTLE,
  resolveThrottles,
  routesOf,
  THROTTLE_DEFAULTS,
  THROTTLE_GROUPS,
  throttleGroupOf,
} from '../../infra/throttles.ts';

/** `handback:throttles` (§23): the route table's routes in groups, and the setting's value read over the defaults. */

const refuse = (problem: string) => new Error(problem);

describe('the throttle groups', () => {
  it('put every bearer route but MCP’s in bearer, with 1,000 requests/s and a burst of 1,000 each by default', () => {
    const bearer = ROUTES.filter((route) => isBearer(route) && route.served !== 'mcp');
    expect(bearer.length).toBeGreaterThan(5);
    expect(bearer.map(throttleGroupOf)).toEqual(bearer.map(() => 'bearer'));
    expect(THROTTLE_DEFAULTS.bearer).toMatchObject({ rate: 1_000, burst: 1_000 });
  });

  it.each([
    ['mcp', ['POST /mcp']],
    ['links', ['GET /links/pause', 'POST /links/resume']],
    ['slack', ['POST /channels/slack/interactions']],
    ['inbox', ['GET /inbox', 'GET /inbox/{file}']],
    ['probe', ['GET /health', 'GET /openapi.json']],
    ['unmatched', ['$default']],
  ] as const)('hold in %s exactly %j', (group, routes) => {
    expect(routesOf(group)).toEqual(routes);
  });

  it('hold every route of the table in exactly one group', () => {
    const grouped = THROTTLE_GROUPS.flatMap((group) => routesOf(group)).filter((key) => key !== '$default');
    expect(grouped.sort()).toEqual(ROUTES.map((route) => `${route.method} ${route.path}`).sort());
  });

  it('put a /scim route in scim whatever its access, so SCIM’s routes join it where they are declared', () => {
    const scim: RouteSpec[] = [
      { id: 'scimUsers', method: 'GET', path: '/scim/v2/Users', scopes: 'public' },
      { id: 'scimAny', method: 'POST', path: '/scim/v2/{proxy+}', scopes: ['handback/agent'] },
    ];
    expect(scim.map(throttleGroupOf)).toEqual(['scim', 'scim']);
    expect(routesOf('scim', [...ROUTES, ...scim])).toEqual(['GET /scim/v2/Users', 'POST /scim/v2/{proxy+}']);
  });

  it('give each unauthenticated group a budget below the bearer routes’', () => {
    for (const group of ['links', 'slack', 'scim', 'inbox', 'probe', 'unmatched'] as const) {
      expect(THROTTLE_DEFAULTS[group].rate, group).toBeLessThan(THROTTLE_DEFAULTS.bearer.rate);
      expect(THROTTLE_DEFAULTS[group].burst, group).toBeLessThan(THROTTLE_DEFAULTS.bearer.burst);
    }
  });
});

describe('resolveThrottles', () => {
  const defaults = (mcp: number) =>
    Object.fromEntries(
      THROTTLE_GROUPS.map((group) => [
        group,
        group === 'mcp'
          ? { rate: mcp, burst: mcp }
          : { rate: THROTTLE_DEFAULTS[group].rate, burst: THROTTLE_DEFAULTS[group].burst },
      ]),
    );

  it('gives every group its default when unset, the MCP group its reserved concurrency', () => {
    expect(resolveThrottles(undefined, 50, refuse)).toEqual(defaults(50));
    expect(resolveThrottles(undefined, 80, refuse)).toEqual(defaults(80));
  });

  it('keeps the MCP group’s own default when no concurrency is reserved', () => {
    expect(resolveThrottles(undefined, undefined, refuse).mcp).toEqual({ rate: 50, burst: 50 });
  });

  it('reads the JSON -c gives and the object cdk.json gives alike, a group left out keeping its default', () => {
    const value = { bearer: { rate: 2_500, burst: 5_000 }, links: { rate: 7.5, burst: 9 } };
    const expected = { ...defaults(50), bearer: { rate: 2_500, burst: 5_000 }, links: { rate: 7.5, burst: 9 } };
    expect(resolveThrottles(JSON.stringify(value), 50, refuse)).toEqual(expected);
    expect(resolveThrottles(value, 50, refuse)).toEqual(expected);
  });

  it('lets an operator set the MCP group apart from its concurrency', () => {
    expect(resolveThrottles({ mcp: { rate: 5, burst: 10 } }, 50, refuse).mcp).toEqual({ rate: 5, burst: 10 });
  });

  it('takes 0, which closes a group’s routes (429 for each request)', () => {
    expect(resolveThrottles({ scim: { rate: 0, burst: 0 } }, 50, refuse).scim).toEqual({ rate: 0, burst: 0 });
  });

  it.each([
    ['text that is not JSON', '{bearer: 1}', /^not JSON/],
    ['a group that does not exist', { bearers: { rate: 1, burst: 1 } }, /bearers/],
    ['a negative rate', { bearer: { rate: -1, burst: 1 } }, /^bearer\.rate: /],
    ['a burst that is not a whole number', { links: { rate: 1, burst: 1.5 } }, /^links\.burst: /],
    ['a rate past the bound', { slack: { rate: MAX_THROTTLE + 1, burst: 1 } }, /^slack\.rate: /],
    ['a budget without its burst', { mcp: { rate: 1 } }, /^mcp\.burst: /],
    ['a budget with a word of its own', { mcp: { rate: 1, burst: 1, limit: 2 } }, /limit/],
    ['a number instead of budgets', 1000, /expected object/],
  ])('refuses %s, naming it', (_, value, message) => {
    expect(() => resolveThrottles(value, 50, refuse)).toThrow(message);
  });
});
