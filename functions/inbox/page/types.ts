/**
 * What the page reads and sends over HTTP (§5, §9–§11), as JSON: the server's own declarations (`functions/wire.ts`, a
 * leaf module with no Node or DOM types), plus the few shapes only the page needs.
 */
import type { Outcome } from '../../vocabulary.ts';
import type { AnswerFailure, DispatchCall } from '../../wire.ts';

export type {
  AnswerFailure,
  Approvers,
  AskView,
  Decision,
  JsonSchema,
  PausePage,
  PauseView,
  PendingDecisions,
  PersonView,
  Principal,
  RecordedDecisionView,
  VoteView as Vote,
} from '../../wire.ts';
export type { DecisionStats } from '../../wire-reports.ts';

/** The 200 body of a decision that closed the pause (or of a cancel), as far as the page reads it. */
export interface ContinuationBody {
  runId: string;
  interruptId: string;
  continuationId: string;
  outcome: Outcome;
  dispatch: DispatchCall[];
  resumedAt: string;
}

/** A slice of a pause's transcript. */
export interface MessagesSlice {
  messages?: unknown[];
  total?: number;
  next?: number;
  messagesOmitted?: true;
}

/** An RFC 9457 problem as the API sends it, or one the page makes for a request that got no answer. */
export interface Problem {
  status: number;
  code: string;
  title?: string;
  detail?: string;
  toolCallId?: string;
  expiresAt?: string;
  failures?: AnswerFailure[];
}
