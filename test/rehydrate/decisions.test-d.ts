import { describe, expectTypeOf, it } from 'vitest';
import type {
  appendResults,
  applyDecisions,
  Decision,
  DispatchCall,
  REJECTED,
  rejectionText,
} from '../../functions/index.ts';
import type { checkDecisions, rebuildWithDecisions } from '../../functions/rehydrate/decisions.ts';
import type { MessageFormat, PausedRound, ToolCall } from '../../functions/rehydrate/formats/format.ts';
import type { validatePauseAsks } from '../../functions/rehydrate/rehydrate.ts';

/** The shapes the store (and a user's agent) calls: pinned, so a change to them is a deliberate one. */
describe('the part-two API’s types', () => {
  it('takes the four kinds of decision, told apart by answer or decision', () => {
    expectTypeOf<{ toolCallId: string; answer: unknown }>().toExtend<Decision>();
    expectTypeOf<{ toolCallId: string; decision: 'approve' }>().toExtend<Decision>();
    expectTypeOf<{ toolCallId: string; decision: 'edit'; args: Record<string, unknown> }>().toExtend<Decision>();
    expectTypeOf<{ toolCallId: string; decision: 'reject'; reason?: string }>().toExtend<Decision>();
    expectTypeOf<{ toolCallId: string; decision: 'edit' }>().not.toExtend<Decision>();
  });

  it('returns the messages and the calls to dispatch', () => {
    expectTypeOf<ReturnType<typeof applyDecisions>>().toEqualTypeOf<{
      messages: unknown[];
      dispatch: DispatchCall[];
    }>();
    expectTypeOf<DispatchCall>().toEqualTypeOf<{ toolCallId: string; name: string; args: unknown }>();
  });

  it('gives the store a trusted rebuild that says where the round starts, with the words of a policy’s rejections', () => {
    expectTypeOf<Parameters<typeof rebuildWithDecisions>>().toEqualTypeOf<
      [
        format: MessageFormat,
        messages: readonly unknown[],
        decisions: readonly Decision[],
        rejections?: ReadonlyMap<string, string>,
      ]
    >();
    expectTypeOf<ReturnType<typeof rebuildWithDecisions>>().toExtend<{
      messages: unknown[];
      dispatch: DispatchCall[];
      roundStart: number;
    }>();
  });

  it('gives the store a check of decisions that returns nothing, and the pause-time check of several asks', () => {
    expectTypeOf<ReturnType<typeof checkDecisions>>().toEqualTypeOf<void>();
    expectTypeOf<ReturnType<typeof validatePauseAsks>>().toEqualTypeOf<{ round: PausedRound; calls: ToolCall[] }>();
  });

  it('takes the agent’s results as {toolCallId, output, isError?} and returns the messages', () => {
    expectTypeOf<typeof appendResults>()
      .parameter(2)
      .toEqualTypeOf<readonly { toolCallId: string; output: unknown; isError?: boolean }[]>();
    expectTypeOf<ReturnType<typeof appendResults>>().toEqualTypeOf<unknown[]>();
  });

  it('exports the rejection text as a string and its builder', () => {
    expectTypeOf<typeof REJECTED>().toExtend<string>();
    expectTypeOf<typeof rejectionText>().toEqualTypeOf<(reason?: string) => string>();
  });
});
