import type { PauseView } from '../checkpoints/checkpoint-store.ts';
import { HandbackError, InvalidAnswerError, NotAnApproverError, UnknownPersonError } from '../errors.ts';
import { decideTurn, getPause } from '../resume/resume.ts';
import type { Actor, Decision } from '../wire.ts';
import type { DeliveryKey, MessageRef, PauseOfMessage } from './delivery-log.ts';
import type { SlackDeps } from './slack.ts';
import { isSlackSignature, SLACK_SIGNATURE_WINDOW_SECONDS, SlackApiError } from './slack-api.ts';
import { clickOf, parseJson, type SubmittedValues, submissionOf } from './slack-decide.ts';
import {
  ANSWER_BLOCK,
  ARGS_BLOCK,
  type ButtonValue,
  type ModalMetadata,
  modalOf,
  SlackModal,
} from './slack-message.ts';

/**
 * Slack's clicks and modal submissions (§14), `POST /channels/slack/interactions`: each request verified as Slack's
 * (its signature, taken once; the bot token's workspace), its clicker identified (`users.info`), and what they decided
 * (`slack-decide.ts`) recorded through `decideTurn` with the clicker as `by`. A click is decided before Slack is
 * answered (the store's write and a modal's `views.open` fit Slack's 3 s; `npm run bench -- coldstart` measures the
 * answer), so nothing is lost when a Lambda freezes after its response; the message shows the decision when the
 * decision's lifecycle event arrives, so no `chat.update` stands between the click and its answer.
 */

/**
 * What the interactions endpoint answers: 200 with Slack's JSON (or nothing), or a refusal the HTTP edge answers as a
 * problem (§5) — a request not signed by Slack, or one without a payload — having changed nothing.
 */
export type SlackAnswer =
  | { status: 200; body?: object }
  | { status: 400 | 401; problem: { code: 'bad_request' | 'unauthorized'; detail: string } };

/** The endpoint: the raw body and headers in, Slack's JSON or a refusal out. */
export interface SlackInteractions {
  interactions(request: { headers: Record<string, string | undefined>; body: string }): Promise<SlackAnswer>;
}

/** How many Slack users are kept resolved, and for how long. */
const USER_CACHE = { entries: 500, ttlMs: 10 * 60_000 };

/** Where the delivery log keeps who decided ask `index` in Slack, for the message to name them. */
export function deciderKey(pause: PauseOfMessage, index: number): DeliveryKey {
  return { ...pause, entry: 'slack', what: `by:${index}` };
}

