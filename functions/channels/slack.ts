import type { PauseView } from '../checkpoints/checkpoint-store.ts';
import { recipientsOf } from '../checkpoints/notify.ts';
import { type DelegateNotice, delegatesOf } from '../checkpoints/people-me.ts';
import type { LifecycleEvent } from '../events/lifecycle.ts';
import { getPause, type UseCaseDeps } from '../resume/resume.ts';
import { LifecycleType } from '../vocabulary.ts';
import type { Approvers } from '../wire.ts';
import { type Channel, logFailedSend } from './channel.ts';
import type { DeliveryKey, DeliveryLog, MessageRef, PauseOfMessage } from './delivery-log.ts';
import type { SlackCall } from './slack-api.ts';
import { createSlackInteractions, deciderKey, type SlackInteractions } from './slack-clicks.ts';
import { pauseMessage } from './slack-message.ts';

export type { SlackAnswer, SlackInteractions } from './slack-clicks.ts';

/**
 * The Slack channel (§14): posts a pause's message on `Pause Created`, updates it on every later change, and replies
 * in its thread on `Pause Reminder`, each post once (the delivery log); the clicks and modal submissions on its
 * messages come back through its interactions endpoint (`slack-clicks.ts`).
 */

/** What the Slack channel runs on. */
export interface SlackDeps {
  useCases: UseCaseDeps;
  call: SlackCall;
  log: DeliveryLog;
  signingSecret: string;
  /** `HANDBACK_SLACK_CHANNEL`: where a pause without `notify` goes. */
  defaultChannels: readonly string[];
  /** The inbox page's URL, linked from each message. */
  inboxUrl?: string;
  /** Milliseconds since the epoch; injected for tests. */
  now?: () => number;
}

