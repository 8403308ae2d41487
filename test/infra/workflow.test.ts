import { createRequire } from 'node:module';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { RESUME_ERRORS } from '../../infra/approval-workflow.ts';
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
  Catch?: { ErrorEquals: string[]; Next: string }[];
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

  it('times the wait out when the pause expires (7 days), with no heartbeat to miss', () => {
    expect([wait.TimeoutSeconds, wait.HeartbeatSeconds]).toEqual([604_800, undefined]);
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

  it('ends as "Pause expired" on PauseExpiredError or States.Timeout', () => {
    expect(wait.Catch).toContainEqual({ ErrorEquals: ['PauseExpiredError', 'States.Timeout'], Next: 'Pause expired' });
  });

  it('ends as "Resume failed" on every other named resume error', () => {
    expect(wait.Catch).toContainEqual({
      ErrorEquals: ['InvalidAnswerError', 'AlreadyResumedError', 'PauseNotFoundError', 'CorruptCheckpointError'],
      Next: 'Resume failed',
    });
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

  it('catches every named resume error', () => {
    expect(resume.Catch).toEqual([{ ErrorEquals: [...RESUME_ERRORS], Next: 'Resume failed' }]);
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
