import { describe, expect, it } from 'vitest';
import { ERROR_FATES } from '../../functions/errors.ts';
import { aslErrors, definitionOf, type State } from '../infra/asl.ts';
import { defaultSynth } from '../infra/synth.ts';
import { fencedBlocks, readPage } from './markdown.ts';

/**
 * docs/step-functions.md's state is what a state machine author can paste: valid Amazon States Language in a machine
 * of its own, and the reference workflow's waiting state, field for field, but for the function it invokes.
 */

const PAGE = 'docs/step-functions.md';
const blocks = fencedBlocks(readPage(PAGE));
const block = blocks.find((found) => found.attributes.asl === 'wait-for-answer');
const documented = JSON.parse(block?.code ?? '{}') as State;
const generated = definitionOf(defaultSynth().template, 'ApprovalWorkflowStateMachine').States[
  'Wait for answer'
] as State;

/** The documented state in a machine of its own, its `Next` and `Catch` targets there as end states. */
function machineOf(state: State) {
  return {
    StartAt: 'Wait for answer',
    States: {
      'Wait for answer': state,
      [state.Next as string]: { Type: 'Succeed' },
      ...Object.fromEntries((state.Catch ?? []).map((rule) => [rule.Next, { Type: 'Succeed' }])),
    },
  };
}

describe('the Step Functions page', () => {
  it('opens with its state, at most 15 lines of JSON', () => {
    expect([blocks[0] === block, block !== undefined, (block?.code.split('\n').length ?? 99) <= 15]).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('shows a state asl-validator accepts', () => {
    expect(aslErrors(machineOf(documented))).toBe('');
  });

  it("shows the reference workflow's waiting state: the resource, the payload, the timeout and where the answer goes", () => {
    const pick = (state: State) => ({
      Resource: state.Resource,
      Payload: state.Parameters?.Payload,
      TimeoutSeconds: state.TimeoutSeconds,
      HeartbeatSeconds: state.HeartbeatSeconds,
      ResultPath: state.ResultPath,
      Next: state.Next,
    });
    expect(pick(documented)).toEqual(pick(generated));
  });

  it('catches the cancel by the name the hand-off fails the task with, as the reference workflow does', () => {
    expect(documented.Catch).toEqual([
      {
        ErrorEquals: [ERROR_FATES.pause_cancelled.name],
        ResultPath: '$.cancellation',
        Next: 'Record the cancellation',
      },
    ]);
    expect(generated.Catch).toContainEqual(documented.Catch?.[0]);
  });
});
