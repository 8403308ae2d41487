import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { slackSignature } from '../functions/channels/slack-api.ts';
import {
  type SlackCallRecord,
  STAND_IN_APP,
  STAND_IN_DEFAULT_PORT,
  STAND_IN_RECORD_PATH,
} from '../test/channels/slack-stand-in.ts';

/**
 * `npm run slack:click -- <pause> <approve|edit|reject|answer|choose> [text] [--ask <n>] [--user <id>]`: clicks a
 * button of the message `npm start` posted for a pause to `npm run slack:stand-in`, as a workspace member clicks it in
 * Slack: the button's own action id, block id and value from the message as it is now (its last `chat.update`), in a
 * `block_actions` payload signed with the app's signing secret, POSTed to the service's
 * `/channels/slack/interactions`. Edit…, Reject… and Answer… open a modal there (`views.open`); the script then submits
 * it with `text` (the edited arguments as JSON, the reason, the answer) as a `view_submission`. It prints what the
 * service answered and what it then told Slack (an ephemeral refusal, the updated message), and exits 1 when nothing
 * was recorded.
 *
 * `<pause>` is the pause's `interruptId` (or its run id: the latest message of that run). `--user` is the clicker
 * (default `U0ALICE01`, Alice; the stand-in also knows `U0BOB0002`, Bob — any other is a user Slack cannot describe).
 * Where: `SLACK_STAND_IN_URL` (default the stand-in's default, `http://127.0.0.1:3101/`), `HANDBACK_URL` (default
 * `http://127.0.0.1:${PORT:-3000}`), `HANDBACK_SLACK_SIGNING_SECRET` (default the stand-in app's).
 */

/** Why a click could not be made or was not recorded, as the lines the script prints. */
export class ClickError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClickError';
  }
}

const USAGE =
  'usage: npm run slack:click -- <pause> <approve|edit|reject|answer|choose> [text] [--ask <n>] [--user <id>]';

/** The button each action presses: its action id (enum buttons carry their index after a colon). */
const ACTION_IDS: Record<string, string> = {
  approve: 'handback.approve',
  edit: 'handback.edit',
  reject: 'handback.reject',
  answer: 'handback.answer',
  choose: 'handback.choose',
};

interface Button {
  type: string;
  action_id: string;
  value?: string;
  text?: { text?: string };
}
interface Block {
  type: string;
  block_id?: string;
  text?: { text?: string };
  elements?: Button[];
  element?: { action_id?: string; initial_value?: string };
}
interface View {
  id?: string;
  callback_id?: string;
  private_metadata?: string;
  blocks?: Block[];
}

/** Where the script finds the stand-in and the service, and what it signs with. */
export interface ClickPlaces {
  standInUrl: string;
  serviceUrl: string;
  signingSecret: string;
}

export function clickPlaces(env: NodeJS.ProcessEnv): ClickPlaces {
  return {
    standInUrl: env.SLACK_STAND_IN_URL || `http://127.0.0.1:${STAND_IN_DEFAULT_PORT}/`,
    serviceUrl: (env.HANDBACK_URL || `http://127.0.0.1:${env.PORT || 3000}`).replace(/\/+$/, ''),
    signingSecret: env.HANDBACK_SLACK_SIGNING_SECRET || STAND_IN_APP.signingSecret,
  };
}

async function record(places: ClickPlaces): Promise<{ teamId: string; calls: SlackCallRecord[] }> {
  const url = new URL(STAND_IN_RECORD_PATH, places.standInUrl);
  let response: Response;
  try {
    response = await fetch(url);
  } catch {
    throw new ClickError(`No Slack stand-in at ${places.standInUrl}: start one with npm run slack:stand-in.`);
  }
  if (!response.ok) throw new ClickError(`${url.href} answered ${response.status}: is that a Slack stand-in?`);
  return (await response.json()) as { teamId: string; calls: SlackCallRecord[] };
}

