import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../infra/http-api.ts';
import { synthesize } from './synth.ts';

const { template, violations } = synthesize({}, { bundle: false, context: { 'handback:requireScopes': 'true' } });
const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
  (route) => route.Properties as { RouteKey: string; AuthorizationScopes?: string[] },
);

describe('the stack with handback:requireScopes=true', () => {
  it.each(ROUTES.authorized.map((route) => [`${route.method} ${route.path}`, route.scopes] as const))(
    'gives %s the AuthorizationScopes %j of the route table',
    (routeKey, scopes) => {
      expect(routes.find((route) => route.RouteKey === routeKey)?.AuthorizationScopes).toEqual(scopes);
    },
  );

  it('stays clean under cdk-nag', () => {
    expect(violations).toEqual([]);
  });
});
