import { createRequire } from 'node:module';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ERROR_FATES, FINAL_ERROR_NAMES } from '../../functions/errors.ts';
import { FINAL_ERRORS, RETRYABLE_ERRORS } from '../../infra/approval-workflow.ts';
import { defaultSynth } from './synth.ts';

/** asl-validator ships no types: its one function, as its README documents it. */
type AslValidator = (
  definition: unknown,
  options?: { checkPaths?: boolean; checkArn?: boolean },
) => { isValid: boolean; errorsText: (separator?: string) => string };
const aslValidator = createRequire(import.meta.url)('asl-validator') as AslValidator;

const { template } = defaultSynth();

/** A state's fields, loosely: what the tests read. */
interface State {
  Type: string;
  Resource?: string;
  Next?: string;
  End?: boolean;
  TimeoutSeconds?: number;
  HeartbeatSeconds?: number;
  ResultPath?: string;
  Parameters?: Record<string, unknown>;
  Catch?: { ErrorEquals: string[]; Next: string; ResultPath?: string }[];
  Retry?: { ErrorEquals: string[]; IntervalSeconds?: number; MaxAttempts?: number; BackoffRate?: number }[];
  Choices?: { Variable: string; StringEquals?: string; Next: string }[];
  Default?: string;
  ErrorPath?: string;
  CausePath?: string;
}

/**
 * A state machine's definition as Step Functions would see it: the `Fn::Join` parts joined, the partition as `aws`
 * and every function ARN replaced with a well-formed one.
 */
function definition(logicalIdPrefix: string): { StartAt: string; States: Record<string, State> } {
  const machines = template.findResources('AWS::StepFunctions::StateMachine');
  const id = Object.keys(machines).find((key) => key.startsWith(logicalIdPrefix));
  expect(id).toBeDefined();
  const parts = machines[id as string]?.Properties.DefinitionString['Fn::Join'][1] as unknown[];
  const text = parts
    .map((part) => {
      if (typeof part === 'string') return part;
      if (JSON.stringify(part) === '{"Ref":"AWS::Partition"}') return 'aws';
      return 'arn:aws:lambda:eu-west-1:111122223333:function:placeholder';
    })
    .join('');
  return JSON.parse(text);
}

