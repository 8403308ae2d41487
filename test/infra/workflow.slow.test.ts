import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { ERROR_FATES, FINAL_ERROR_NAMES } from '../../functions/errors.ts';
import { ApprovalWorkflow, FINAL_ERRORS, RETRYABLE_ERRORS } from '../../infra/approval-workflow.ts';
import { aslErrors, definitionOf, PLACEHOLDER_FUNCTION_ARN, type State } from './asl.ts';
import { defaultSynth } from './synth.ts';

const { template } = defaultSynth();
const definition = (logicalIdPrefix: string) => definitionOf(template, logicalIdPrefix);

/** The reference workflow alone in a stack, its agent an imported function, with `pauseExpiry` as given. */
function workflowWith(pauseExpiry: Duration) {
  const stack = new Stack();
  const agent = LambdaFunction.fromFunctionArn(stack, 'Agent', PLACEHOLDER_FUNCTION_ARN);
  new ApprovalWorkflow(stack, 'ApprovalWorkflow', { agent, pauseExpiry });
  return definitionOf(Template.fromStack(stack), 'ApprovalWorkflowStateMachine');
}

describe('the reference approval workflow', () => {
  const asl = definition('ApprovalWorkflowStateMachine');
  const wait = asl.States['Wait for answer'] as State;

  it('is valid Amazon States Language', () => {
    expect(aslErrors(asl)).toBe('');
  });

  it('starts with the agent step', () => {
    expect(asl.StartAt).toBe('Agent');
  });

  it('waits for the answer with a Lambda .waitForTaskToken task', () => {
    expect(wait.Resource).toBe('arn:aws:states:::lambda:invoke.waitForTaskToken');
  });

  it('hands the agent its own pause, whole, with the task token and the expiry to record it with', () => {
    expect(wait.Parameters).toEqual({
      FunctionName: PLACEHOLDER_FUNCTION_ARN,
      Payload: {
        action: 'pause',
        'pause.$': '$.pause',
        expiresInSeconds: 604_800,
        'taskToken.$': '$$.Task.Token',
      },
    });
  });

  it('times the wait out five minutes after the pause expires (7 days), past the sweep bound, with no heartbeat', () => {
    expect([wait.TimeoutSeconds, wait.HeartbeatSeconds]).toEqual([604_800 + 300, undefined]);
  });

  it.each([
    ['an hour', Duration.hours(1), 3_600],
    ['30 days', Duration.days(30), 2_592_000],
  ])('records a pause of %s with that expiry, and times the wait out five minutes later', (_, pauseExpiry, seconds) => {
    const own = workflowWith(pauseExpiry).States['Wait for answer'] as State;
    expect([
      (own.Parameters?.Payload as { expiresInSeconds?: number } | undefined)?.expiresInSeconds,
      own.TimeoutSeconds,
      own.HeartbeatSeconds,
    ]).toEqual([seconds, seconds + 300, undefined]);
  });

  it.each([
    ['zero', Duration.seconds(0)],
    ['a year', Duration.days(365)],
  ])('refuses a pause expiry of %s, naming the range', (_, pauseExpiry) => {
    expect(() => workflowWith(pauseExpiry)).toThrow(/pauseExpiry is \d+ seconds: give 1 to 31532400/);
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

  it('catches PauseCancelledError, the error the hand-off fails the task with, keeping error and cause in $.cancellation', () => {
    expect(wait.Catch?.[0]).toEqual({
      ErrorEquals: [ERROR_FATES.pause_cancelled.name],
      Next: 'Record the cancellation',
      ResultPath: '$.cancellation',
    });
  });

  it('records the cancellation and hands the agent the cancelled pointer, parsed from the cause', () => {
    expect(asl.States['Record the cancellation']).toMatchObject({
      Type: 'Pass',
      Parameters: {
        'runId.$': '$.runId',
        'tenant.$': '$.tenant',
        'cancelled.$': '$.cancellation.Error',
        'continuation.$': 'States.StringToJson($.cancellation.Cause)',
      },
      Next: 'Agent',
    });
  });

  it('ends no run as a failure for a cancel, which would raise the alarm', () => {
    const failures = Object.entries(asl.States).filter(([, state]) => state.Type === 'Fail');
    expect(failures.map(([name]) => name).sort()).toEqual(['Pause expired', 'Resume failed']);
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
    expect(aslErrors(asl)).toBe('');
  });

  it('runs the resume handler as a plain Lambda task (the function ARN as the resource: the response payload only)', () => {
    expect([resume.Resource, resume.End]).toEqual([PLACEHOLDER_FUNCTION_ARN, true]);
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
