import type { Duration, RemovalPolicy, StackProps } from 'aws-cdk-lib';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { HandoffTargetProps } from './handoff.ts';

/**
 * Props of {@link HandbackStack}. Each one may instead come from the context key named in `infra/settings.ts`
 * (`handback:…`, in `cdk.json` or `-c`); a prop wins over its context key.
 */
export interface HandbackStackProps extends StackProps {
  /**
   * The JWT issuer the HTTP API trusts (`iss`), e.g. `https://cognito-idp.<region>.amazonaws.com/<pool id>`: an https
   * URL (API Gateway reads its `/.well-known/openid-configuration`); a documentation host (`issuer.example.com`, the
   * placeholder older `cdk.json` files carried) is refused.
   * @default - context `handback:jwtIssuer`; with neither, the stack creates a user pool (see `createUserPool`)
   */
  readonly jwtIssuer?: string;
  /**
   * The audiences the HTTP API accepts (`aud`, or `client_id` for access tokens).
   * @default - context `handback:jwtAudience` (a list, or comma-separated); required with an issuer
   */
  readonly jwtAudience?: string[];
  /**
   * The JWT claim that names the tenant.
   * @default 'tenant'
   */
  readonly tenantClaim?: string;
  /**
   * Where each successful resume's continuation pointer goes.
   * @default - `{ type: 'sqs' }`: a hand-off queue (and its dead-letter queue) the stack creates, so a pointer waits
   * durably for the next invocation
   */
  readonly handoff?: HandoffTargetProps;
  /**
   * How long every log group (functions, API access logs, workflows) keeps logs.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * A customer managed key for the table.
   * @default - an AWS owned key
   */
  readonly encryptionKey?: IKey;
  /**
   * The topic every alarm notifies.
   * @default - none: alarms show in the CloudWatch console only
   */
  readonly alarmTopic?: ITopic;
  /**
   * How long the reference workflow's pauses wait for an answer (the pause's `expiresInSeconds` and the waiting
   * step's timeout); at most 365 days.
   * @default `DEFAULT_PAUSE_EXPIRY` (`LIMITS.expiresInSeconds.default`)
   */
  readonly pauseExpiry?: Duration;
  /**
   * The `source` of the `Resume Requested` events the rule matches.
   * @default 'handback'
   */
  readonly eventSource?: string;
  /**
   * The agent the reference workflow runs (see `ApprovalWorkflowProps.agent` for its input and output).
   * @default - the example agent, `infra/example-agent/handler.ts`
   */
  readonly agent?: IFunction;
  /**
   * What happens to the table and the log groups when they leave the stack; the table keeps deletion protection
   * unless this is `DESTROY`.
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * How `Resume Requested` events reach a resume: `queue` buffers each event's `detail` in the resume queue for the
   * SQS handler (batched, redriven, throttle-proof); `function` deploys the EventBridge handler and has the rule invoke
   * it directly (asynchronously; failed invocations kept in a queue with their error).
   * @default 'queue'
   */
  readonly resumeRequestsVia?: 'queue' | 'function';
  /**
   * Create a Cognito user pool with its app clients (see `HandbackUserPool`) and trust them: the pool's issuer and the
   * clients' ids become the API's JWT issuer and audience, and its tokens carry the tenant in `tenantClaim`. Not with
   * `jwtIssuer` or `jwtAudience`; `false` needs them.
   * @default - context `handback:createUserPool`, else true unless an issuer is given: a first deploy needs no flags
   */
  readonly createUserPool?: boolean;
  /**
   * The EventBridge bus lifecycle events (`Pause Created`, …, source `handback`) go to.
   * @default - context `handback:eventBusName` (an existing bus, by name), else a bus the stack creates
   */
  readonly eventBus?: IEventBus;
  /**
   * An email address the `Pause Created` notification topic sends to (after the person confirms the subscription).
   * @default - context `handback:notifyEmail`, else no subscription
   */
  readonly notifyEmail?: string;
  /**
   * The inbox page's public URL, for answer links (`<inboxUrl>#<token>`), when it is served from elsewhere than the
   * HTTP API (a custom domain, a CDN).
   * @default - context `handback:inboxUrl`, else the HTTP API's own `/inbox`
   */
  readonly inboxUrl?: string;
}