/** The interactions endpoint of the Slack channel `deps` describes. */
export function createSlackInteractions(deps: SlackDeps): SlackInteractions {
  const now = deps.now ?? Date.now;
  const { call, log } = deps;
  let team: Promise<string> | undefined;
  const teamId = () => {
    team ??= call<{ team_id: string }>('auth.test', {}).then((answer) => answer.team_id);
    team.catch(() => {
      team = undefined;
    });
    return team;
  };
  const users = new Map<string, { actor: Actor; at: number }>();

  /**
   * The clicker as a principal (§14, §16): `slack:<team>:<user>`, with the email `users.info` gives — a workspace
   * member's, verified (unless Slack says it is not confirmed) — so approvers' emails match Slack users, and the same
   * person is one voter in Slack and elsewhere.
   */
  const actorOf = async (teamIdValue: string, userId: string): Promise<Actor> => {
    const cached = users.get(userId);
    if (cached !== undefined && cached.at > now() - USER_CACHE.ttlMs) return cached.actor;
    const answer = await call<{
      user: {
        id: string;
        team_id?: string;
        real_name?: string;
        is_email_confirmed?: boolean;
        profile?: { email?: string; real_name?: string };
      };
    }>('users.info', { user: userId });
    const email = answer.user.profile?.email;
    const verified = email !== undefined && email !== '' && answer.user.is_email_confirmed !== false;
    const name = answer.user.profile?.real_name ?? answer.user.real_name;
    const actor: Actor = {
      kind: 'person',
      subject: `slack:${teamIdValue}:${userId}`,
      ...(email ? { email } : {}),
      ...(verified ? { emailVerified: true as const } : {}),
      ...(name ? { name } : {}),
      via: 'slack',
    };
    if (users.size >= USER_CACHE.entries) users.delete(users.keys().next().value as string);
    users.set(userId, { actor, at: now() });
    return actor;
  };

  const decide = async (pause: PauseOfMessage, index: number, decision: Decision, actor: Actor) => {
    await decideTurn(deps.useCases, { ...pause, decisions: [decision], by: actor }, 'slack');
    await log.note(deciderKey(pause, index), actor.name ?? actor.email ?? actor.subject);
    // Slack is answered now: the message is updated by the decision's own lifecycle event (Pause Decided or Resumed,
    // delivered to this channel like every change), not on the way to the answer, where a slow chat.update would
    // spend Slack's 3 s and a Lambda frozen after its response would drop it.
  };

  const ephemeral = async (ref: MessageRef, user: string, error: unknown) => {
    await call('chat.postEphemeral', { channel: ref.channel, user, text: refusalText(error) });
  };

  const onAction = async (payload: SlackPayload, actor: Actor, userId: string) => {
    const action = payload.actions?.[0];
    const channel = payload.container?.channel_id ?? payload.channel?.id;
    const ts = payload.container?.message_ts ?? payload.message?.ts;
    if (action === undefined || channel === undefined || ts === undefined) return;
    const ref = { channel, ts };
    const pause = await log.lookup(ref);
    // Only messages this deployment posted are acted on.
    if (pause === undefined) {
      deps.useCases.logger.warn('Slack click ignored: not on a message this deployment posted', {
        channel,
        ts,
        user: userId,
      });
      return;
    }
    const value = parseJson<ButtonValue>(action.value);
    if (value === undefined || !Number.isInteger(value.a)) return;
    let view: PauseView;
    try {
      view = await getPause(deps.useCases, pause);
      const ask = view.asks[value.a];
      if (ask === undefined) return;
      if (view.status !== 'paused') throw new ClosedClick(view.status);
      if (view.decided.includes(ask.toolCallId)) throw new ClosedClick('decided');
      const click = clickOf(action.action_id.split(':')[0] as string, value, ask);
      if (click.kind === 'decide') await decide(pause, value.a, click.decision, actor);
      if (click.kind === 'modal') {
        await call('views.open', {
          trigger_id: payload.trigger_id,
          // The modal shows the arguments as they are now, and takes back their hash with what is submitted.
          view: modalOf(click.modal, ask, {
            channel,
            ts,
            a: value.a,
            ...(ask.argsHash === undefined ? {} : { h: ask.argsHash }),
          }),
        });
      }
    } catch (error) {
      if (error instanceof HandbackError || error instanceof ClosedClick) {
        await ephemeral(ref, userId, error);
        return;
      }
      throw error;
    }
  };

  const onSubmission = async (payload: SlackPayload, actor: Actor): Promise<object | undefined> => {
    const submitted = payload.view;
    const metadata = parseJson<ModalMetadata>(submitted?.private_metadata);
    if (submitted === undefined || metadata === undefined) return undefined;
    const ref = { channel: metadata.channel, ts: metadata.ts };
    const pause = await log.lookup(ref);
    if (pause === undefined) {
      deps.useCases.logger.warn('Slack submission ignored: not of a message this deployment posted', {
        channel: metadata.channel,
        ts: metadata.ts,
        user: actor.subject,
      });
      return undefined;
    }
    const values = submitted.state?.values ?? {};
    const view = await getPause(deps.useCases, pause);
    const ask = view.asks[metadata.a];
    if (ask === undefined) return undefined;
    const firstBlock =
      (submitted.blocks?.find((block) => block.type === 'input')?.block_id as string | undefined) ?? ANSWER_BLOCK;
    const made = submissionOf(submitted.callback_id, values, ask, metadata);
    if (made === undefined) return undefined;
    if ('errors' in made) return errors(made.errors);
    try {
      if (view.status !== 'paused') throw new ClosedClick(view.status);
      await decide(pause, metadata.a, made.decision, actor);
      return undefined;
    } catch (error) {
      if (error instanceof InvalidAnswerError) {
        // The schema's failures, each beside its field (or the first field when the failure is the whole answer's).
        const byBlock: Record<string, string> = {};
        for (const failure of error.failures.length > 0 ? error.failures : [{ path: '', message: error.message }]) {
          const field = failure.path.split('/')[1];
          const block =
            submitted.callback_id === SlackModal.Edit
              ? ARGS_BLOCK
              : field !== undefined && values[`${ANSWER_BLOCK}:${field}`] !== undefined
                ? `${ANSWER_BLOCK}:${field}`
                : firstBlock;
          byBlock[block] ??= `${failure.path === '' ? '' : `${failure.path}: `}${failure.message}`.slice(0, 2000);
        }
        return errors(byBlock);
      }
      if (error instanceof HandbackError || error instanceof ClosedClick)
        return errors({ [firstBlock]: refusalText(error) });
      throw error;
    }
  };

  /** Tells a clicker Slack could not identify that nothing was recorded: an ephemeral, or the modal's inline error. */
  const unidentified = async (payload: SlackPayload, userId: string): Promise<SlackAnswer> => {
    if (payload.type === 'view_submission') {
      const block = payload.view?.blocks?.find((each) => each.type === 'input')?.block_id ?? ANSWER_BLOCK;
      return { status: 200, body: errors({ [block]: UNIDENTIFIED }) };
    }
    const channel = payload.container?.channel_id ?? payload.channel?.id;
    if (channel !== undefined) {
      await call('chat.postEphemeral', { channel, user: userId, text: UNIDENTIFIED }).catch((error: unknown) =>
        deps.useCases.logger.warn('Slack ephemeral not sent', { channel, user: userId, error }),
      );
    }
    return { status: 200 };
  };

  return {
    async interactions(request) {
      const headers = request.headers;
      const verified = isSlackSignature({
        secret: deps.signingSecret,
        timestamp: headers['x-slack-request-timestamp'],
        signature: headers['x-slack-signature'],
        body: request.body,
        nowSeconds: Math.floor(now() / 1000),
      });
      if (!verified) {
        return refused(
          401,
          'unauthorized',
          `The request is not signed by Slack: X-Slack-Signature must be v0= and the HMAC-SHA256 of the body with the app's signing secret, and X-Slack-Request-Timestamp within ${SLACK_SIGNATURE_WINDOW_SECONDS} s of now.`,
        );
      }
      // The same signed request again (a replay) changes nothing: each signature is taken once in its window.
      if (!(await log.once(`slack:${headers['x-slack-signature']}`, SLACK_SIGNATURE_WINDOW_SECONDS * 2))) {
        return { status: 200 };
      }
      const payload = parseJson<SlackPayload>(new URLSearchParams(request.body).get('payload') ?? '');
      if (payload === undefined) {
        return refused(400, 'bad_request', 'The body has no payload field holding JSON, as Slack sends it.');
      }
      const fromTeam = payload.team?.id ?? payload.user?.team_id;
      const userId = payload.user?.id;
      // A request from another workspace than the bot token's records nothing.
      let ownTeam: string;
      try {
        ownTeam = await teamId();
      } catch (error) {
        if (!(error instanceof SlackApiError)) throw error;
        deps.useCases.logger.warn('Slack click not recorded: the bot token’s workspace is unknown', {
          method: error.method,
          slackError: error.slackError,
        });
        return userId === undefined ? { status: 200 } : unidentified(payload, userId);
      }
      if (fromTeam === undefined || userId === undefined || fromTeam !== ownTeam) {
        deps.useCases.logger.warn('Slack interaction ignored: not from the bot token’s workspace', {
          team: fromTeam ?? null,
          user: userId ?? null,
          type: payload.type,
        });
        return { status: 200 };
      }
      let actor: Actor;
      try {
        actor = await actorOf(fromTeam, userId);
      } catch (error) {
        // Slack could not describe the clicker (users.info refused, or did not answer): nobody to record as.
        if (!(error instanceof SlackApiError)) throw error;
        deps.useCases.logger.warn('Slack click not recorded: the clicker could not be identified', {
          team: fromTeam,
          user: userId,
          method: error.method,
          slackError: error.slackError,
        });
        return unidentified(payload, userId);
      }
      if (payload.type === 'block_actions') {
        await onAction(payload, actor, userId);
        return { status: 200 };
      }
      if (payload.type === 'view_submission') {
        const answer = await onSubmission(payload, actor);
        return answer === undefined ? { status: 200 } : { status: 200, body: answer };
      }
      return { status: 200 };
    },
  };
}

