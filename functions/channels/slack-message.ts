import type { ActionsBlock, Button, InputBlock, KnownBlock, ModalView } from '@slack/types';
import { executionText } from '../checkpoints/execution-words.ts';
import { policyNowText, policyText } from '../policies/words.ts';
import { DECISION_KINDS, type DecisionKind, INBOX_PAUSE_QUERY } from '../vocabulary.ts';
import type { AskView, JsonSchema, PauseView } from '../wire.ts';

/**
 * The Slack message of a pause and its modals (§14), pure: Block Kit built from the pause as the store has it now,
 * held to Slack's documented limits (`SLACK_LIMITS`), with every cut marked "…".
 */

/** Slack's documented Block Kit limits that a pause can reach. */
export const SLACK_LIMITS = {
  blocks: 50,
  sectionText: 3000,
  headerText: 150,
  contextText: 2000,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  actionId: 255,
  modalTitle: 24,
  privateMetadata: 3000,
  inputMaxLength: 3000,
  /** The message's fallback `text` (notifications, screen readers). */
  messageText: 4000,
} as const;

/** The most `enum` values an answer ask offers as buttons; more open the Answer… modal. */
export const ENUM_BUTTONS = 5;

/** Action ids: what a button does. */
export const SlackAction = {
  Approve: 'handback.approve',
  Edit: 'handback.edit',
  Reject: 'handback.reject',
  Answer: 'handback.answer',
  Choose: 'handback.choose',
} as const;

/** The callback ids of the modals. */
export const SlackModal = { Edit: 'handback.edit', Reject: 'handback.reject', Answer: 'handback.answer' } as const;

/** Each decision kind's action id: its button's, and the callback id of the modal it opens, if any. */
export const DECISION_ACTIONS: Record<DecisionKind, string> = {
  approve: SlackAction.Approve,
  edit: SlackAction.Edit,
  reject: SlackAction.Reject,
};

/** What a decided ask's line says each decision kind was. */
const DECIDED: Record<DecisionKind, string> = { approve: 'Approved', edit: 'Approved with edits', reject: 'Rejected' };

/**
 * What a button's value carries: the ask's index, for an enum button the value's index, and the `argsHash` of the
 * arguments the message showed (§16), so an approve of arguments edited since is refused. No credential.
 */
export interface ButtonValue {
  a: number;
  v?: number;
  h?: string;
}

/** What a modal carries back in `private_metadata`: the message it came from, the ask, the shown arguments' hash. */
export interface ModalMetadata {
  channel: string;
  ts: string;
  a: number;
  h?: string;
}

/** What the message shows besides the pause: the inbox's URL, and who decided each ask (by ask index) when known. */
export interface MessageExtras {
  inboxUrl?: string;
  deciders?: ReadonlyMap<number, string>;
}

/** Cuts `text` to `max` characters, ending in "…" when cut. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max - 1)}…`;
}

/** Slack's mrkdwn escapes: &, < and > (docs.slack.dev "Formatting text for app surfaces"). */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * Breaks every run of backticks with a zero-width space, so text shown in a code block cannot close it and format
 * what follows (a run of three ends a Slack code block; what the model wrote is never markup).
 */
export function breakFences(text: string): string {
  return text.replaceAll(/`(?=`)/g, '`\u200B');
}

/** The inbox's address of one pause (`?run=…&pause=…`), which the page opens on that pause. */
export function pauseUrl(inboxUrl: string, pause: Pick<PauseView, 'runId' | 'interruptId'>): string {
  const url = new URL(inboxUrl);
  url.searchParams.set(INBOX_PAUSE_QUERY.runId, pause.runId);
  url.searchParams.set(INBOX_PAUSE_QUERY.interruptId, pause.interruptId);
  return url.href;
}

/** The fallback text and subject line: `Approval needed: refund_order — order-42`. */
export function headline(view: Pick<PauseView, 'asks' | 'runId'>): string {
  const approval = view.asks.some((ask) => ask.kind === 'approval');
  const names = [...new Set(view.asks.map((ask) => ask.name))].join(', ');
  return `${approval ? 'Approval needed' : 'Answer needed'}: ${names} — ${view.runId}`;
}

/** The message's blocks and fallback text. */
export function pauseMessage(view: PauseView, extras: MessageExtras = {}): { text: string; blocks: KnownBlock[] } {
  const open = view.status === 'paused';
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: cut(headline(view), SLACK_LIMITS.headerText) } },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: cut(
          `*Run* \`${escapeMrkdwn(view.runId)}\` · ${open ? `expires ${view.expiresAt}` : statusLine(view)}`,
          SLACK_LIMITS.sectionText,
        ),
      },
    },
  ];
  if (view.context?.user !== undefined) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: cut(`*User:* ${escapeMrkdwn(view.context.user)}`, SLACK_LIMITS.contextText) }],
    });
  }
  view.asks.forEach((ask, index) => {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: askText(view, ask, index, extras) } });
    const decided = view.decided.includes(ask.toolCallId);
    if (open && !decided) blocks.push(actionsOf(ask, index));
  });
  if (extras.inboxUrl !== undefined) {
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: cut(`<${escapeMrkdwn(pauseUrl(extras.inboxUrl, view))}|Open in the inbox>`, SLACK_LIMITS.contextText),
        },
      ],
    });
  }
  return { text: cut(headline(view), SLACK_LIMITS.messageText), blocks: blocks.slice(0, SLACK_LIMITS.blocks) };
}

