import { createDynamoDBDeliveryLog } from '../channels/delivery-log.ts';
import { config, dynamodb, logger, metrics, useCaseDepsWith } from './runtime-base.ts';
import { createSlackInteractionsHandler } from './slack-http.ts';
import { slackChannelOf, slackSettings } from './slack-secret.ts';

/**
 * The Lambda entry point of `POST /channels/slack/interactions` (§14): a click or a modal's submission, verified with
 * the signing secret of the app's secret (`SLACK_SECRET_ID`, read on first use), decided through the same use case
 * as every route (`decideTurn`, the clicker as `by`), and handed off when it closes the pause, as the API does. Its
 * store checks answers against their schemas (loaded on first use) and records no pauses. Most clicks close nothing
 * (a modal opened, a decision that leaves asks pending), so the hand-off target's client is loaded and made by the
 * first click that does: it imports `runtime-base.ts`, not `runtime.ts`, whose static import would read it at init.
 */
const useCases = useCaseDepsWith(
  { schemas: () => import('../checkpoints/json-schema/index.ts') },
  () => import('../handoff/target.ts'),
);
const log = createDynamoDBDeliveryLog({ client: dynamodb, tableName: config.tableName });
const slack = slackChannelOf(slackSettings(), { useCases, log });

export const handler = createSlackInteractionsHandler({ slack, useCases, logger, metrics });
