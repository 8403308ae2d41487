// What AWS alone sets or reads: the variables Lambda itself sets, and the context keys only the stack reads.

import { LAMBDA, LOCAL } from './settings-readers.ts';
import { LIMITS } from './vocabulary.ts';

// What Lambda itself sets: read, never set by you or the stack.

export const lambdaFunctionName = {
  env: 'AWS_LAMBDA_FUNCTION_NAME',
  read: LAMBDA,
  type: 'string',
  setBy: 'lambda',
} as const;
export const lambdaLogLevel = { env: 'AWS_LAMBDA_LOG_LEVEL', read: LAMBDA, type: 'string', setBy: 'lambda' } as const;
export const lambdaInitializationType = {
  env: 'AWS_LAMBDA_INITIALIZATION_TYPE',
  read: LAMBDA,
  type: 'string',
  setBy: 'lambda',
} as const;
export const traceHeader = { env: '_X_AMZN_TRACE_ID', read: LAMBDA, type: 'string', setBy: 'lambda' } as const;
export const xrayDaemonAddress = {
  env: 'AWS_XRAY_DAEMON_ADDRESS',
  read: LAMBDA,
  type: 'string',
  default: '127.0.0.1:2000',
  setBy: 'lambda',
} as const;
export const taskRoot = { env: 'LAMBDA_TASK_ROOT', read: LAMBDA, type: 'path', setBy: 'lambda' } as const;
export const awsRegion = { env: 'AWS_REGION', read: LOCAL, type: 'string' } as const;

// The stack alone (`infra/settings.ts`).

export const stackName = { type: 'string', context: 'handback:stackName', default: 'Handback' } as const;
export const exampleAgent = {
  type: 'words',
  values: ['workflow', 'durable'],
  context: 'handback:exampleAgent',
  default: 'workflow',
} as const;
export const exampleAgentTenant = {
  type: 'string',
  context: 'handback:exampleAgentTenant',
  default: LIMITS.defaultTenant,
} as const;
export const resumeRequestsVia = {
  type: 'words',
  values: ['queue', 'function'],
  context: 'handback:resumeRequestsVia',
  default: 'queue',
} as const;
export const eventSource = { type: 'string', context: 'handback:eventSource', default: 'handback' } as const;
export const resumeEventPrincipals = { type: 'list', context: 'handback:resumeEventPrincipals' } as const;
export const notifyEmail = { type: 'string', context: 'handback:notifyEmail' } as const;
export const pauseExpirySeconds = {
  type: 'integer',
  context: 'handback:pauseExpirySeconds',
  default: LIMITS.expiresInSeconds.default,
} as const;
export const logRetentionDays = { type: 'integer', context: 'handback:logRetentionDays', default: 30 } as const;
export const kmsKeyArn = { type: 'string', context: 'handback:kmsKeyArn' } as const;
export const alarmTopicArn = { type: 'string', context: 'handback:alarmTopicArn' } as const;
export const removalPolicy = {
  type: 'words',
  values: ['retain', 'destroy'],
  context: 'handback:removalPolicy',
  default: 'retain',
} as const;

// §23: throughput the operator sets (`infra/throttles.ts`).

export const throttles = { type: 'json', context: 'handback:throttles' } as const;
export const mcpConcurrency = { type: 'integer', context: 'handback:mcpConcurrency', default: 50 } as const;

// §21: how decisions are going.

export const pendingAlarmMinutes = {
  type: 'integer',
  context: 'handback:pendingAlarmMinutes',
  default: 1440,
} as const;