describe('the reference approval workflow', () => {
  const asl = definition('ApprovalWorkflowStateMachine');
  const wait = asl.States['Wait for answer'] as State;

  it('is valid Amazon States Language', () => {
    const result = aslValidator(asl, { checkPaths: true, checkArn: true });
    expect(result.isValid, result.errorsText('\n')).toBe(true);
  });

  it('starts with the agent step', () => {
    expect(asl.StartAt).toBe('Agent');
  });

  it('waits for the answer with a Lambda .waitForTaskToken task', () => {
    expect(wait.Resource).toBe('arn:aws:states:::lambda:invoke.waitForTaskToken');
  });

  it('hands the task token, the pause and its expiry to the agent to record the pause', () => {
    expect(wait.Parameters).toEqual({
      FunctionName: 'arn:aws:lambda:eu-west-1:111122223333:function:placeholder',
      Payload: {
        action: 'pause',
        'runId.$': '$.runId',
        'tenant.$': '$.tenant',
        'pause.$': '$.pause',
        expiresInSeconds: 604_800,
        'taskToken.$': '$$.Task.Token',
      },
    });
  });

  it('times the wait out five minutes after the pause expires (7 days), past the sweep bound, with no heartbeat', () => {
    expect([wait.TimeoutSeconds, wait.HeartbeatSeconds]).toEqual([604_800 + 300, undefined]);
  });

  it('goes to the paused branch only when the agent says paused', () => {
    expect(asl.States['Needs a person?']).toMatchObject({
      Type: 'Choice',
      Choices: [{ Variable: '$.status', StringEquals: 'paused', Next: 'Wait for answer' }],
      Default: 'Done',
    });
  });

  it('feeds the continuation pointer back to the agent step', () => {
    expect([wait.ResultPath, wait.Next, asl.States['Continue from the answer']?.Next]).toEqual([
      '$.continuation',
      'Continue from the answer',
      'Agent',
    ]);
  });

  it('ends as "Cancelled" on PauseCancelledError, keeping the error and the pointer in $.cancellation', () => {
    expect(wait.Catch?.[0]).toEqual({
      ErrorEquals: ['PauseCancelledError'],
      Next: 'Cancelled',
      ResultPath: '$.cancellation',
    });
  });

  it('ends a cancelled run as a success, not a failure that would raise the alarm', () => {
    expect(asl.States.Cancelled?.Type).toBe('Succeed');
  });

  it('ends as "Pause expired" on PauseExpiredError or States.Timeout', () => {
    expect(wait.Catch).toContainEqual({ ErrorEquals: ['PauseExpiredError', 'States.Timeout'], Next: 'Pause expired' });
  });

  it('ends as "Resume failed" on every other final error', () => {
    expect(wait.Catch).toContainEqual({
      ErrorEquals: FINAL_ERROR_NAMES.filter((name) => name !== 'PauseExpiredError' && name !== 'PauseCancelledError'),
      Next: 'Resume failed',
    });
  });

  it('retries the wait on no Handback error, since a retry would record the pause again under a new task token', () => {
    const retried = (wait.Retry ?? []).flatMap((retry) => retry.ErrorEquals);
    expect(retried.filter((name) => !name.startsWith('Lambda.'))).toEqual([]);
  });

  it('retries the agent step on the retryable errors, with backoff', () => {
    expect(asl.States.Agent?.Retry).toContainEqual({
      ErrorEquals: [...RETRYABLE_ERRORS],
      IntervalSeconds: 2,
      MaxAttempts: 3,
      BackoffRate: 2,
    });
  });

  it('ends the agent step as "Resume failed" on every final error', () => {
    expect(asl.States.Agent?.Catch).toEqual([{ ErrorEquals: [...FINAL_ERROR_NAMES], Next: 'Resume failed' }]);
  });

  it('keeps the error name and cause of the failure', () => {
    expect(asl.States['Resume failed']).toMatchObject({ Type: 'Fail', ErrorPath: '$.Error', CausePath: '$.Cause' });
  });
});

describe('the resume workflow', () => {
  const asl = definition('ResumeWorkflowStateMachine');
  const resume = asl.States.Resume as State;

  it('is valid Amazon States Language', () => {
    const result = aslValidator(asl, { checkPaths: true, checkArn: true });
    expect(result.isValid, result.errorsText('\n')).toBe(true);
  });

  it('runs the resume handler as a plain Lambda task (the function ARN as the resource: the response payload only)', () => {
    expect([resume.Resource, resume.End]).toEqual(['arn:aws:lambda:eu-west-1:111122223333:function:placeholder', true]);
  });

  it('catches every final error', () => {
    expect(resume.Catch).toEqual([{ ErrorEquals: [...FINAL_ERROR_NAMES], Next: 'Resume failed' }]);
  });

  it('retries the retryable errors, since a resume is safe to repeat', () => {
    expect(resume.Retry).toContainEqual(expect.objectContaining({ ErrorEquals: [...RETRYABLE_ERRORS] }));
  });
});

describe('the error names the workflows match', () => {
  it('are the final names of the table of error fates', () => {
    expect(FINAL_ERRORS).toEqual(
      Object.values(ERROR_FATES)
        .filter((fate) => !fate.retryable)
        .map((fate) => fate.name),
    );
  });

  it('split the table of error fates between Catch and Retry, with nothing left over', () => {
    expect([...FINAL_ERRORS, ...RETRYABLE_ERRORS].sort()).toEqual(
      Object.values(ERROR_FATES)
        .map((fate) => fate.name)
        .sort(),
    );
  });
});

describe('both workflows', () => {
  it('log every event, without execution data (transcripts may name a person), and trace with X-Ray', () => {
    template.allResourcesProperties('AWS::StepFunctions::StateMachine', {
      LoggingConfiguration: Match.objectLike({ Level: 'ALL', IncludeExecutionData: false }),
      TracingConfiguration: { Enabled: true },
    });
  });
});
