import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  type IHttpRouteAuthorizer,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { isBearer, ROUTES as TABLE } from '../functions/handlers/routes.ts';
import { SCIM_ROUTE, THROTTLE_DEFAULTS, type Throttle, type ThrottleGroup, throttleGroupOf } from './throttles.ts';

/**
 * The routes of §5, §9–§14, read from the one route table (`functions/handlers/routes.ts`): those that need a bearer
 * token, with the scopes that open each, and those that must not have the authorizer, each with why it is safe
 * without one.
 */
export const ROUTES = {
  authorized: TABLE.filter(isBearer).map((route) => ({
    method: HttpMethod[route.method],
    path: route.path,
    scopes: [...route.scopes],
    served: 'served' in route ? route.served : 'api',
  })),
  public: TABLE.filter((route) => !isBearer(route)).map((route) => ({
    method: HttpMethod[route.method],
    path: route.path,
    why: 'why' in route ? route.why : '',
    served: 'served' in route ? route.served : 'api',
    access: route.scopes,
  })),
};

/** Props of {@link HandbackHttpApi}. */
export interface HandbackHttpApiProps {
  /** The API handler (payload format 2.0). */
  readonly handler: IFunction;
  /**
   * The inbox page's handler (payload format 2.0), for `GET /inbox` and `GET /inbox/{file}`: a function of its own,
   * so the page's files stay out of the API function's bundle.
   * @default - the API handler serves those routes too
   */
  readonly inboxHandler?: IFunction;
  /**
   * The Slack interactions function (payload format 2.0), for the route the table marks `slack`: a small function of
   * its own, so a click is answered within Slack's 3 s on a cold start.
   * @default - the API handler serves that route (and answers 404 while Slack is not configured)
   */
  readonly slackHandler?: IFunction;
  /**
   * The MCP server's function (payload format 2.0), for the route the table marks `served: 'mcp'` (§18): a function of
   * its own, so the API function's cold start does not carry the MCP SDK.
   * @default - the API handler serves that route (and answers 404 while it has no MCP handler)
   */
  readonly mcpHandler?: IFunction;
  /**
   * Serve SCIM (§20) at `ANY /scim/v2/{proxy+}` on the API handler, without the authorizer: SCIM's requests carry its
   * own secret, which the handler checks, not a user's token; throttled as the `scim` group.
   * @default false
   */
  readonly scim?: boolean;
  /** The JWT issuer URL the authorizer trusts (`iss`); its `/.well-known/openid-configuration` must be reachable. */
  readonly jwtIssuer: string;
  /** The accepted audiences (`aud`, or `client_id` for access tokens without `aud`). */
  readonly jwtAudience: string[];
  /**
   * Give every bearer route the `AuthorizationScopes` of the route table (§13): a token must then carry one of the
   * route's scopes, and a token without a `scope` claim is refused (403).
   * @default false
   */
  readonly requireScopes?: boolean;
  /**
   * Each group of routes' throttle (`infra/throttles.ts`), applied to each of its routes; a group not given keeps its
   * default. The stack passes `handback:throttles`.
   * @default THROTTLE_DEFAULTS
   */
  readonly throttles?: Partial<Record<ThrottleGroup, Throttle>>;
  /**
   * How long access logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the access log group when the stack is deleted.
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * The HTTP API of §5, §9–§14: every route of the route table on the API handler (the inbox page's on its own handler
 * when given), a JWT authorizer on every bearer route (with its scopes when `requireScopes`) and none on the others
 * (`/health`, `/openapi.json`, the inbox page, the answer-link and Slack routes, which verify their own signatures, and
 * SCIM's when `scim`, which checks its own secret),
 * a `$default` stage with JSON access logs, and throttles route by route, by their groups (`infra/throttles.ts`): the
 * bearer routes' as the stage's default, every other group's as route settings.
 */
export class HandbackHttpApi extends Construct {
  /** The API. */
  readonly api: HttpApi;
  /** Its `$default` stage. */
  readonly stage: HttpStage;