/** The latest top-level message that names `pause` (its inbox link names the pause, its header the run). */
function messageOf(calls: SlackCallRecord[], pause: string): { channel: string; ts: string; blocks: Block[] } {
  const posts = calls.filter(
    (call) => call.method === 'chat.postMessage' && call.answer.ok === true && call.body.thread_ts === undefined,
  );
  const named = (call: SlackCallRecord) => {
    const shown = JSON.stringify(call.body.blocks ?? call.body.text);
    return shown.includes(pause) || shown.includes(encodeURIComponent(pause));
  };
  const post = posts.findLast(named);
  if (post === undefined) {
    const known = posts.map((call) => `  ${String(call.body.text)}`).join('\n');
    throw new ClickError(
      `The stand-in holds no message of pause "${pause}".${posts.length === 0 ? ' Nothing was posted yet: pause with Slack configured (see npm run slack:stand-in).' : ` Its messages:\n${known}`}`,
    );
  }
  const channel = String(post.answer.channel);
  const ts = String(post.answer.ts);
  const update = calls.findLast(
    (call) =>
      call.method === 'chat.update' && call.answer.ok === true && call.body.channel === channel && call.body.ts === ts,
  );
  return { channel, ts, blocks: ((update ?? post).body.blocks ?? []) as Block[] };
}

/** The button to press: the action's, in ask `ask`'s actions block (or the first that has one). */
function buttonOf(blocks: Block[], action: string, text: string | undefined, ask: number | undefined) {
  const actionId = ACTION_IDS[action];
  if (actionId === undefined) throw new ClickError(`Unknown action "${action}".\n${USAGE}`);
  const rows = blocks.filter(
    (block) => block.type === 'actions' && (ask === undefined || block.block_id === `ask:${ask}`),
  );
  if (rows.length === 0) {
    throw new ClickError(
      ask === undefined
        ? 'The message shows no buttons: every ask is decided, or the pause is closed.'
        : `The message shows no buttons for ask ${ask}: it is decided, or there is no such ask.`,
    );
  }
  for (const row of rows) {
    const button = (row.elements ?? []).find((element) =>
      action === 'choose'
        ? element.action_id.startsWith(`${actionId}:`) && element.text?.text === text
        : element.action_id === actionId,
    );
    if (button !== undefined) return { block: row.block_id ?? '', button };
  }
  const shown = rows.flatMap((row) => (row.elements ?? []).map((element) => element.text?.text)).join(', ');
  throw new ClickError(
    action === 'choose'
      ? `No option "${text ?? ''}" to choose: the buttons are ${shown}.`
      : `No ${action} button: the buttons are ${shown}.`,
  );
}

/** What the modal's inputs hold once `text` is typed: `state.values`, as Slack sends it. */
function stateOf(view: View, text: string | undefined): Record<string, Record<string, object>> {
  const inputs = (view.blocks ?? []).filter((block) => block.type === 'input' && block.block_id !== undefined);
  const typed = (value: string) => ({ value: { type: 'plain_text_input', value } });
  const fields = inputs.filter((block) => block.block_id?.startsWith('answer:'));
  if (fields.length > 0) {
    // One field per property: the text is a JSON object of them.
    let answer: Record<string, unknown>;
    try {
      answer = JSON.parse(text ?? '') as Record<string, unknown>;
    } catch {
      throw new ClickError(
        `This answer has fields (${fields.map((f) => f.block_id?.slice(7)).join(', ')}): give them as a JSON object.`,
      );
    }
    return Object.fromEntries(
      fields.map((block) => {
        const value = answer[block.block_id?.slice('answer:'.length) ?? ''];
        return [
          block.block_id,
          typed(value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value)),
        ];
      }),
    );
  }
  return Object.fromEntries(inputs.map((block) => [block.block_id, typed(text ?? block.element?.initial_value ?? '')]));
}

