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
import { ERROR_FATES, FINAL_ERROR_NAMES } from '../functions/errors.ts';
import { LIMITS } from '../functions/vocabulary.ts';

/**
 * The error names no retry will fix, from the one table of error fates (`ERROR_FATES`): `Catch` matches on them, so a
 * failed step ends the execution with its reason instead of a generic `States.TaskFailed`.
 */
export const FINAL_ERRORS: readonly string[] = FINAL_ERROR_NAMES;

/** The error names a later attempt may get past (storage timeouts, a refused hand-off, a rolling deploy): `Retry`. */
export const RETRYABLE_ERRORS: readonly string[] = Object.values(ERROR_FATES)
  .filter((fate) => fate.retryable)
  .map((fate) => fate.name);

/** The name a cancelled pause's task fails with (`SendTaskFailure`, §10). */
const PAUSE_CANCELLED = ERROR_FATES.pause_cancelled.name;
/** The name of an unanswered pause past its expiry. */
const PAUSE_EXPIRED = ERROR_FATES.pause_expired.name;

/** The default pause expiry, the contract's `expiresInSeconds` default (7 days). */
export const DEFAULT_PAUSE_EXPIRY = Duration.seconds(LIMITS.expiresInSeconds.default);

/**
 * How long the waiting step waits beyond the pause's expiry (`LIMITS.expiryGraceSeconds`): the sweep's bound (it
 * closes an expired pause within two minutes) and three more for its hand-off, so that the sweep completes the task
 * (`outcome: "expired"`) before the step's own timeout can.
 */
export const WAIT_BEYOND_EXPIRY = Duration.seconds(LIMITS.expiryGraceSeconds);

/** What a reference workflow's execution allows beyond the wait: the agent's own steps before and after it. */
export const AGENT_STEPS = Duration.hours(1);

/**
 * The longest pause the reference workflow takes: Step Functions' one-year execution limit (also the contract's
 * longest `expiresInSeconds`) less `AGENT_STEPS`, for the wait beyond expiry and the agent's own steps.
 */
export const MAX_PAUSE_EXPIRY = Duration.seconds(LIMITS.expiresInSeconds.max - AGENT_STEPS.toSeconds());

