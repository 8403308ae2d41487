import { expectTypeOf, test } from 'vitest';
import type * as Server from '../../functions/checkpoints/checkpoint-store.ts';
import type { AnswerFailure } from '../../functions/errors.ts';
import type * as Page from '../../functions/inbox/page/types.ts';
import type { Decision } from '../../functions/rehydrate/decisions.ts';
import type { ResumeBody } from '../../functions/resume/fit.ts';

// The page writes out the API's JSON shapes (it is type-checked for the browser, the server for Node); these hold
// its copies to the server's own types, so a change on either side fails `npm run typecheck` and vitest's typecheck.

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