  constructor(scope: Construct, id: string, props: HandbackHttpApiProps) {
    super(scope, id);
    // The stage is made below, not by HttpApi, because only an explicit stage takes throttling and access logs.
    this.api = new HttpApi(this, 'Api', {
      createDefaultStage: false,
      description: 'Handback: pause and resume agent turns',
    });

    const throttles: Record<ThrottleGroup, Throttle> = { ...THROTTLE_DEFAULTS, ...props.throttles };
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: throttles.bearer.rate, burstLimit: throttles.bearer.burst },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // One JSON line per request, with why it failed when it did; no claims or bodies (they may name a person).
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            routeKey: '$context.routeKey',
            status: '$context.status',
            protocol: '$context.protocol',
            responseLength: '$context.responseLength',
            latency: '$context.responseLatency',
            integrationError: '$context.integrationErrorMessage',
            authorizerError: '$context.authorizer.error',
          }),
        ),
      },
    });

    const integration = new HttpLambdaIntegration('Handler', props.handler);
    const authorizer: IHttpRouteAuthorizer = new HttpJwtAuthorizer('Jwt', props.jwtIssuer, {
      jwtAudience: props.jwtAudience,
    });
    const mcpIntegration =
      props.mcpHandler === undefined ? integration : new HttpLambdaIntegration('Mcp', props.mcpHandler);
    for (const route of ROUTES.authorized) {
      this.api.addRoutes({
        path: route.path,
        methods: [route.method],
        integration: route.served === 'mcp' ? mcpIntegration : integration,
        authorizer,
        ...(props.requireScopes ? { authorizationScopes: route.scopes } : {}),
      });
    }
    const inboxIntegration =
      props.inboxHandler === undefined ? integration : new HttpLambdaIntegration('Inbox', props.inboxHandler);
    const slackIntegration =
      props.slackHandler === undefined ? integration : new HttpLambdaIntegration('Slack', props.slackHandler);
    for (const route of ROUTES.public) {
      const [created] = this.api.addRoutes({
        path: route.path,
        methods: [route.method],
        integration:
          route.served === 'inbox' ? inboxIntegration : route.access === 'slack' ? slackIntegration : integration,
        authorizer: new HttpNoneAuthorizer(),
      });
      if (created) {
        Validations.of(created).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason: `${route.method} ${route.path} is public by contract: ${route.why}.`,
        });
      }
    }
    if (props.scim) {
      const [scimRoute] = this.api.addRoutes({
        path: SCIM_ROUTE.path,
        methods: [HttpMethod[SCIM_ROUTE.method]],
        integration,
        authorizer: new HttpNoneAuthorizer(),
      });
      if (scimRoute) {
        Validations.of(scimRoute).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason:
            "SCIM's requests carry the SCIM secret as their bearer token, not a user's JWT: the handler compares it with the secret in Secrets Manager and answers 401 without it, before reading anything.",
        });
      }
    }
    // Every other request reaches the handler too, so an unknown path or method is answered as the contract says
    // (404 not_found, 405 method_not_allowed with Allow, as problem+json), not with API Gateway's own body.
    const fallback = new HttpRoute(this, 'DefaultRoute', {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration,
      authorizer: new HttpNoneAuthorizer(),
    });
    // Each route outside the bearer group its group's budget (route settings name routes by their route keys).
    const routeSettings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};
    const setting = (throttle: Throttle) => ({
      ThrottlingRateLimit: throttle.rate,
      ThrottlingBurstLimit: throttle.burst,
    });
    for (const route of TABLE) {
      const group = throttleGroupOf(route);
      if (group !== 'bearer') routeSettings[`${route.method} ${route.path}`] = setting(throttles[group]);
    }
    if (props.scim) routeSettings[`${SCIM_ROUTE.method} ${SCIM_ROUTE.path}`] = setting(throttles.scim);
    routeSettings[HttpRouteKey.DEFAULT.key] = setting(throttles.unmatched);
    const cfnStage = this.stage.node.defaultChild as CfnStage;
    cfnStage.routeSettings = routeSettings;
    // A route setting may name only a route that exists: the stage waits for the routes.
    for (const child of this.api.node.children) if (child instanceof HttpRoute) this.stage.node.addDependency(child);
    this.stage.node.addDependency(fallback);
    Validations.of(fallback).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'The $default route only receives requests that match no route of the API; the handler answers them 404 or 405 and reads no data without the authorizer claims (401).',
    });
  }
}