/** The Slack channel and its interactions endpoint. */
export function createSlackChannel(deps: SlackDeps): Channel & SlackInteractions {
  const { call, log } = deps;

  const postKey = (pause: PauseOfMessage, to: string, what: string): DeliveryKey => ({
    ...pause,
    entry: `slack:${to}`,
    what,
  });
  const render = async (pause: PauseOfMessage, view: PauseView) => {
    const deciders = new Map<number, string>();
    await Promise.all(
      view.asks.map(async (ask, index) => {
        if (!view.decided.includes(ask.toolCallId)) return;
        const name = await log.noteOf(deciderKey(pause, index));
        if (name !== undefined) deciders.set(index, name);
      }),
    );
    const inboxUrl = deps.inboxUrl ?? deps.useCases.inboxUrl;
    return pauseMessage(view, { deciders, ...(inboxUrl === undefined ? {} : { inboxUrl }) });
  };

  /** Shows the pause as it is now in one posted message. */
  const refresh = async (pause: PauseOfMessage, ref: MessageRef, view?: PauseView) => {
    const current = view ?? (await getPause(deps.useCases, pause));
    const message = await render(pause, current);
    await call('chat.update', { channel: ref.channel, ts: ref.ts, ...message });
  };

  // §20 delegation: each delegate of an approver the message asks is told in its thread, once, by a mention.
  const tellDelegates = async (pause: PauseOfMessage, to: string, ref: MessageRef, view: PauseView) => {
    if (view.status !== 'paused' || deps.useCases.people === undefined) return;
    const now = (deps.now ?? deps.useCases.now ?? Date.now)();
    for (const notice of await delegatesOf(deps.useCases.people.directory, pause.tenant, view, () => true, now)) {
      const told = postKey(pause, to, `delegate#${notice.delegate.id}`);
      if (!(await log.claim(told))) continue;
      try {
        await call('chat.postMessage', { channel: ref.channel, thread_ts: ref.ts, text: delegateText(notice) });
      } catch (error) {
        await log.release(told);
        throw error;
      }
      await log.done(told);
    }
  };

  const deliverTo = async (event: LifecycleEvent, pause: PauseOfMessage, to: string, view: PauseView) => {
    const key = postKey(pause, to, 'post');
    let ref = await log.ref(key);
    if (ref === undefined) {
      // Only Pause Created brings the message; a change that arrives first is shown when it does.
      if (event.type !== LifecycleType.Created || !(await log.claim(key))) return;
      try {
        const answer = await call<{ channel: string; ts: string }>('chat.postMessage', {
          channel: to,
          ...(await render(pause, view)),
        });
        ref = { channel: answer.channel, ts: answer.ts };
      } catch (error) {
        await log.release(key);
        throw error;
      }
      await log.index(ref, pause);
      await log.done(key, ref);
      await tellDelegates(pause, to, ref, view);
      // A change committed between the read and the post found no message to update: show it now.
      const after = await getPause(deps.useCases, pause);
      if (after.status !== view.status || after.decided.length !== view.decided.length)
        await refresh(pause, ref, after);
      return;
    }
    await refresh(pause, ref, view);
    await tellDelegates(pause, to, ref, view);
    if (event.type === LifecycleType.Reminder && view.status === 'paused') {
      // §21: a level's reminder is its own post, once per ask and level; the pause's own, once.
      const { toolCallId, level } = event.detail;
      const remind = postKey(pause, to, level === undefined ? 'remind' : `remind#${toolCallId}#${level}`);
      if (!(await log.claim(remind))) return;
      try {
        await call('chat.postMessage', {
          channel: ref.channel,
          thread_ts: ref.ts,
          text:
            level === undefined
              ? `Reminder: this still waits for a decision (${view.pending.length} of ${view.asks.length} asks), until ${view.expiresAt}.`
              : `Reminder: ${toolCallId} still waits for a decision since level ${level}, until ${view.expiresAt}.`,
        });
      } catch (error) {
        await log.release(remind);
        throw error;
      }
      await log.done(remind);
    }
    // §21: a level reached gets a reply in the message's thread naming it, once per ask and level.
    if (event.type === LifecycleType.Escalated && view.status === 'paused') {
      const { toolCallId, level, approvers } = event.detail;
      const escalated = postKey(pause, to, `escalate#${toolCallId}#${level}`);
      if (!(await log.claim(escalated))) return;
      try {
        await call('chat.postMessage', {
          channel: ref.channel,
          thread_ts: ref.ts,
          text: escalationText(toolCallId ?? '', level ?? 0, approvers, event.detail.at),
        });
      } catch (error) {
        await log.release(escalated);
        throw error;
      }
      await log.done(escalated);
    }
  };

  return {
    name: 'slack',

    async deliver(event) {
      const { tenant, runId, interruptId } = event.detail;
      const pause = { tenant, runId, interruptId };
      const view = await getPause(deps.useCases, pause);
      const recipients = recipientsOf(view.notify, 'slack', deps.defaultChannels);
      // Each channel is posted to on its own (one that fails does not keep the others from theirs), each failure
      // logged naming it; the event's failure is the first.
      const failures: unknown[] = [];
      for (const to of recipients) {
        await deliverTo(event, pause, to, view).catch((error: unknown) => {
          logFailedSend(deps.useCases.logger, 'slack', to, event, error);
          failures.push(error);
        });
      }
      if (failures.length > 0) throw failures[0];
    },

    interactions: createSlackInteractions(deps).interactions,
  };
}

// §20 delegation
/** A delegate's thread reply: "<@U0BOB> decides here for Cyd, whose approvals are yours until … (on leave)." */
function delegateText({ delegate, delegator }: DelegateNotice): string {
  const slack = delegate.slack[0];
  const who = slack === undefined ? delegate.name : `<@${slack.user}>`;
  const { until, reason } = delegator.delegation ?? { until: '' };
  return `${who} decides here for ${delegator.name}, whose approvals are handed to them until ${until}${reason === undefined ? '' : ` (${reason})`}.`;
}

/** A level's thread reply: "Escalated to group leads, cfo@example.com at 2026-… (level 1, call_refund)." */
function escalationText(
  toolCallId: string,
  level: number,
  approvers: Approvers | undefined,
  at: string | undefined,
): string {
  const names = [
    ...(approvers?.groups ?? []).map((group) => `group ${group}`),
    ...(approvers?.emails ?? []),
    ...(approvers?.subjects ?? []),
  ];
  const whom =
    names.length === 0
      ? 'no one (the level names managers, and the directory has none for its approvers)'
      : names.join(', ');
  return `Escalated to ${whom}${at === undefined ? '' : ` at ${at}`} (level ${level}, ${toolCallId}).`;
}
