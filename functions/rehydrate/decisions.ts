import { BadRequestError } from '../errors.ts';
import { parseInput } from '../inputs.ts';
import { askList } from '../inputs-pause.ts';
import { listSome, reservedCalls, throwIfAny, withPlaceholders } from './core.ts';
import { type AskRule, build, type DecidedRound, type Decision, parseDecisions, plan } from './decide.ts';
import type { PausedRound } from './formats/format.ts';
import { isRecord } from './formats/shared.ts';
import { readPause } from './rehydrate.ts';

export {
  type AnswerDecision,
  type ApproveDecision,
  type AskRule,
  checkDecisions,
  type DecidedRound,
  type Decision,
  type DispatchCall,
  type EditDecision,
  parseDecisions,
  REJECTED,
  type RejectDecision,
  rebuildWithDecisions,
  rejectionText,
} from './decide.ts';

/** What `applyDecisions` needs of a pause: its format, its messages and, optionally, its asks. */
export type DecidablePause = {
  format: string;
  messages?: unknown;
  /** The pause's asks (a stored record's `asks` will do); without them any reserved call may get any decision. */
  asks?: readonly AskRule[];
  /** A part-one pause: its one `answer` ask. */
  toolCallId?: string;
  toolCall?: { id: string };
};

/**
 * The decisions counterpart of `rehydrate` (§9): pure, and it validates everything — the transcript's shape and the
 * strict check, the asks, and the decisions (as `checkDecisions`). With asks (or a part-one `toolCallId`), every ask
 * needs a decision; without, any reserved call may get any decision and the others get `NOT_DISPATCHED`. Returns the
 * rebuilt messages, which pass the strict check except for the dispatch calls' missing results, and `dispatch`.
 */
export function applyDecisions(pause: DecidablePause, decisions: readonly Decision[]): DecidedRound {
  const { format, messages } = readPause(pause);
  const round = format.findRound(messages);
  const asks = asksOf(pause, round);
  const decided = plan(format, round, asks, parseDecisions(decisions));
  const undecided = (asks ?? []).filter(
    (ask) => !decided.settled.has(ask.toolCallId) && !decided.approved.has(ask.toolCallId),
  );
  if (undecided.length > 0) {
    const ids = listSome(undecided.map((ask) => ask.toolCallId));
    throw new BadRequestError(`Every ask needs a decision; none was given for ${ids}.`, [
      { path: '/decisions', message: `no decision for ${ids}` },
    ]);
  }
  const result = build(format, messages, round, decided);
  // The strict check, with the dispatch calls' results still to come.
  const rebuiltRound = format.findRound(result.messages);
  const waiting = rebuiltRound.calls.filter((call) => decided.approved.has(call.id));
  throwIfAny(
    format.check(withPlaceholders(format, result.messages, rebuiltRound, waiting)),
    'The rebuilt transcript fails the strict transcript check',
  );
  return result;
}

/** The asks of a pause: given, or a part-one pause's one `answer` ask, or none. Parsed as a pause body's are. */
function asksOf(pause: DecidablePause, round: PausedRound): AskRule[] | undefined {
  const raw = pause.asks ?? partOneAsk(pause);
  if (raw === undefined) return undefined;
  const asks = parseInput(askList, raw, 'asks', '/asks').map(
    ({ toolCallId, kind = 'answer', editable }): AskRule =>
      editable === undefined ? { toolCallId, kind } : { toolCallId, kind, editable },
  );
  reservedCalls(
    round,
    asks.map((ask) => ask.toolCallId),
  );
  return asks;
}

function partOneAsk(pause: DecidablePause): AskRule[] | undefined {
  const id = pause.toolCallId ?? (isRecord(pause.toolCall) ? pause.toolCall.id : undefined);
  return id === undefined ? undefined : [{ toolCallId: id, kind: 'answer' }];
}
