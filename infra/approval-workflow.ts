import { CfnResource, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  Choice,
  Condition,
  DefinitionBody,
  Errors,
  Fail,
  IntegrationPattern,
  JsonPath,
  LogLevel,
  Pass,
  StateMachine,
  Succeed,
  TaskInput,
  Timeout,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';

/**
 * The error names a resume can end with that no retry will fix (CONTRACT §7): `Catch` matches on them, so a failed
 * resume ends the execution with its reason instead of a generic `States.TaskFailed`.
 */
export const RESUME_ERRORS = [
  'PauseExpiredError',
  'InvalidAnswerError',
  'AlreadyResumedError',
  'PauseNotFoundError',
  'CorruptCheckpointError',
] as const;

/** The default pause expiry, the contract's `expiresInSeconds` default: 7 days. */
export const DEFAULT_PAUSE_EXPIRY = Duration.days(7);

/** Props shared by the two workflows. */
interface WorkflowLoggingProps {
  /**
   * How long execution logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the log group when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/** Props of {@link ApprovalWorkflow}. */
export interface ApprovalWorkflowProps extends WorkflowLoggingProps {
  /**
   * The agent: invoked as `{runId, tenant?, continuation?}`, it returns `{runId, tenant, status: 'paused', pause}` when
   * a person must answer (`pause` is the pause body of CONTRACT §5 without `taskToken`) or `{runId, tenant, status:
   * 'done', ...}`; invoked as `{action: 'pause', runId, tenant, pause, expiresInSeconds, taskToken}` it records the
   * pause with that task token (the store's `pause`). `infra/example-agent/handler.ts` is a small example.
   */
  readonly agent: IFunction;
  /**
   * How long a pause waits for its answer: the `expiresInSeconds` the agent records and the waiting state's timeout,
   * so the execution gives up exactly when the pause expires.
   * @default Duration.days(7)
   */
  readonly pauseExpiry?: Duration;
}

/** The shared Catch targets: the error name and cause are kept as the execution's own. */
function failure(scope: Construct, id: string, comment: string): Fail {
  return new Fail(scope, id, {
    comment,
    errorPath: JsonPath.stringAt('$.Error'),
    causePath: JsonPath.stringAt('$.Cause'),
  });
}

/** A state machine's log group and settings: every event, without execution data (transcripts may hold personal data). */
function workflowLogs(scope: Construct, props: WorkflowLoggingProps) {
  const destination = new LogGroup(scope, 'Logs', {
    retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
  });
  return { destination, level: LogLevel.ALL, includeExecutionData: false };
}

/** How cdk-nag names `<function ARN>:*` in its findings: the logical id for a function of this app, the ARN otherwise. */
function invokeWildcardFinding(fn: IFunction): string {
  const child = fn.node.defaultChild;
  const arn = CfnResource.isCfnResource(child) ? `<${Stack.of(child).getLogicalId(child)}.Arn>` : fn.functionArn;
  return `AwsSolutions-IAM5[Resource::${arn}:*]`;
}

/** The acknowledgements every workflow role needs, with why. */
function acknowledgeWorkflowRole(stateMachine: StateMachine, invoked: IFunction[]): void {
  Validations.of(stateMachine).acknowledge(
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'CloudWatch Logs delivery (logs:CreateLogDelivery and friends) and X-Ray (xray:PutTraceSegments) support no resource-level permissions; CDK grants exactly those on "*".',
    },
    ...invoked.map((fn) => ({
      id: invokeWildcardFinding(fn),
      reason:
        'The LambdaInvoke task grants lambda:InvokeFunction on the function and its versions and aliases (<arn>:*): still the one function.',
    })),
  );
}

/**
 * A reference workflow a user adapts: the agent step runs; when it pauses, a `.waitForTaskToken` step has the agent
 * record the pause with the task token and waits; the person answers through the HTTP API; Handback's resume calls
 * `SendTaskSuccess` with the continuation pointer; the agent step runs again from the continuation. A resume that
 * cannot succeed ends the execution with its error name; so does a pause left unanswered past its expiry.
 */
export class ApprovalWorkflow extends Construct {
  /** The state machine. */
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: ApprovalWorkflowProps) {
    super(scope, id);
    const expiry = props.pauseExpiry ?? DEFAULT_PAUSE_EXPIRY;

    const expired = failure(this, 'Pause expired', 'The pause went unanswered until it expired.');
    const resumeFailed = failure(this, 'Resume failed', 'The resume can never succeed: the error names why.');

    const agent = new LambdaInvoke(this, 'Agent', {
      lambdaFunction: props.agent,
      comment: 'Runs the agent turn, from the continuation when there is one.',
      payloadResponseOnly: true,
      retryOnServiceExceptions: true,
    });
    agent.addCatch(resumeFailed, { errors: [...RESUME_ERRORS] });

    const waitForAnswer = new LambdaInvoke(this, 'Wait for answer', {
      lambdaFunction: props.agent,
      comment: "Records the pause with this step's task token, then waits for the resume's SendTaskSuccess.",
      integrationPattern: IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      payload: TaskInput.fromObject({
        action: 'pause',
        runId: JsonPath.stringAt('$.runId'),
        tenant: JsonPath.stringAt('$.tenant'),
        pause: JsonPath.objectAt('$.pause'),
        expiresInSeconds: expiry.toSeconds(),
        taskToken: JsonPath.taskToken,
      }),
      taskTimeout: Timeout.duration(expiry),
      resultPath: '$.continuation',
    });
    waitForAnswer.addCatch(expired, { errors: ['PauseExpiredError', Errors.TIMEOUT] });
    waitForAnswer.addCatch(resumeFailed, { errors: RESUME_ERRORS.filter((name) => name !== 'PauseExpiredError') });

    const next = new Pass(this, 'Continue from the answer', {
      comment: 'Hands the agent only what it needs: the run, the tenant and the continuation pointer.',
      parameters: {
        runId: JsonPath.stringAt('$.runId'),
        tenant: JsonPath.stringAt('$.tenant'),
        continuation: JsonPath.objectAt('$.continuation'),
      },
    });

    const definition = agent.next(
      new Choice(this, 'Needs a person?')
        .when(Condition.stringEquals('$.status', 'paused'), waitForAnswer.next(next).next(agent))
        .otherwise(new Succeed(this, 'Done')),
    );

    this.stateMachine = new StateMachine(this, 'StateMachine', {
      definitionBody: DefinitionBody.fromChainable(definition),
      comment: 'Handback reference workflow: an agent turn that pauses for a person and resumes from the answer.',
      tracingEnabled: true,
      logs: workflowLogs(this, props),
    });
    acknowledgeWorkflowRole(this.stateMachine, [props.agent]);
  }
}