/** A closed pause's outcome, as its message shows it. */
function statusLine(view: PauseView): string {
  switch (view.outcome ?? view.status) {
    case 'resumed':
      return '*Resumed* — every ask is settled';
    case 'expired':
      return '*Expired* — no one decided in time';
    case 'cancelled':
      return view.cancelReason === undefined ? '*Cancelled*' : `*Cancelled* — ${escapeMrkdwn(view.cancelReason)}`;
    default:
      return `*${escapeMrkdwn(view.status)}*`;
  }
}

function askText(view: PauseView, ask: AskView, index: number, extras: MessageExtras): string {
  const head = `*${escapeMrkdwn(ask.prompt ?? (ask.kind === 'approval' ? 'Approve this call?' : 'Answer this call'))}*\nTool \`${escapeMrkdwn(ask.name)}\``;
  const state = stateOf(view, ask, index, extras);
  // Why it waits, or what the policies did or (in shadow mode) would have done (§17); after an edit, what they make of
  // the edited arguments (§19).
  const policy = [policyText(ask.policy), policyNowText(ask.policyNow)]
    .filter((line) => line !== undefined)
    .map((line) => `\n_${escapeMrkdwn(line)}_`)
    .join('');
  const tail = `${policy}${state === undefined ? '' : `\n${state}`}`;
  const fence = '```';
  const args = ask.argsOmitted ? '(too large to show here: open the inbox)' : JSON.stringify(ask.args, null, 2);
  // The code block takes what the prompt and the state leave of the section's 3,000 characters.
  const room = SLACK_LIMITS.sectionText - head.length - tail.length - 2 * fence.length - 2;
  if (room < 16) return cut(`${head}${tail}`, SLACK_LIMITS.sectionText);
  return `${head}\n${fence}${cut(escapeMrkdwn(breakFences(args ?? 'null')), room)}${fence}${tail}`;
}

/** A decided ask's line: what was decided, and by whom when known. */
function stateOf(view: PauseView, ask: AskView, index: number, extras: MessageExtras): string | undefined {
  if (!view.decided.includes(ask.toolCallId)) return view.status === 'paused' ? undefined : '_Not decided_';
  const decision = ask.decision;
  const what = decision === undefined ? 'Decided' : 'answer' in decision ? 'Answered' : DECIDED[decision.decision];
  const by = deciderOf(ask) ?? extras.deciders?.get(index);
  // §19: whether the approved call ran, as its execution claim says.
  const execution = executionText(ask.execution, (iso) => iso);
  const ran = execution === undefined ? '' : `\n${escapeMrkdwn(execution)}`;
  return `:white_check_mark: ${what}${by === undefined ? '' : ` by ${escapeMrkdwn(by)}`}${ran}`;
}

/** Who decided, when the store's view names it (`decision.by`, §13). */
function deciderOf(ask: AskView): string | undefined {
  const by = (ask.decision as { by?: { name?: string; email?: string; subject?: string } } | undefined)?.by;
  return by?.name ?? by?.email ?? by?.subject;
}

function button(text: string, actionId: string, value: ButtonValue, style?: 'primary' | 'danger'): Button {
  return {
    type: 'button',
    text: { type: 'plain_text', text: cut(text, SLACK_LIMITS.buttonText) },
    action_id: actionId,
    value: JSON.stringify(value),
    ...(style === undefined ? {} : { style }),
  };
}

/**
 * Each decision kind's button on an approval ask, or none where the ask does not offer it: an edit needs arguments
 * the modal can hold. An approve carries the shown arguments' hash (§16).
 */
const DECISION_BUTTONS: Record<DecisionKind, (ask: AskView, index: number) => Button | undefined> = {
  approve: (ask, index) =>
    button(
      'Approve',
      SlackAction.Approve,
      { a: index, ...(ask.argsHash === undefined ? {} : { h: ask.argsHash }) },
      'primary',
    ),
  edit: (ask, index) =>
    ask.editable !== false && !ask.argsOmitted && argsText(ask).length <= SLACK_LIMITS.inputMaxLength
      ? button('Edit…', SlackAction.Edit, { a: index })
      : undefined,
  reject: (_, index) => button('Reject…', SlackAction.Reject, { a: index }, 'danger'),
};

