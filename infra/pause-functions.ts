import { Duration, type Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import * as S from '../functions/settings.ts';
import { HandbackFunction } from './handback-function.ts';
import type { Handoff } from './handoff.ts';
import { ENTRY } from './paths.ts';
import type { Settings } from './settings.ts';
import { SWEEP_EVERY, SweepSchedule } from './sweep-schedule.ts';

/**
 * The functions of the stack that read and write pauses through the use cases: the API's, MCP's, the resume from
 * Step Functions, SQS and (on request) EventBridge, and the sweep with its schedule. Each is bound to the table and
 * the hand-off, told the deployment's tenant and groups claims, retention and recipient domains, and all but the sweep
 * carry the deployment's policies (they pause, or judge a person's edits, §19). Made in the stack's own scope, so
 * their construct ids are the stack's.
 */

/** How long a stack's log groups keep logs, and what happens to them when they leave it. */
export type Logging = Pick<ConstructorParameters<typeof HandbackFunction>[2], 'logRetention' | 'logRemovalPolicy'>;

/** What the functions are made from. */
export interface PauseFunctionsProps {
  settings: Settings;
  table: ITable;
  /** The transcript bucket (§23). */
  transcripts: IBucket;
  handoff: Handoff;
  logging: Logging;
}

/** The functions that read and write pauses, by their part. */
export interface PauseFunctions {
  api: HandbackFunction;
  mcp: HandbackFunction;
  stepFunctions: HandbackFunction;
  sqs: HandbackFunction;
  sweeper: HandbackFunction;
  sweep: SweepSchedule;
  /** Only with `resumeRequestsVia: 'function'`. */
  eventBridge: HandbackFunction | undefined;
  /** The resumers: the ones that decide and close pauses, so complete task tokens and durable callbacks. */
  resumers: HandbackFunction[];
}

/** The retention every function that writes pauses sets their TTL from: a closed pause's audit trail lives that long. */
export function retentionEnvironment(settings: Settings): Record<string, string> {
  return { [S.retentionDays.env]: String(settings.retentionDays) };
}

/** Makes the functions that read and write pauses in `stack`. */
export function pauseFunctions(
  stack: Stack,
  { settings, table, transcripts, handoff, logging }: PauseFunctionsProps,
): PauseFunctions {
  const resumeFunction = (
    name: string,
    entry: string,
    description: string,
    timeoutSeconds: number,
    access: 'decide' | 'readWrite' = 'decide',
    judges = true,
    reserved?: number,
  ) => {
    // The functions that pause judge their approval asks by the deployment's policies (§17), and those that take a
    // person's decisions judge their edits (§19): they carry the files. Only the sweep, which edits nothing, does not.
    const fn = new HandbackFunction(stack, name, {
      ...(judges && settings.policies !== undefined ? { policies: settings.policies } : {}),
      // Every function that decides or pauses resolves principals to the deployment's persons (§20).
      ...(settings.directory === undefined ? {} : { directory: settings.directory }),
      entry,
      description,
      timeout: Duration.seconds(timeoutSeconds),
      environment: {
        [S.tenantClaim.env]: settings.tenantClaim,
        [S.groupsClaim.env]: settings.groupsClaim,
        ...retentionEnvironment(settings),
        // Every function that may pause holds an agent to the deployment's recipient domains (§16).
        ...(settings.recipientDomains.length === 0
          ? {}
          : { [S.recipientDomains.env]: settings.recipientDomains.join(',') }),
        ...(settings.inboxUrl === undefined || access !== 'readWrite' ? {} : { [S.inboxUrl.env]: settings.inboxUrl }),
      },
      handoffTarget: handoff.type,
      ...(reserved === undefined ? {} : { reservedConcurrentExecutions: reserved }),
      ...logging,
    });
    fn.bindTable(table, access);
    // Every resumer may meet a pause whose transcript is in the bucket; only the ones that pause write there.
    fn.bindTranscripts(transcripts, access === 'readWrite' ? 'readWrite' : 'read');
    handoff.bind(fn);
    return fn;
  };
  // API Gateway waits at most 30 s for an integration; the function gives up first.
  // The API pauses as well as decides; every other resumer only decides, closes and reads.
  const api = resumeFunction('ApiHandler', ENTRY.api, 'Handback HTTP API (payload 2.0)', 29, 'readWrite');
  const stepFunctions = resumeFunction(
    'StepFunctionsHandler',
    ENTRY.stepFunctions,
    'Handback resume as a Step Functions task',
    60,
  );
  const sqs = resumeFunction('SqsHandler', ENTRY.sqs, 'Handback resume from SQS (partial batch responses)', 60);
  // One sweep per tick: its timeout is the tick's period, so a sweep ends before the next one starts.
  const sweeper = resumeFunction(
    'Sweeper',
    ENTRY.sweeper,
    'Handback sweep: due reminders, expiries and onExpiry reject closings',
    SWEEP_EVERY.toSeconds(),
    'decide',
    false,
  );
  const sweep = new SweepSchedule(stack, 'Sweep', { handler: sweeper.function });
  const eventBridge =
    settings.resumeRequestsVia === 'function'
      ? resumeFunction('EventBridgeHandler', ENTRY.eventBridge, 'Handback resume from EventBridge Resume Requested', 60)
      : undefined;
  // `POST /mcp` (§18) on a function of its own: the MCP SDK stays out of the API function's bundle and cold start. It
  // pauses as the API's pause route does (the MCP tools' permission prompts and questions, which a policy may close
  // at once, handing them off); a call waits at most 25 s, inside the 29 s it has, inside API Gateway's 30 s. Its
  // reserved concurrency (§23) bounds the instances waiting calls hold, so they never take the account's concurrency.
  const mcp = resumeFunction(
    'McpHandler',
    ENTRY.mcp,
    'Handback MCP server, Streamable HTTP (payload 2.0)',
    29,
    'readWrite',
    true,
    settings.mcpConcurrency,
  );

  acknowledgeSynchronous(api, 'API Gateway invokes it synchronously and returns its errors to the caller');
  acknowledgeSynchronous(mcp, 'API Gateway invokes it synchronously and returns its errors to the caller');
  acknowledgeSynchronous(stepFunctions, 'Step Functions invokes it synchronously and Catches its errors by name');
  acknowledgeSynchronous(
    sqs,
    'the SQS poller invokes it synchronously; failed records return to the queue and reach its dead-letter queue',
  );
  Validations.of(sqs).acknowledge({
    id: 'Serverless-LambdaEventSourceMappingDestination',
    reason:
      'SQS event source mappings take no on-failure destination: failed records go to the queue redrive policy (dead-letter queue after 5 receives).',
  });
  if (eventBridge) {
    Validations.of(eventBridge).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'Failed asynchronous invocations go to an on-failure destination (the FailedInvocationsQueue), which keeps the error as well as the event; a DLQ would keep the event alone.',
    });
  }
  return {
    api,
    mcp,
    stepFunctions,
    sqs,
    sweeper,
    sweep,
    eventBridge,
    resumers: [api, stepFunctions, sqs, sweeper, ...(eventBridge ? [eventBridge] : [])],
  };
}

/** A Lambda invoked only synchronously never uses an asynchronous-invoke dead-letter queue: say so, once. */
export function acknowledgeSynchronous(fn: HandbackFunction, why: string): void {
  Validations.of(fn).acknowledge({
    id: 'Serverless-LambdaDLQ',
    reason: `An asynchronous-invoke dead-letter queue would never receive anything: ${why}.`,
  });
}