/** Props of {@link ResumeWorkflow}. */
export interface ResumeWorkflowProps extends WorkflowLoggingProps {
  /** The Step Functions resume handler: input `{runId, interruptId, answer, tenant?}`, output the resume body. */
  readonly resumeFunction: IFunction;
}

/**
 * The resume as a plain Lambda task, for workflows that resume themselves: start an execution (or copy the `Resume`
 * state) with `{runId, interruptId, answer, tenant?}`; the output is the continuation, and a resume that cannot
 * succeed fails with its error name.
 */
export class ResumeWorkflow extends Construct {
  /** The state machine. */
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: ResumeWorkflowProps) {
    super(scope, id);
    const resume = new LambdaInvoke(this, 'Resume', {
      lambdaFunction: props.resumeFunction,
      comment: 'Answers the pause exactly once and hands the continuation off.',
      payloadResponseOnly: true,
      retryOnServiceExceptions: true,
    });
    resume.addCatch(failure(this, 'Resume failed', 'The resume can never succeed: the error names why.'), {
      errors: [...RESUME_ERRORS],
    });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      definitionBody: DefinitionBody.fromChainable(resume),
      comment: 'Handback resume: one Lambda task.',
      tracingEnabled: true,
      logs: workflowLogs(this, props),
    });
    acknowledgeWorkflowRole(this.stateMachine, [props.resumeFunction]);
  }
}