function actionsOf(ask: AskView, index: number): ActionsBlock {
  const elements: Button[] = [];
  if (ask.kind === 'approval') {
    for (const kind of DECISION_KINDS) {
      const offered = DECISION_BUTTONS[kind](ask, index);
      if (offered !== undefined) elements.push(offered);
    }
  } else {
    const values = enumOf(ask.answerSchema);
    if (values !== undefined && values.length <= ENUM_BUTTONS) {
      values.forEach((value, v) => {
        elements.push(
          button(typeof value === 'string' ? value : JSON.stringify(value), SlackAction.Choose, { a: index, v }),
        );
      });
    } else {
      elements.push(button('Answer…', SlackAction.Answer, { a: index }, 'primary'));
    }
  }
  // Each action id once per block (Slack refuses repeats), so enum buttons carry their index in it.
  return {
    type: 'actions',
    block_id: `ask:${index}`,
    elements: elements
      .map((element, i) =>
        element.action_id === SlackAction.Choose ? { ...element, action_id: `${SlackAction.Choose}:${i}` } : element,
      )
      .slice(0, SLACK_LIMITS.actionsElements),
  };
}

/** An answer schema's `enum` (or `const` list of a `oneOf`), when it has one. */
export function enumOf(schema: JsonSchema | undefined): unknown[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  return Array.isArray(schema.enum) ? schema.enum : undefined;
}

function argsText(ask: AskView): string {
  return JSON.stringify(ask.args, null, 2) ?? 'null';
}

/** The properties of a flat object schema (strings, numbers, integers, booleans), one field each; else undefined. */
export function fieldsOf(schema: JsonSchema | undefined): Array<{ name: string; type: string }> | undefined {
  if (typeof schema !== 'object' || schema.type !== 'object') return undefined;
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const fields: Array<{ name: string; type: string }> = [];
  for (const [name, sub] of Object.entries(properties as Record<string, unknown>)) {
    const type = (sub as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !['string', 'number', 'integer', 'boolean'].includes(type)) return undefined;
    fields.push({ name, type });
  }
  return fields.length > 0 && fields.length <= 20 ? fields : undefined;
}

function textInput(
  blockId: string,
  label: string,
  options: { initial?: string; optional?: boolean; multiline?: boolean; max?: number },
): InputBlock {
  return {
    type: 'input',
    block_id: blockId,
    label: { type: 'plain_text', text: cut(label, 2000) },
    optional: options.optional ?? false,
    element: {
      type: 'plain_text_input',
      action_id: 'value',
      multiline: options.multiline ?? false,
      max_length: options.max ?? SLACK_LIMITS.inputMaxLength,
      ...(options.initial === undefined ? {} : { initial_value: options.initial }),
    },
  };
}

/** The block id of an answer field, or of the whole answer. */
export const ANSWER_BLOCK = 'answer';
/** The block id of the edited arguments. */
export const ARGS_BLOCK = 'args';
/** The block id of a rejection's reason. */
export const REASON_BLOCK = 'reason';

/** The modal a button opens: edit the arguments, give a reason, or answer. */
export function modalOf(action: 'edit' | 'reject' | 'answer', ask: AskView, metadata: ModalMetadata): ModalView {
  const base = {
    type: 'modal' as const,
    private_metadata: JSON.stringify(metadata),
    close: { type: 'plain_text' as const, text: 'Cancel' },
  };
  const context: KnownBlock = {
    type: 'section',
    text: {
      type: 'mrkdwn',
      text: cut(
        `*${escapeMrkdwn(ask.prompt ?? ask.name)}*\nTool \`${escapeMrkdwn(ask.name)}\``,
        SLACK_LIMITS.sectionText,
      ),
    },
  };
  if (action === 'edit') {
    return {
      ...base,
      callback_id: SlackModal.Edit,
      title: { type: 'plain_text', text: 'Edit and approve' },
      submit: { type: 'plain_text', text: 'Approve' },
      blocks: [context, textInput(ARGS_BLOCK, 'Arguments (JSON)', { initial: argsText(ask), multiline: true })],
    };
  }
  if (action === 'reject') {
    return {
      ...base,
      callback_id: SlackModal.Reject,
      title: { type: 'plain_text', text: 'Reject' },
      submit: { type: 'plain_text', text: 'Reject' },
      blocks: [context, textInput(REASON_BLOCK, 'Reason', { optional: true, multiline: true, max: 2000 })],
    };
  }
  const fields = fieldsOf(ask.answerSchema);
  const required = new Set(
    typeof ask.answerSchema === 'object' && Array.isArray(ask.answerSchema.required)
      ? (ask.answerSchema.required as string[])
      : [],
  );
  return {
    ...base,
    callback_id: SlackModal.Answer,
    title: { type: 'plain_text', text: 'Answer' },
    submit: { type: 'plain_text', text: 'Send' },
    blocks: [
      context,
      ...(fields === undefined
        ? [textInput(ANSWER_BLOCK, 'Answer (JSON)', { multiline: true })]
        : fields.map((field) =>
            textInput(
              `${ANSWER_BLOCK}:${field.name}`,
              field.type === 'boolean' ? `${field.name} (true or false)` : field.name,
              {
                optional: !required.has(field.name),
              },
            ),
          )),
    ],
  };
}
