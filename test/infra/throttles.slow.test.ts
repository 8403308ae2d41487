import { App, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { CONTEXT, ConfigurationError, resolveSettings } from '../../infra/settings.ts';
import { routesOf, THROTTLE_DEFAULTS, THROTTLE_GROUPS, type ThrottleGroup } from '../../infra/throttles.ts';
import { defaultSynth, synthesize } from './synth.ts';

/**
 * Throughput the operator sets (§23), as the template holds it: each group of routes' throttle from
 * `handback:throttles` (the bearer routes' as the stage's default, every other group's as route settings), and the
 * MCP function's reserved concurrency from `handback:mcpConcurrency`.
 */

const { template } = defaultSynth();
const SET = {
  [CONTEXT.throttles]: JSON.stringify({ bearer: { rate: 2_500, burst: 5_000 }, links: { rate: 7, burst: 9 } }),
  [CONTEXT.mcpConcurrency]: '80',
};
const configured = synthesize({}, { bundle: false, context: SET }).template;
const unreserved = synthesize({}, { bundle: false, context: { [CONTEXT.mcpConcurrency]: 'none' } }).template;

type Setting = { ThrottlingRateLimit: number; ThrottlingBurstLimit: number };

/** The one stage's properties. */
function stage(of: Template) {
  const stages = Object.values(of.findResources('AWS::ApiGatewayV2::Stage'));
  expect(stages).toHaveLength(1);
  return (stages[0] as { Properties: { DefaultRouteSettings: Setting; RouteSettings: Record<string, Setting> } })
    .Properties;
}

const budget = (rate: number, burst: number): Setting => ({ ThrottlingRateLimit: rate, ThrottlingBurstLimit: burst });

/** The MCP function's and every other function's reserved concurrency, by logical id. */
function reserved(of: Template): Record<string, number | undefined> {
  return Object.fromEntries(
    Object.entries(of.findResources('AWS::Lambda::Function')).map(([id, fn]) => [
      id,
      (fn.Properties as { ReservedConcurrentExecutions?: number }).ReservedConcurrentExecutions,
    ]),
  );
}

describe('the HTTP API’s throttles by default', () => {
  it('give each bearer route 1,000 requests/s and a burst of 1,000: the stage’s default', () => {
    expect(stage(template).DefaultRouteSettings).toEqual(budget(1_000, 1_000));
  });

  it.each(
    THROTTLE_GROUPS.filter(
      (group): group is Exclude<ThrottleGroup, 'bearer' | 'mcp'> => group !== 'bearer' && group !== 'mcp',
    ),
  )('give each route of %s its group’s default, as a route setting', (group) => {
    const { rate, burst } = THROTTLE_DEFAULTS[group];
    const settings = stage(template).RouteSettings;
    for (const key of routesOf(group)) expect(settings[key], key).toEqual(budget(rate, burst));
  });

  it('give the MCP route a burst no larger than the function’s 50 reserved instances', () => {
    expect(stage(template).RouteSettings['POST /mcp']).toEqual(budget(50, 50));
  });

  it('set no route setting on a bearer route, which keeps the stage’s default', () => {
    const settings = stage(template).RouteSettings;
    expect(routesOf('bearer').filter((key) => key in settings)).toEqual([]);
  });

  it('make the stage after every route its settings name', () => {
    const stages = Object.values(template.findResources('AWS::ApiGatewayV2::Stage')) as Array<{ DependsOn?: string[] }>;
    const routes = Object.keys(template.findResources('AWS::ApiGatewayV2::Route'));
    expect(stages[0]?.DependsOn).toEqual(expect.arrayContaining(routes));
  });
});

describe('the HTTP API’s throttles from handback:throttles', () => {
  it('take the bearer group’s budget as the stage’s default', () => {
    expect(stage(configured).DefaultRouteSettings).toEqual(budget(2_500, 5_000));
  });

  it('take a group’s budget on each of its routes', () => {
    const settings = stage(configured).RouteSettings;
    for (const key of routesOf('links')) expect(settings[key], key).toEqual(budget(7, 9));
  });

  it('leave the groups the setting does not name at their defaults', () => {
    const settings = stage(configured).RouteSettings;
    expect(settings['POST /channels/slack/interactions']).toEqual(budget(100, 200));
    expect(settings.$default).toEqual(budget(5, 10));
  });
});

describe('the MCP function’s reserved concurrency', () => {
  const mcpId = (of: Template) => {
    const ids = Object.keys(reserved(of)).filter((id) => id.startsWith('McpHandler'));
    expect(ids).toHaveLength(1);
    return ids[0] as string;
  };

  it('is 50 by default, and no other function reserves any', () => {
    const all = reserved(template);
    expect(all[mcpId(template)]).toBe(50);
    expect(Object.entries(all).filter(([id, value]) => id !== mcpId(template) && value !== undefined)).toEqual([]);
  });

  it('is what handback:mcpConcurrency says, and the MCP route’s default budget follows it', () => {
    expect(reserved(configured)[mcpId(configured)]).toBe(80);
    expect(stage(configured).RouteSettings['POST /mcp']).toEqual(budget(80, 80));
  });

  it('is none with handback:mcpConcurrency=none: the function shares the account’s unreserved pool', () => {
    expect(reserved(unreserved)[mcpId(unreserved)]).toBeUndefined();
    expect(stage(unreserved).RouteSettings['POST /mcp']).toEqual(budget(50, 50));
  });
});

describe('a setting that cannot work', () => {
  const settingsWith = (context: Record<string, unknown>) =>
    resolveSettings(new Stack(new App({ context }), 'Settings'), {
      jwtIssuer: 'https://issuer.test/',
      jwtAudience: ['handback-test'],
    });

  it.each([
    [CONTEXT.throttles, '{"bearer": 1000', /^Context handback:throttles: not JSON/],
    [CONTEXT.throttles, '{"bearers": {"rate": 1, "burst": 1}}', /^Context handback:throttles: .*"bearers"/],
    [CONTEXT.throttles, '{"links": {"rate": -1, "burst": 1}}', /^Context handback:throttles: links\.rate: /],
    [CONTEXT.mcpConcurrency, '0', /^Context handback:mcpConcurrency must be a positive integer .* or none, not 0/],
    [CONTEXT.mcpConcurrency, 'fifty', /^Context handback:mcpConcurrency must be .* not fifty/],
  ])('refuses synthesis with %s=%s, naming it', (key, value, message) => {
    expect(() => settingsWith({ [key]: value })).toThrow(ConfigurationError);
    expect(() => settingsWith({ [key]: value })).toThrow(message);
  });

  it('takes the budgets as an object, as cdk.json may hold them', () => {
    expect(settingsWith({ [CONTEXT.throttles]: { scim: { rate: 1, burst: 2 } } }).throttles.scim).toEqual({
      rate: 1,
      burst: 2,
    });
  });
});