function refused(status: 400 | 401, code: 'bad_request' | 'unauthorized', detail: string): SlackAnswer {
  return { status, problem: { code, detail } };
}

/** A click on a pause that has closed, or on an ask that is decided, caught before the store is asked. */
class ClosedClick extends Error {
  constructor(readonly state: string) {
    super(
      state === 'decided' ? 'This ask is already decided.' : `This pause is ${state}: nothing more can be decided.`,
    );
    this.name = 'ClosedClick';
  }
}

/** What a clicker Slack cannot describe is told: nothing was recorded, and where to go instead. */
const UNIDENTIFIED = 'Not recorded: Handback could not identify you in Slack, so nothing was decided. Try the inbox.';

/** What the person is told when their click cannot be taken. */
function refusalText(error: unknown): string {
  // Whoever clicks in a channel is told, so who the approvers are (their addresses) stays out of it.
  if (error instanceof NotAnApproverError) return 'Not recorded: you are not one of the approvers of this ask.';
  if (error instanceof UnknownPersonError) {
    return 'Not recorded: Handback’s directory does not list your Slack user as an active person, and this ask needs one.';
  }
  if (error instanceof HandbackError || error instanceof ClosedClick) return `Not recorded: ${error.message}`;
  return 'Not recorded: something went wrong; try the inbox.';
}

function errors(byBlock: Record<string, string>) {
  return { response_action: 'errors', errors: byBlock };
}

/** The parts of Slack's interaction payloads this channel reads. */
interface SlackPayload {
  type: string;
  team?: { id?: string };
  user?: { id?: string; team_id?: string };
  trigger_id?: string;
  channel?: { id?: string };
  container?: { channel_id?: string; message_ts?: string };
  message?: { ts?: string };
  actions?: Array<{ action_id: string; value?: string }>;
  view?: {
    callback_id?: string;
    private_metadata?: string;
    blocks?: Array<{ type: string; block_id?: string }>;
    state?: { values?: SubmittedValues };
  };
}
