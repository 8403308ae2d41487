import type { PauseView } from '../checkpoints/checkpoint-store.ts';
import { groupEmails } from '../checkpoints/escalation-people.ts';
import { foldEmail } from '../checkpoints/identity.ts';
import { entryKey, recipientsOf } from '../checkpoints/notify.ts';
import { delegatesOf } from '../checkpoints/people-me.ts';
import { isInsideDomains } from '../checkpoints/recipients.ts';
import type { Directory } from '../directory/port.ts';
import type { LifecycleEvent } from '../events/lifecycle.ts';
import { getPause, type LinkMailer, type UseCaseDeps } from '../resume/resume.ts';
import { LifecycleType } from '../vocabulary.ts';
import { type Channel, logFailedSend } from './channel.ts';
import type { DeliveryLog } from './delivery-log.ts';
import { type EmailMessage, pauseEmail } from './email-message.ts';

/**
 * The email channel (§14): one email per recipient on `Pause Created`, and on `Pause Reminder` one to each recipient
 * who has not decided, each with the recipient's own answer link; on `Pause Escalated` (§21) one to each email
 * approver the level added. Email cannot be updated, so the other events send
 * nothing. Each send is claimed in the delivery log first, so a redelivered event mails no one twice.
 */

/** Sends one email: SMTP locally (`email-smtp.ts`), SES on AWS (`email-ses.ts`). */
export interface EmailTransport {
  send(message: EmailMessage & { from: string }): Promise<void>;
}

/** The recipient's own answer link (§14, §16): delivered to them, so decisions made with it are recorded as theirs. */
export type RecipientLink = (
  pause: { tenant: string; runId: string; interruptId: string; expiresAt: string },
  recipient: { email: string; name?: string },
) => Promise<string>;

/** What the email channel runs on. */
export interface EmailDeps {
  useCases: UseCaseDeps;
  transport: EmailTransport;
  from: string;
  log: DeliveryLog;
  link: RecipientLink;
  /** `HANDBACK_EMAIL_TO`: whom a pause without `notify` is mailed to. */
  defaultRecipients: readonly string[];
  /**
   * `HANDBACK_RECIPIENT_DOMAINS` (§16): an agent's pause is mailed to its own `notify` addresses only inside these
   * (the store refuses others at pause time; this holds for pauses recorded before). @default none
   */
  recipientDomains?: readonly string[];
  /** §20: the directory of persons, whose emails a level's groups are mailed at (§21). @default none */
  directory?: Directory;
}

/** The email channel. */
export function createEmailChannel(deps: EmailDeps): Channel {
  const sendOnce = async (event: LifecycleEvent, view: PauseView, to: string, what: string) => {
    const { tenant, runId, interruptId } = event.detail;
    const key = { tenant, runId, interruptId, entry: entryKey({ channel: 'email', to }), what };
    if (!(await deps.log.claim(key))) return;
    try {
      const link = await deps.link({ tenant, runId, interruptId, expiresAt: view.expiresAt }, { email: to });
      await deps.transport.send({
        from: deps.from,
        ...pauseEmail(view, to, link, { reminder: what.startsWith('remind') }),
      });
    } catch (error) {
      await deps.log.release(key);
      logFailedSend(deps.useCases.logger, 'email', to, event, error);
      throw error;
    }
    await deps.log.done(key);
  };

  // §21: the email approvers a level added are told like a new pause, each with a delivered link of their own, once per
  // level (the delivery log's key names it); so are its groups' members, at their directory emails (a `manager` level
  // added its managers by their directory emails already).
  const escalated = async (event: LifecycleEvent, what: 'escalate' | 'remind') => {
    const { tenant, runId, interruptId, toolCallId, level, approvers } = event.detail;
    const view = await getPause(deps.useCases, { tenant, runId, interruptId });
    if (view.status !== 'paused' || !view.pending.includes(toolCallId ?? '')) return;
    const failures: unknown[] = [];
    const emails = approvers?.emails ?? [];
    const members = await groupEmails(deps.directory, tenant, approvers?.groups ?? [], emails);
    for (const to of [...emails, ...members]) {
      await sendOnce(event, view, to, `${what}#${toolCallId}#${level}`).catch((error: unknown) => failures.push(error));
    }
    if (failures.length > 0) throw failures[0];
  };

  return {
    name: 'email',
    async deliver(event) {
      if (event.type === LifecycleType.Escalated) return escalated(event, 'escalate');
      // §21: a level's reminder (halfway to the next) goes to the approvers that level added, as its escalation did.
      if (event.type === LifecycleType.Reminder && event.detail.level !== undefined) return escalated(event, 'remind');
      if (event.type !== LifecycleType.Created && event.type !== LifecycleType.Reminder) return;
      const { tenant, runId, interruptId } = event.detail;
      const view = await getPause(deps.useCases, { tenant, runId, interruptId });
      // Nothing is asked of anyone once the pause has closed.
      if (view.status !== 'paused') return;
      // An agent never chooses who is mailed a link that decides (§16): outside the domains, no one of its own naming.
      const recipients = recipientsOf(view.notify, 'email', deps.defaultRecipients).filter(
        (to) =>
          view.notify === undefined ||
          view.pausedBy?.kind !== 'agent' ||
          isInsideDomains(to, deps.recipientDomains ?? []),
      );
      const decidedBy = new Set(
        view.asks.map((ask) => emailOfDecider(ask.decision)).filter((email) => email !== undefined),
      );
      const what = event.type === LifecycleType.Created ? 'mail' : 'remind';
      const failures: unknown[] = [];
      for (const to of [...recipients, ...(await delegatesMailed(deps.useCases, tenant, view, recipients))]) {
        if (what === 'remind' && decidedBy.has(foldEmail(to))) continue;
        await sendOnce(event, view, to, what).catch((error: unknown) => failures.push(error));
      }
      if (failures.length > 0) throw failures[0];
    },
  };
}

// §20 delegation
/**
 * The addresses of the delegates of the recipients who are delegators (`delegatesOf`): each delegate is mailed as
 * their delegator is, a link of their own, once (a delegate who is also a recipient keeps the one delivery key).
 */
async function delegatesMailed(useCases: UseCaseDeps, tenant: string, view: PauseView, recipients: string[]) {
  const directory = useCases.people?.directory;
  if (directory === undefined) return [];
  const mailed = new Set(recipients.map(foldEmail));
  const told = (delegator: { emails: readonly string[] }) => delegator.emails.some((e) => mailed.has(foldEmail(e)));
  const notices = await delegatesOf(directory, tenant, view, told, (useCases.now ?? Date.now)());
  return notices.flatMap(({ delegate }) => delegate.emails.slice(0, 1)).filter((to) => !mailed.has(foldEmail(to)));
}

/** The decider's email when the store's view names it (`decision.by`, §13). */
function emailOfDecider(decision: unknown): string | undefined {
  const email = (decision as { by?: { email?: unknown } } | undefined)?.by?.email;
  return typeof email === 'string' ? foldEmail(email) : undefined;
}

/**
 * Mails a delivered link (§16, `POST …/links` with `deliver: true`) as the channel mails a pause: the same email, to
 * the one recipient, with their link. Unlike the channel's deliveries it is sent when asked, each time asked.
 */
export function createLinkMailer(deps: Pick<EmailDeps, 'transport' | 'from'>): LinkMailer {
  return async (view, recipient, link) => {
    await deps.transport.send({ from: deps.from, ...pauseEmail(view, recipient.email, link) });
  };
}
