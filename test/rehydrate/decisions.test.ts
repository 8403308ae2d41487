import { describe, expect, it } from 'vitest';
import {
  appendResults,
  applyDecisions,
  BadRequestError,
  checkTranscript,
  type Decision,
  InvalidAnswerError,
  InvalidTranscriptError,
  MissingTurnStateError,
  NOT_DISPATCHED,
  REJECTED,
  rejectionText,
} from '../../functions/index.ts';
import { checkDecisions, rebuildWithDecisions } from '../../functions/rehydrate/decisions.ts';
import { formatOf } from '../../functions/rehydrate/formats/index.ts';
import { fixtures } from '../fixtures/formats/index.ts';
import { deepFreeze, withHole } from '../fixtures/freeze.ts';
import { addressOf, type FormatFixture, type TranscriptSpec, threeCallSpec } from '../fixtures/transcript-spec.ts';

/** What a reserved call of a generated mix gets. */
type Fate = 'answer' | 'approve' | 'edit' | 'reject' | 'none';
const FATES: Fate[] = ['answer', 'approve', 'edit', 'reject', 'none'];

/** Every assignment of fates to `n` calls. */
function mixes(n: number): Fate[][] {
  if (n === 0) return [[]];
  return mixes(n - 1).flatMap((rest) => FATES.map((fate) => [fate, ...rest]));
}

function decisionOf(fate: Fate, toolCallId: string, k: number): Decision | undefined {
  switch (fate) {
    case 'answer':
      return { toolCallId, answer: { approved: k % 2 === 0, note: `answer ${k}` } };
    case 'approve':
      return { toolCallId, decision: 'approve' };
    case 'edit':
      return { toolCallId, decision: 'edit', args: { edited: k, nested: { list: [1, 'two'] } } };
    case 'reject':
      return k % 2 === 0
        ? { toolCallId, decision: 'reject', reason: `Not now (${k}).` }
        : { toolCallId, decision: 'reject' };
    case 'none':
      return undefined;
  }
}

/** The position of a call in the paused round, by the id rehydrate addresses it by. */
function positionOf(spec: TranscriptSpec, toolCallId: string): number {
  return spec.paused.calls.findIndex((_, k) => addressOf(spec, k) === toolCallId);
}

/** The text and failure mark each fate's call carries once the dispatch calls have the agent's results. */
function expectedResult(fixture: FormatFixture, fate: Fate, k: number): { text: string; failed: boolean } {
  const marks = fixture.marksFailures;
  switch (fate) {
    case 'answer':
      return { text: JSON.stringify({ approved: k % 2 === 0, note: `answer ${k}` }), failed: false };
    case 'approve':
    case 'edit':
      return { text: `ran ${k}`, failed: false };
    case 'reject':
      return { text: rejectionText(k % 2 === 0 ? `Not now (${k}).` : undefined), failed: marks };
    case 'none':
      return { text: NOT_DISPATCHED, failed: marks };
  }
}

/** A paused round of five calls, the first already answered; the other four get the mix's fates. */
function fiveCallSpec(fixture: FormatFixture): TranscriptSpec {
  const base = threeCallSpec({ answered: [0], prior: ['{"status":"shipped"}'] });
  const calls = ['lookup_order', 'ask_human', 'refund_order', 'notify', 'close_ticket'].map((name, k) => ({
    id: `call_${k}`,
    name,
    args: { k },
  }));
  return { ...base, paused: { ...base.paused, calls }, idless: fixture.format === 'gemini' };
}

