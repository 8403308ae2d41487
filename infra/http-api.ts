import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
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

/** Why an answer-link route (§11) has no JWT authorizer. */
const ANSWER_LINK_ROUTE =
  'an answer-link route: the handler verifies the signed link token of the x-handback-link header (HMAC-SHA256, one pause of one tenant, until it closes) and answers 401 or 410 without it; a person with a link has no bearer token';

/**
 * The routes of CONTRACT §5, §9–§12: those that need a bearer token, and those that must not have the authorizer,
 * each with why it is safe without one.
 */
export const ROUTES = {
  authorized: [
    { method: HttpMethod.POST, path: '/runs/{runId}/pauses' },
    { method: HttpMethod.GET, path: '/runs/{runId}/pauses/{interruptId}' },
    { method: HttpMethod.POST, path: '/runs/{runId}/pauses/{interruptId}/cancel' },
    { method: HttpMethod.POST, path: '/runs/{runId}/resume' },
    { method: HttpMethod.GET, path: '/runs/{runId}/continuations/{continuationId}' },
    { method: HttpMethod.GET, path: '/pauses' },
  ],
  public: [
    { method: HttpMethod.GET, path: '/health', why: 'a liveness probe; it returns no data' },
    { method: HttpMethod.GET, path: '/openapi.json', why: 'the API description; it returns no data' },
    {
      method: HttpMethod.GET,
      path: '/inbox',
      why: 'the inbox page itself (static, built with the project); its data calls carry a bearer token or an answer link',
    },
    { method: HttpMethod.GET, path: '/inbox/{file}', why: "the inbox page's static files; they hold no data" },
    {
      method: HttpMethod.GET,
      path: '/links/pause',
      why: ANSWER_LINK_ROUTE,
    },
    {
      method: HttpMethod.POST,
      path: '/links/resume',
      why: ANSWER_LINK_ROUTE,
    },
  ],
} as const;

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
  /** The JWT issuer URL the authorizer trusts (`iss`); its `/.well-known/openid-configuration` must be reachable. */
  readonly jwtIssuer: string;
  /** The accepted audiences (`aud`, or `client_id` for access tokens without `aud`). */
  readonly jwtAudience: string[];
  /**
   * Steady-state requests per second across the stage.
   * @default 50
   */
  readonly throttleRateLimit?: number;
  /**
   * Burst of requests across the stage.
   * @default 100
   */
  readonly throttleBurstLimit?: number;
  /**
   * How long access logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the access log group when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * The HTTP API of CONTRACT §5, §9–§12: every route on the API handler (the inbox page's on its own handler when
 * given), a JWT authorizer on all but the public
 * routes (`/health`, `/openapi.json`, the inbox page and the answer-link routes, which verify their own signed token),
 * a `$default` stage with throttling and JSON access logs.
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

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.throttleRateLimit ?? 50, burstLimit: props.throttleBurstLimit ?? 100 },
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
    for (const route of ROUTES.authorized) {
      this.api.addRoutes({ path: route.path, methods: [route.method], integration, authorizer });
    }
    const inboxIntegration =
      props.inboxHandler === undefined ? integration : new HttpLambdaIntegration('Inbox', props.inboxHandler);
    for (const route of ROUTES.public) {
      const [created] = this.api.addRoutes({
        path: route.path,
        methods: [route.method],
        integration: route.path.startsWith('/inbox') ? inboxIntegration : integration,
        authorizer: new HttpNoneAuthorizer(),
      });
      if (created) {
        Validations.of(created).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason: `${route.method} ${route.path} is public by contract: ${route.why}.`,
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
    Validations.of(fallback).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'The $default route only receives requests that match no route of the API; the handler answers them 404 or 405 and reads no data without the authorizer claims (401).',
    });
  }
}
