import { expectTypeOf, test } from 'vitest';
import type * as Server from '../../functions/checkpoints/checkpoint-store.ts';
import type { AnswerFailure } from '../../functions/errors.ts';
import type * as Page from '../../functions/inbox/page/types.ts';
import type { Decision } from '../../functions/rehydrate/decisions.ts';
import type { ResumeBody } from '../../functions/resume/fit.ts';

// The page reads the API's JSON shapes from the server's own leaf module (`functions/wire.ts`); these hold what the
// server sends and takes to what the page reads and sends, so a change on either side fails the typecheck.

test('what the server sends, the page can read', () => {
  expectTypeOf<Server.PauseView>().toExtend<Page.PauseView>();
  expectTypeOf<Server.AskView>().toExtend<Page.AskView>();
  expectTypeOf<Server.PausePage>().toExtend<Page.PausePage>();
  expectTypeOf<Server.PendingDecisions>().toExtend<Page.PendingDecisions>();
  expectTypeOf<Server.RecordedDecisionView>().toEqualTypeOf<Page.RecordedDecisionView>();
  expectTypeOf<Server.JsonSchema>().toEqualTypeOf<Page.JsonSchema>();
  expectTypeOf<AnswerFailure>().toEqualTypeOf<Page.AnswerFailure>();
  expectTypeOf<
    Required<Omit<ResumeBody, 'messages' | 'messagesOmitted' | 'total' | 'format'>>
  >().toExtend<Page.ContinuationBody>();
});

test('what the page sends, the server takes', () => {
  expectTypeOf<Page.Decision>().toExtend<Decision>();
});