describe.each(fixtures)('applyDecisions ($format)', (fixture) => {
  const { format } = fixture;

  it('settles every mix of answer, approve, edit, reject and not-asked calls, and the dispatch results complete it', () => {
    const spec = fiveCallSpec(fixture);
    const messages = deepFreeze(fixture.render(spec));
    const before = JSON.stringify(messages);
    let checked = 0;
    for (const mix of mixes(4)) {
      const decisions = mix.flatMap((fate, i) => decisionOf(fate, addressOf(spec, i + 1), i + 1) ?? []);
      if (decisions.length === 0) continue;
      const { messages: rebuilt, dispatch } = applyDecisions({ format, messages }, decisions);

      // Dispatch: the approved and edited calls, in call order, with the edited args.
      const dispatched = mix.flatMap((fate, i) => (fate === 'approve' || fate === 'edit' ? [i + 1] : []));
      expect(dispatch).toEqual(
        dispatched.map((k) => ({
          toolCallId: addressOf(spec, k),
          name: spec.paused.calls[k]?.name,
          args: mix[k - 1] === 'edit' ? { edited: k, nested: { list: [1, 'two'] } } : { k },
        })),
      );
      // The transcript passes the strict check but for the dispatch calls' missing results.
      const violations = checkTranscript(format, rebuilt);
      expect(new Set(violations.map((v) => v.rule))).toEqual(new Set(dispatch.length > 0 ? ['missing-result'] : []));
      for (const call of dispatch) expect(violations.some((v) => v.message.includes(call.toolCallId))).toBe(true);
      // Edited calls carry their new args in the transcript; every other call keeps its own.
      expect(fixture.roundCalls(rebuilt).map((call) => call.args)).toEqual(
        spec.paused.calls.map((call, k) =>
          mix[k - 1] === 'edit' ? { edited: k, nested: { list: [1, 'two'] } } : call.args,
        ),
      );

      const completed = appendResults(
        format,
        rebuilt,
        dispatch.map((call) => ({ toolCallId: call.toolCallId, output: `ran ${positionOf(spec, call.toolCallId)}` })),
      );
      expect(checkTranscript(format, completed)).toEqual([]);
      expect(fixture.roundResults(completed, spec)).toEqual([
        { id: addressOf(spec, 0), text: '{"status":"shipped"}', failed: false },
        ...mix.map((fate, i) => ({ id: addressOf(spec, i + 1), ...expectedResult(fixture, fate, i + 1) })),
      ]);
      checked++;
    }
    expect(checked).toBe(5 ** 4 - 1);
    expect(JSON.stringify(messages)).toBe(before);
  });

  it('keeps every message before the paused round byte for byte, and says where the round starts', () => {
    const spec = fiveCallSpec(fixture);
    const messages = deepFreeze(fixture.render(spec));
    const decisions: Decision[] = [
      { toolCallId: addressOf(spec, 1), answer: 'yes' },
      { toolCallId: addressOf(spec, 2), decision: 'edit', args: { k: 99 } },
      { toolCallId: addressOf(spec, 3), decision: 'reject', reason: 'No.' },
    ];
    const { messages: rebuilt, roundStart } = rebuildWithDecisions(formatOf(format), messages, decisions);
    expect(roundStart).toBeGreaterThan(0);
    expect(JSON.stringify(rebuilt.slice(0, roundStart))).toBe(JSON.stringify(messages.slice(0, roundStart)));
    rebuilt.slice(0, roundStart).forEach((message, i) => {
      expect(message).toBe(messages[i]);
    });
    expect(applyDecisions({ format, messages }, decisions).messages).toEqual(rebuilt);
  });

  it('gives the same transcript as rehydrate for one answer and nothing else decided', () => {
    const spec = threeCallSpec();
    const messages = fixture.render(spec);
    const toolCallId = addressOf(spec, 1);
    const { messages: rebuilt, dispatch } = applyDecisions({ format, messages, toolCallId }, [
      { toolCallId, answer: { ok: true } },
    ]);
    expect(dispatch).toEqual([]);
    expect(checkTranscript(format, rebuilt)).toEqual([]);
    expect(fixture.roundResults(rebuilt, spec).map((r) => r.text)).toEqual([
      NOT_DISPATCHED,
      '{"ok":true}',
      NOT_DISPATCHED,
    ]);
  });

  it('marks a rejection as a failure where the format can, with the reason on its own line', () => {
    const spec = threeCallSpec();
    const messages = fixture.render(spec);
    const { messages: rebuilt } = applyDecisions({ format, messages }, [
      { toolCallId: addressOf(spec, 0), decision: 'reject', reason: 'Too risky.' },
    ]);
    expect(fixture.roundResults(rebuilt, spec)[0]).toEqual({
      id: addressOf(spec, 0),
      text: `${REJECTED}\nReason: Too risky.`,
      failed: fixture.marksFailures,
    });
  });
});

