import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  SLACK_USERS,
  type SlackCallRecord,
  STAND_IN_APP,
  STAND_IN_DEFAULT_PORT,
  startSlackStandIn,
} from '../test/channels/slack-stand-in.ts';

/**
 * `npm run slack:stand-in [-- --port <port>]`: Slack's Web API on this machine, to try the Slack channel with
 * `npm start` and no workspace. It is the tests' stand-in (`test/channels/slack-stand-in.ts`): it answers each method
 * as Slack documents it, reads arguments as Slack does (a read method sent JSON sees none), and prints every call the
 * service makes. `npm run slack:click -- <pause> approve` then clicks a button of a posted message as a workspace
 * member would, signed with the app's signing secret as Slack signs it. Port: `--port`, else `SLACK_STAND_IN_PORT`,
 * else 3101 (0 for any free one). Stops on Ctrl-C or SIGTERM.
 */

/** One line for a recorded call: the method, where it went, what it said, and Slack's answer when it refused. */
export function describeCall(call: SlackCallRecord): string {
  const { body, answer } = call;
  const parts = [call.method];
  if (typeof body.channel === 'string') parts.push(body.channel);
  if (typeof body.user === 'string') parts.push(`user ${body.user}`);
  if (typeof body.ts === 'string') parts.push(`ts ${body.ts}`);
  if (typeof body.thread_ts === 'string') parts.push(`thread ${body.thread_ts}`);
  if (typeof body.text === 'string') parts.push(JSON.stringify(body.text));
  const view = body.view as { callback_id?: string } | undefined;
  if (view?.callback_id !== undefined) parts.push(`modal ${view.callback_id}`);
  if (answer.ok !== true) parts.push(`→ ${String(answer.error)}`);
  else if (call.method === 'chat.postMessage') parts.push(`→ ts ${String(answer.ts)}`);
  return parts.join(' ');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string' }, host: { type: 'string' } } });
  const port = Number(values.port ?? process.env.SLACK_STAND_IN_PORT ?? STAND_IN_DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`--port must be a port number (0 for any free one), not "${values.port}".`);
  }
  const standIn = await startSlackStandIn(STAND_IN_APP.teamId, {
    port,
    host: values.host ?? '127.0.0.1',
    onCall: (call) => console.log(describeCall(call)),
  });
  const env = [
    `HANDBACK_SLACK_API_URL=${standIn.url}`,
    `HANDBACK_SLACK_BOT_TOKEN=${STAND_IN_APP.botToken}`,
    `HANDBACK_SLACK_SIGNING_SECRET=${STAND_IN_APP.signingSecret}`,
    `HANDBACK_SLACK_CHANNEL=${STAND_IN_APP.channel}`,
  ].join(' ');
  const users = Object.entries(SLACK_USERS)
    .map(([id, user]) => `${id} (${user.real_name})`)
    .join(', ');
  console.log(
    [
      `Slack stand-in for workspace ${STAND_IN_APP.teamId} at ${standIn.url}`,
      'Start Handback against it in another terminal:',
      `  ${env} npm start`,
      `Then pause (its message goes to ${STAND_IN_APP.channel} unless notify names another channel), and click:`,
      `  ${port === STAND_IN_DEFAULT_PORT ? '' : `SLACK_STAND_IN_URL=${standIn.url} `}npm run slack:click -- <pause> approve`,
      `Workspace members: ${users}. Every call Handback makes is printed here.`,
    ].join('\n'),
  );
  const stop = (signal: string) => {
    console.log(`Slack stand-in stopping (${signal})`);
    void standIn.close().then(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
