import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { SlackInteractions } from '../channels/slack-clicks.ts';
import { SlackSecretUnavailableError } from '../channels/slack-secret.ts';
import { LIMITS } from '../vocabulary.ts';
import { EdgeCode, HttpProblem, problemResponse } from './problem.ts';
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

function json(statusCode: number, body: object): Result {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** The handler of Slack's interactions route; every refusal and failure is a problem (§5), as on the API. */
export function createSlackInteractionsHandler(deps: SlackHttpDeps) {
  const handle = async (event: APIGatewayProxyEventV2): Promise<Result> => {
    const requestId = event.requestContext.requestId;
    const sent = event.body ?? '';
    const raw = event.isBase64Encoded ? Buffer.from(sent, 'base64').toString('utf8') : sent;
    if (Buffer.byteLength(raw) > LIMITS.decisionBodyBytes) {
      const detail = `The body is over ${LIMITS.decisionBodyBytes} bytes.`;
      return problemResponse(new HttpProblem(413, EdgeCode.PayloadTooLarge, detail), requestId);
    }
    deps.useCases.inboxUrl ??= `https://${event.requestContext.domainName}/inbox`;
    try {
      const slack = await deps.slack();
      const answer = await slack.interactions({ headers: event.headers ?? {}, body: raw });
      if ('problem' in answer) {
        const { code, detail } = answer.problem;
        return problemResponse(new HttpProblem(answer.status, code, detail), requestId);
      }
      return answer.body === undefined ? { statusCode: answer.status, body: '' } : json(answer.status, answer.body);
    } catch (error) {
      if (error instanceof SlackSecretUnavailableError) {
        deps.logger.warn('Slack interaction refused: the app secret is unavailable', { error: error.message });
        const retry = { 'Retry-After': String(Math.max(1, Math.ceil(error.retryInMs / 1000))) };
        const detail = 'Slack is not available just now: nothing was recorded.';
        return problemResponse(new HttpProblem(503, EdgeCode.ChannelUnavailable, detail, retry), requestId);
      }
      // Slack shows the person an error; what failed is in the log, never in the answer.
      deps.logger.error('Slack interaction failed', { error });
      return problemResponse(error, requestId);
    }
  };
  return withTelemetry(deps, handle);
}