describe('REJECTED and rejectionText', () => {
  it('says the call was declined by a person and must not be called again unless the person asks', () => {
    expect(REJECTED).toMatch(/declined/);
    expect(REJECTED).toMatch(/Do not call it again unless the person asks for it/);
  });

  it('adds the reason on its own line when one is given, and nothing for none or an empty one', () => {
    expect(rejectionText('Too expensive.')).toBe(`${REJECTED}\nReason: Too expensive.`);
    expect(rejectionText()).toBe(REJECTED);
    expect(rejectionText('')).toBe(REJECTED);
  });
});

describe('checkDecisions', () => {
  const call = (id: string, name = 'refund') => ({ id, type: 'function', function: { name, arguments: '{"a":1}' } });
  const messages = [
    { role: 'user', content: 'Refund order 42?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [call('ask', 'ask_human'), call('refund'), call('mail', 'notify'), call('done')],
    },
    { role: 'tool', tool_call_id: 'done', content: 'ok' },
  ];
  const format = formatOf('openai-chat');
  const round = format.findRound(messages);
  const asks = [
    { toolCallId: 'ask', kind: 'answer' as const },
    { toolCallId: 'refund', kind: 'approval' as const, editable: false },
    { toolCallId: 'mail', kind: 'approval' as const },
  ];
  const check =
    (decisions: unknown, withAsks = true) =>
    () =>
      checkDecisions(format, round, withAsks ? asks : undefined, decisions as Decision[]);

  it('accepts decisions of the right kind for asks, and any decision for any reserved call without asks', () => {
    expect(
      check([
        { toolCallId: 'ask', answer: 'yes' },
        { toolCallId: 'refund', decision: 'approve' },
        { toolCallId: 'mail', decision: 'edit', args: { to: 'x' } },
      ])(),
    ).toBeUndefined();
    expect(check([{ toolCallId: 'ask', decision: 'reject', reason: 'r' }])()).toBeUndefined();
    expect(
      check(
        [
          { toolCallId: 'refund', answer: 1 },
          { toolCallId: 'ask', decision: 'edit', args: {} },
        ],
        false,
      )(),
    ).toBeUndefined();
  });

  /** The error `run` throws. */
  const thrown = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return error as { failures?: Array<{ path: string; message: string }> };
    }
    throw new Error('nothing was thrown');
  };

  it.each([
    ['a call that is not an ask', [{ toolCallId: 'done', answer: 'x' }], '/decisions/0/toolCallId', /not an ask/],
    [
      'a call that is not a call at all',
      [{ toolCallId: 'nope', decision: 'approve' }],
      '/decisions/0/toolCallId',
      /not an ask/,
    ],
    [
      'an answer for an approval ask',
      [{ toolCallId: 'refund', answer: 'x' }],
      '/decisions/0/answer',
      /"refund" is an approval ask/,
    ],
    [
      'an approval of an answer ask',
      [{ toolCallId: 'ask', decision: 'approve' }],
      '/decisions/0/decision',
      /"ask" is an answer ask/,
    ],
    [
      'an edit of an answer ask',
      [{ toolCallId: 'ask', decision: 'edit', args: {} }],
      '/decisions/0/decision',
      /"ask" is an answer ask/,
    ],
    [
      'two decisions for one call',
      [
        { toolCallId: 'mail', decision: 'approve' },
        { toolCallId: 'mail', decision: 'reject' },
      ],
      '/decisions/1/toolCallId',
      /two decisions for "mail"/,
    ],
    [
      'an unknown decision',
      [{ toolCallId: 'mail', decision: 'maybe' }],
      '/decisions/0/decision',
      /"approve", "edit", "reject"/,
    ],
    [
      'both an answer and a decision',
      [{ toolCallId: 'ask', answer: 1, decision: 'approve' }],
      '/decisions/0',
      /"answer"/,
    ],
    ['neither an answer nor a decision', [{ toolCallId: 'ask' }], '/decisions/0/answer', /is required/],
    ['an answer that is undefined', [{ toolCallId: 'ask', answer: undefined }], '/decisions/0/answer', /is required/],
    ['edited args that are missing', [{ toolCallId: 'mail', decision: 'edit' }], '/decisions/0/args', /is required/],
    [
      'a reason that is not a string',
      [{ toolCallId: 'mail', decision: 'reject', reason: 7 }],
      '/decisions/0/reason',
      /string/,
    ],
    [
      'a reason over 2 KB',
      [{ toolCallId: 'mail', decision: 'reject', reason: 'é'.repeat(1025) }],
      '/decisions/0/reason',
      /2050 bytes, over the limit of 2048/,
    ],
    ['a decision that is not an object', ['approve'], '/decisions/0', /object/],
    ['a decision without a toolCallId', [{ decision: 'approve' }], '/decisions/0/toolCallId', /is required/],
    ['no decisions', [], '/decisions', /expected array to have >=1 items/],
    ['decisions that are not an array', { toolCallId: 'ask', answer: 1 }, '/decisions', /expected array/],
  ])('refuses %s with BadRequestError naming the field', (_label, decisions, path, message) => {
    expect(check(decisions)).toThrow(BadRequestError);
    expect(thrown(check(decisions)).failures).toContainEqual({ path, message: expect.stringMatching(message) });
  });

  it('refuses a call that is not an ask of the pause', () => {
    const withoutMail = asks.slice(0, 2);
    expect(() => checkDecisions(format, round, withoutMail, [{ toolCallId: 'mail', decision: 'approve' }])).toThrow(
      /"mail" is not an ask of this pause/,
    );
  });

  it.each([
    [
      'an edit of an ask that is not editable',
      [{ toolCallId: 'refund', decision: 'edit', args: { a: 2 } }],
      /not edited/,
    ],
    ['edited args that are an array', [{ toolCallId: 'mail', decision: 'edit', args: [1] }], /must be a JSON object/],
    [
      'edited args that hold a function',
      [{ toolCallId: 'mail', decision: 'edit', args: { f: () => 1 } }],
      /\/f is a function/,
    ],
    [
      'edited args that are a class instance',
      [{ toolCallId: 'mail', decision: 'edit', args: new Date(0) }],
      /must be a JSON object/,
    ],
    ['an answer that is not JSON', [{ toolCallId: 'ask', answer: { n: Number.NaN } }], /\/n is NaN/],
  ])('refuses %s with InvalidAnswerError', (_label, decisions, message) => {
    expect(check(decisions)).toThrow(InvalidAnswerError);
    expect(check(decisions)).toThrow(message);
  });

  it('points the failures of an ill-formed answer at the decision', () => {
    try {
      check([{ toolCallId: 'ask', answer: { deep: [1, undefined] } }])();
      expect.unreachable();
    } catch (error) {
      expect((error as InvalidAnswerError).failures).toEqual([
        {
          path: '/decisions/0/answer/deep/1',
          message: 'the answer is not a JSON value: /deep/1 is undefined, which JSON cannot carry',
        },
      ]);
    }
  });

  it('refuses an empty answer for bedrock-converse, which Converse cannot carry', () => {
    const bedrock = formatOf('bedrock-converse');
    const turn = [
      { role: 'user', content: [{ text: 'hi' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'a', name: 'ask', input: {} } }] },
    ];
    expect(() =>
      checkDecisions(bedrock, bedrock.findRound(turn), undefined, [{ toolCallId: 'a', answer: '' }]),
    ).toThrow(InvalidAnswerError);
    expect(() =>
      checkDecisions(bedrock, bedrock.findRound(turn), undefined, [
        { toolCallId: 'a', decision: 'reject', reason: '' },
      ]),
    ).not.toThrow();
  });
});

