import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { SlackSecretUnavailableError } from '../channels/slack-secret.ts';
import { LIMITS } from '../vocabulary.ts';
import type { SlackInteractions } from './http-api.ts';
import { type EntryTelemetry, withTelemetry } from './telemetry.ts';

/**
 * `POST /channels/slack/interactions` on a function of its own (§14): API Gateway's payload 2.0 in, the Slack channel's
 * answer out. No authorizer stands in front of it; the channel verifies Slack's signature over the raw body before it
 * reads anything. Everything it needs (the store, the decision use case, Slack's Web API by `fetch`, the app's secret)
 * and nothing of the API function's router, so a cold start stays well inside Slack's 3 s (bench/REPORT.md measures
 * it). A body past the route table's limit is 413 before it is read; a secret that cannot be read is 503 (Slack tells
 * the person the click failed, and nothing was recorded).
 */

/** What the Slack interactions function runs on; `slack` is made on first use, once the app's secret is read. */
export interface SlackHttpDeps extends EntryTelemetry {
  slack: () => Promise<SlackInteractions>;
  /** The use cases the channel renders with: without an `inboxUrl`, the request's own host's `/inbox`, as the API. */
  useCases: { inboxUrl?: string };
}

type Result = APIGatewayProxyStructuredResultV2;

function json(statusCode: number, body: object, headers: Record<string, string> = {}): Result {
  return { statusCode, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** The handler of Slack's interactions route. */
export function createSlackInteractionsHandler(deps: SlackHttpDeps) {
  const handle = async (event: APIGatewayProxyEventV2): Promise<Result> => {
    const sent = event.body ?? '';
    const raw = event.isBase64Encoded ? Buffer.from(sent, 'base64').toString('utf8') : sent;
    if (Buffer.byteLength(raw) > LIMITS.decisionBodyBytes) {
      return json(413, { error: `The body is over ${LIMITS.decisionBodyBytes} bytes.` });
    }
    deps.useCases.inboxUrl ??= `https://${event.requestContext.domainName}/inbox`;
    try {
      const slack = await deps.slack();
      const answer = await slack.interactions({ headers: event.headers ?? {}, body: raw });
      return answer.body === undefined ? { statusCode: answer.status, body: '' } : json(answer.status, answer.body);
    } catch (error) {
      if (error instanceof SlackSecretUnavailableError) {
        deps.logger.warn('Slack interaction refused: the app secret is unavailable', { error: error.message });
        return json(
          503,
          { error: 'Slack is not available just now: nothing was recorded.' },
          { 'retry-after': String(Math.max(1, Math.ceil(error.retryInMs / 1000))) },
        );
      }
      // Slack shows the person an error; what failed is in the log, never in the answer.
      deps.logger.error('Slack interaction failed', { error });
      return json(500, { error: 'Something went wrong: nothing may have been recorded; try the inbox.' });
    }
  };
  return withTelemetry(deps, handle);
}