/** Props shared by the two workflows. */
interface WorkflowLoggingProps {
  /**
   * How long execution logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the log group when the stack is deleted.
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/** Props of {@link ApprovalWorkflow}. */
export interface ApprovalWorkflowProps extends WorkflowLoggingProps {
  /**
   * The agent: invoked as `{runId, tenant?, continuation?}`, it returns `{runId, tenant, status: 'paused', pause}` when
   * a person must decide (`pause` is the store's pause input — `tenant`, `runId`, `asks`, `onExpiry`, `fourEyes`, … —
   * without `taskToken` and `expiresInSeconds`) or `{runId, tenant, status: 'done', ...}`; `continuation` is the
   * hand-off pointer `{runId, interruptId, continuationId, format, outcome, dispatch, messages?}`, whose `dispatch`
   * calls the agent runs before going on. Invoked as `{action: 'pause', pause, expiresInSeconds, taskToken}` it
   * records the pause with that task token (the store's `pause`). `infra/example-agent/handler.ts` is a small example.
   */
  readonly agent: IFunction;
  /**
   * How long a pause waits for its answer: the `expiresInSeconds` the agent records; the waiting state times out
   * `WAIT_BEYOND_EXPIRY` later, so the sweep closes the pause first. At most `MAX_PAUSE_EXPIRY`.
   * @default `DEFAULT_PAUSE_EXPIRY` (`LIMITS.expiresInSeconds.default`)
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
    removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
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
 * A reference workflow a user adapts (docs/step-functions.md): the agent step runs; when it pauses — asks of either
 * kind, with `approvers`, `approvals` and `fourEyes` as §13 has them, all passed through untouched — a
 * `.waitForTaskToken` step has the agent record the pause with the task token and waits; people decide through the
 * HTTP API, the inbox, a channel or a trigger; Handback's closing calls `SendTaskSuccess` with the continuation
 * pointer (`outcome: "resumed"`, or `"expired"` when the sweep closes an `onExpiry: "reject"` pause); the agent step
 * runs the approved calls and goes on from the continuation. A cancel (`SendTaskFailure` with `PauseCancelledError`,
 * the pointer as its cause) is caught and recorded, and the agent goes on from the cancelled pointer; a step that can
 * never succeed ends the execution with its error name; a pause still open when the wait times out (an
 * `onExpiry: "fail"` pause) ends it as "Pause expired".
 */
export class ApprovalWorkflow extends Construct {
  /** The state machine. */
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: ApprovalWorkflowProps) {
    super(scope, id);
    const expiry = props.pauseExpiry ?? DEFAULT_PAUSE_EXPIRY;
    if (expiry.toSeconds() < 1 || expiry.toSeconds() > MAX_PAUSE_EXPIRY.toSeconds()) {
      throw new Error(
        `ApprovalWorkflow pauseExpiry is ${expiry.toSeconds()} seconds: give 1 to ${MAX_PAUSE_EXPIRY.toSeconds()}, so that the wait (the expiry and the sweep's bound) fits Step Functions' one-year execution limit.`,
      );
    }

    const expired = failure(this, 'Pause expired', 'The pause went unanswered until it expired.');
    const resumeFailed = failure(this, 'Resume failed', 'The step can never succeed: the error names why.');
    // A cancel commits a continuation like any closing (§10), its pointer the task failure's cause: the agent goes on
    // from it (nothing to dispatch, every call rejected with the reason) and decides what to tell the user.
    const cancelled = new Pass(this, 'Record the cancellation', {
      comment:
        'A person cancelled the pause (PauseCancelledError): keeps the error and hands the agent the pointer, the cause.',
      parameters: {
        runId: JsonPath.stringAt('$.runId'),
        tenant: JsonPath.stringAt('$.tenant'),
        cancelled: JsonPath.stringAt('$.cancellation.Error'),
        continuation: JsonPath.stringToJson(JsonPath.stringAt('$.cancellation.Cause')),
      },
    });

    const agent = new LambdaInvoke(this, 'Agent', {
      lambdaFunction: props.agent,
      comment: 'Runs the agent turn: the approved calls of the continuation first, when there is one.',
      payloadResponseOnly: true,
      retryOnServiceExceptions: true,
    });
    agent.addRetry({
      errors: [...RETRYABLE_ERRORS],
      interval: Duration.seconds(2),
      maxAttempts: 3,
      backoffRate: 2,
    });
    agent.addCatch(resumeFailed, { errors: [...FINAL_ERRORS] });

    const waitForAnswer = new LambdaInvoke(this, 'Wait for answer', {
      lambdaFunction: props.agent,
      comment: "Records the pause with this step's task token, then waits for the resume's SendTaskSuccess.",
      integrationPattern: IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      // The agent's pause as it returned it (run and tenant included), with only what this state adds to it.
      payload: TaskInput.fromObject({
        action: 'pause',
        pause: JsonPath.objectAt('$.pause'),
        expiresInSeconds: expiry.toSeconds(),
        taskToken: JsonPath.taskToken,
      }),
      taskTimeout: Timeout.duration(expiry.plus(WAIT_BEYOND_EXPIRY)),
      resultPath: '$.continuation',
    });
    // No Retry on Handback's errors here (only CDK's on Lambda service exceptions): a retried step records the pause
    // again under a new task token, which the first attempt's pause, if it was committed, refuses as open_pause_exists.
    waitForAnswer.addCatch(cancelled, { errors: [PAUSE_CANCELLED], resultPath: '$.cancellation' });
    waitForAnswer.addCatch(expired, { errors: [PAUSE_EXPIRED, Errors.TIMEOUT] });
    waitForAnswer.addCatch(resumeFailed, {
      errors: FINAL_ERRORS.filter((name) => name !== PAUSE_EXPIRED && name !== PAUSE_CANCELLED),
    });

    const next = new Pass(this, 'Continue from the answer', {
      comment: 'Hands the agent only what it needs: the run, the tenant and the continuation pointer.',
      parameters: {
        runId: JsonPath.stringAt('$.runId'),
        tenant: JsonPath.stringAt('$.tenant'),
        continuation: JsonPath.objectAt('$.continuation'),
      },
    });

    cancelled.next(agent);
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
    // A resume is safe to retry as it is: the same answer replays the same continuation and hands it off again.
    resume.addRetry({ errors: [...RETRYABLE_ERRORS], interval: Duration.seconds(2), maxAttempts: 3, backoffRate: 2 });
    resume.addCatch(failure(this, 'Resume failed', 'The resume can never succeed: the error names why.'), {
      errors: [...FINAL_ERRORS],
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
