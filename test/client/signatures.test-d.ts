import { describe, expectTypeOf, it } from 'vitest';
import type {
  CancelInput,
  CheckpointStore,
  ContinuationKey,
  DecideInput,
  DecideResult,
  ListPausesQuery,
  PauseClosed,
  PauseCreated,
  PauseInput,
  PauseKey,
  PausePage,
  PauseView,
  ResumeInput,
  ResumeResult,
} from '../../functions/checkpoints/checkpoint-store.ts';
import type { HandbackClient, HandbackOperations } from '../../functions/client/index.ts';
import type { Actor } from '../../functions/wire.ts';

/** The store's input without the scope a token carries; its result without the store's bookkeeping. */
type In<T> = Omit<T, 'tenant' | 'by'>;
type Out<T> = T extends unknown ? Omit<T, 'replayed' | 'taskToken'> : never;

describe('the client’s signatures are the store’s', () => {
  it('takes the store’s inputs without tenant and by', () => {
    expectTypeOf<Parameters<HandbackClient['pause']>[0]>().toEqualTypeOf<In<PauseInput>>();
    expectTypeOf<Parameters<HandbackClient['resume']>[0]>().toEqualTypeOf<In<ResumeInput>>();
    expectTypeOf<Parameters<HandbackClient['decide']>[0]>().toEqualTypeOf<In<DecideInput>>();
    expectTypeOf<Parameters<HandbackClient['cancel']>[0]>().toEqualTypeOf<In<CancelInput>>();
    expectTypeOf<Parameters<HandbackClient['getPause']>>().toEqualTypeOf<
      [In<PauseKey>, ({ includeMessages?: boolean } | undefined)?]
    >();
    expectTypeOf<Parameters<CheckpointStore['getPause']>[1]>().toEqualTypeOf<
      { includeMessages?: boolean; by?: Actor } | undefined
    >();
    expectTypeOf<Parameters<HandbackClient['getContinuation']>[0]>().toEqualTypeOf<In<ContinuationKey>>();
    expectTypeOf<Parameters<HandbackClient['listPauses']>[0]>().toEqualTypeOf<
      (In<ListPausesQuery> & { mine?: boolean }) | undefined
    >();
  });

  it('returns the store’s results without replayed and taskToken', () => {
    expectTypeOf<ReturnType<HandbackClient['pause']>>().toEqualTypeOf<
      Promise<(Out<PauseCreated> & { answerUrl?: string }) | Out<PauseClosed>>
    >();
    expectTypeOf<ReturnType<HandbackClient['resume']>>().toEqualTypeOf<Promise<Out<ResumeResult>>>();
    expectTypeOf<ReturnType<HandbackClient['decide']>>().toEqualTypeOf<Promise<Out<DecideResult>>>();
    expectTypeOf<ReturnType<HandbackClient['cancel']>>().toEqualTypeOf<Promise<Out<ResumeResult>>>();
    expectTypeOf<ReturnType<HandbackClient['getPause']>>().toEqualTypeOf<Promise<PauseView>>();
    expectTypeOf<ReturnType<HandbackClient['getContinuation']>>().toEqualTypeOf<Promise<Out<ResumeResult>>>();
    expectTypeOf<ReturnType<HandbackClient['listPauses']>>().toEqualTypeOf<Promise<PausePage>>();
  });

  it('decides as the store does: pending or closed', () => {
    type Kinds = Awaited<ReturnType<HandbackClient['decide']>>['kind'];
    expectTypeOf<Kinds>().toEqualTypeOf<DecideResult['kind']>();
  });

  it('shares every operation but createLink with the store, by name', () => {
    expectTypeOf<keyof HandbackOperations>().toEqualTypeOf<
      Exclude<keyof CheckpointStore, 'closeDue' | 'acknowledgeHandoff' | 'stats' | 'countPending'>
    >();
  });
});