async function post(places: ClickPlaces, payload: object): Promise<{ status: number; body: string }> {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(Math.floor(Date.now() / 1000));
  let response: Response;
  try {
    response = await fetch(`${places.serviceUrl}/channels/slack/interactions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': slackSignature(places.signingSecret, timestamp, body),
      },
      body,
    });
  } catch {
    throw new ClickError(
      `No Handback at ${places.serviceUrl}: start it with npm start (HANDBACK_URL or PORT says where).`,
    );
  }
  return { status: response.status, body: await response.text() };
}

/** The calls made after `from` that `match`, waiting up to `ms` for the first. */
async function after(
  places: ClickPlaces,
  from: number,
  match: (call: SlackCallRecord) => boolean,
  ms: number,
): Promise<SlackCallRecord[]> {
  const end = Date.now() + ms;
  for (;;) {
    const found = (await record(places)).calls.slice(from).filter(match);
    if (found.length > 0 || Date.now() > end) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Clicks as `args` say; resolves with the lines to print when the click was recorded, else throws a ClickError. */
export async function slackClick(args: readonly string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    throw new ClickError(`${(error as Error).message}\n${USAGE}`);
  }
  const [pause, action, text] = parsed.positionals;
  if (pause === undefined || action === undefined) throw new ClickError(USAGE);
  const ask = parsed.values.ask === undefined ? undefined : Number(parsed.values.ask);
  if (ask !== undefined && !Number.isInteger(ask)) throw new ClickError(`--ask must be an ask's index (0, 1, …).`);
  const user = parsed.values.user ?? 'U0ALICE01';
  const places = clickPlaces(env);
  const { teamId, calls } = await record(places);
  const message = messageOf(calls, pause);
  const { block, button } = buttonOf(message.blocks, action, text, ask);
  const from = calls.length;
  const triggerId = `stand-in-trigger-${Date.now()}`;
  const clicked = await post(places, {
    type: 'block_actions',
    team: { id: teamId },
    user: { id: user, team_id: teamId },
    api_app_id: 'A0STANDIN1',
    trigger_id: triggerId,
    container: { type: 'message', channel_id: message.channel, message_ts: message.ts },
    channel: { id: message.channel },
    message: { ts: message.ts },
    actions: [
      {
        type: 'button',
        action_id: button.action_id,
        block_id: block,
        value: button.value,
        action_ts: String(Date.now() / 1000),
      },
    ],
  });
  const lines = [
    `${button.text?.text ?? action} clicked as ${user}: ${clicked.status}${clicked.body === '' ? '' : ` ${clicked.body}`}`,
  ];
  if (clicked.status !== 200) throw new ClickError(lines.join('\n'));
  if (action === 'edit' || action === 'reject' || action === 'answer') {
    const [opened] = await after(
      places,
      from,
      (call) => call.method === 'views.open' && call.body.trigger_id === triggerId,
      3_000,
    );
    const told = (await record(places)).calls.slice(from).find((call) => call.method === 'chat.postEphemeral');
    if (opened === undefined) {
      throw new ClickError(
        [...lines, told === undefined ? 'No modal opened.' : `Told ${user}: ${String(told.body.text)}`].join('\n'),
      );
    }
    const view = opened.body.view as View;
    const submitted = await post(places, {
      type: 'view_submission',
      team: { id: teamId },
      user: { id: user, team_id: teamId },
      api_app_id: 'A0STANDIN1',
      view: { ...view, id: 'V0STANDIN1', state: { values: stateOf(view, text) } },
    });
    lines.push(
      `Modal ${view.callback_id ?? ''} submitted: ${submitted.status}${submitted.body === '' ? '' : ` ${submitted.body}`}`,
    );
    const refused = submitted.body.includes('"response_action":"errors"');
    if (submitted.status !== 200 || refused) throw new ClickError(lines.join('\n'));
  }
  // What the service told Slack: a refusal is an ephemeral to the clicker; a decision updates the message.
  const said = await after(
    places,
    from,
    (call) =>
      (call.method === 'chat.postEphemeral' && call.body.user === user) ||
      (call.method === 'chat.update' && call.body.ts === message.ts),
    3_000,
  );
  const ephemeral = said.find((call) => call.method === 'chat.postEphemeral');
  if (ephemeral !== undefined)
    throw new ClickError([...lines, `Told ${user}: ${String(ephemeral.body.text)}`].join('\n'));
  const update = said.find((call) => call.method === 'chat.update');
  lines.push(update === undefined ? 'The message is not updated yet.' : `The message now says: ${summary(update)}`);
  return lines;
}

/** The run line and each decided ask's line of an updated message: "refund_order: Approved by Alice Approver". */
function summary(update: SlackCallRecord): string {
  const texts = ((update.body.blocks ?? []) as Block[]).map((block) => block.text?.text ?? '');
  const run = texts.find((text) => text.startsWith('*Run*')) ?? '';
  const decided = texts.flatMap((text) => {
    const line = text.split('\n').find((each) => each.startsWith(':white_check_mark:'));
    const tool = /Tool `([^`]+)`/.exec(text)?.[1];
    return line === undefined ? [] : [`${tool ?? '?'}: ${line.replace(':white_check_mark: ', '')}`];
  });
  return [run.replace(/\*/g, ''), ...decided].join('; ');
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: true,
    options: { ask: { type: 'string' }, user: { type: 'string' } },
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  slackClick(process.argv.slice(2), process.env).then(
    (lines) => console.log(lines.join('\n')),
    (error: unknown) => {
      console.error(error instanceof ClickError ? error.message : error);
      process.exitCode = 1;
    },
  );
}