describe('applyDecisions', () => {
  const call = (id: string, name = 'refund') => ({ id, type: 'function', function: { name, arguments: '{"a":1}' } });
  const messages = [
    { role: 'user', content: 'Refund order 42?' },
    { role: 'assistant', content: null, tool_calls: [call('ask', 'ask_human'), call('refund')] },
  ];

  it('needs a decision for every ask of the pause', () => {
    const asks = [
      { toolCallId: 'ask', kind: 'answer' as const },
      { toolCallId: 'refund', kind: 'approval' as const },
    ];
    expect(() => applyDecisions({ format: 'openai-chat', messages, asks }, [{ toolCallId: 'ask', answer: 1 }])).toThrow(
      /none was given for "refund"/,
    );
  });

  it('reads the asks of a stored pause record, kind defaulting to answer', () => {
    const asks = [
      { toolCallId: 'ask', name: 'ask_human', args: {}, prompt: 'Why?' },
      { toolCallId: 'refund', kind: 'approval' },
    ];
    const pause = { format: 'openai-chat', messages, asks } as unknown as Parameters<typeof applyDecisions>[0];
    const { dispatch } = applyDecisions(pause, [
      { toolCallId: 'ask', answer: 'because' },
      { toolCallId: 'refund', decision: 'approve' },
    ]);
    expect(dispatch).toEqual([{ toolCallId: 'refund', name: 'refund', args: { a: 1 } }]);
    expect(() => applyDecisions(pause, [{ toolCallId: 'ask', decision: 'approve' }])).toThrow(/is an answer ask/);
  });

  it('takes a part-one pause record as one answer ask', () => {
    const record = { format: 'openai-chat', messages, toolCall: { id: 'ask' } };
    expect(applyDecisions(record, [{ toolCallId: 'ask', answer: 'y' }]).messages).toHaveLength(4);
    expect(() => applyDecisions(record, [{ toolCallId: 'refund', decision: 'approve' }])).toThrow(/not an ask/);
  });

  it.each([
    ['asks that are not an array', { toolCallId: 'ask' }, /asks Invalid input: expected array/],
    ['no asks', [], /expected array to have >=1 items/],
    ['seventeen asks', Array.from({ length: 17 }, (_, n) => ({ toolCallId: `ask${n}` })), /<=16 items/],
    ['an ask without a toolCallId', [{ kind: 'answer' }], /asks\/0\/toolCallId is required/],
    ['an ask that is not an object', ['ask'], /asks\/0 Invalid input: expected object/],
    ['an unknown kind', [{ toolCallId: 'ask', kind: 'vote' }], /asks\/0\/kind Invalid option/],
    [
      'editable that is not a boolean',
      [{ toolCallId: 'refund', kind: 'approval', editable: 'no' }],
      /asks\/0\/editable Invalid input: expected boolean/,
    ],
    ['two asks for one call', [{ toolCallId: 'ask' }, { toolCallId: 'ask' }], /is asked twice/],
  ])('refuses %s with BadRequestError', (_label, asks, message) => {
    const pause = { format: 'openai-chat', messages, asks } as unknown as Parameters<typeof applyDecisions>[0];
    expect(() => applyDecisions(pause, [{ toolCallId: 'ask', answer: 1 }])).toThrow(BadRequestError);
    expect(() => applyDecisions(pause, [{ toolCallId: 'ask', answer: 1 }])).toThrow(message);
  });

  it('refuses an ask that is not a reserved call with InvalidTranscriptError', () => {
    const pause = { format: 'openai-chat', messages, asks: [{ toolCallId: 'gone', kind: 'answer' as const }] };
    expect(() => applyDecisions(pause, [{ toolCallId: 'ask', answer: 1 }])).toThrow(InvalidTranscriptError);
  });

  it('refuses a missing transcript, an unknown format and an ill-shaped or invalid transcript', () => {
    const decisions: Decision[] = [{ toolCallId: 'ask', answer: 1 }];
    expect(() => applyDecisions({ format: 'openai-chat', messages: [] }, decisions)).toThrow(MissingTurnStateError);
    expect(() => applyDecisions(null as never, decisions)).toThrow(MissingTurnStateError);
    expect(() => applyDecisions({ format: 'cohere', messages }, decisions)).toThrow(/Unknown message format/);
    expect(() => applyDecisions({ format: 'openai-chat', messages: withHole(messages, 0) }, decisions)).toThrow(
      /does not have the shape/,
    );
    const earlier = [messages[0], { role: 'assistant', content: null, tool_calls: [call('x')] }, ...messages];
    expect(() => applyDecisions({ format: 'openai-chat', messages: earlier }, decisions)).toThrow(
      /fails the strict transcript check/,
    );
  });

  it('leaves an all-approved round without new results: the same messages, the edits in place', () => {
    const { messages: rebuilt, dispatch } = applyDecisions({ format: 'openai-chat', messages }, [
      { toolCallId: 'ask', decision: 'approve' },
      { toolCallId: 'refund', decision: 'edit', args: { a: 2 } },
    ]);
    expect(rebuilt).toHaveLength(2);
    expect(rebuilt[0]).toBe(messages[0]);
    expect(rebuilt[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [call('ask', 'ask_human'), { ...call('refund'), function: { name: 'refund', arguments: '{"a":2}' } }],
    });
    expect(dispatch.map((d) => d.args)).toEqual([{ a: 1 }, { a: 2 }]);
  });
});
