// The core service's settings: where it listens, what it keeps, how a change goes out (hand-off, links, events, MCP).

import { BOTH, LAMBDA, LOCAL } from './settings-readers.ts';
import { HANDOFF_TARGETS, LIMITS } from './vocabulary.ts';

// The local service: where it listens and what it keeps.

export const port = { env: 'PORT', read: LOCAL, type: 'integer', default: 3000 } as const;
export const host = { env: 'HOST', read: LOCAL, type: 'string', default: '127.0.0.1' } as const;
export const allowedHosts = { env: 'HANDBACK_ALLOWED_HOSTS', read: LOCAL, type: 'list' } as const;
export const dataDir = { env: 'HANDBACK_DATA_DIR', read: LOCAL, type: 'path' } as const;
export const dynamodbEndpoint = { env: 'DYNAMODB_ENDPOINT', read: BOTH, type: 'url' } as const;
export const tableName = {
  env: 'TABLE_NAME',
  read: BOTH,
  type: 'string',
  default: 'handback',
  setBy: 'stack',
} as const;

// The hand-off (docs/triggers.md).

export const handoff = {
  env: 'HANDOFF_TARGET',
  read: BOTH,
  type: 'words',
  values: HANDOFF_TARGETS,
  context: 'handback:handoff',
} as const;
export const handoffQueueUrl = { env: 'HANDOFF_QUEUE_URL', read: BOTH, type: 'url', setBy: 'stack' } as const;
export const handoffEventBusName = {
  env: 'HANDOFF_EVENT_BUS_NAME',
  read: BOTH,
  type: 'string',
  context: 'handback:handoffEventBusName',
  default: 'default',
} as const;
export const handoffFunction = {
  env: 'HANDOFF_FUNCTION_NAME',
  read: BOTH,
  type: 'string',
  context: 'handback:handoffFunctionArn',
} as const;

// Answer links and the inbox (§11, §12).

export const linkSecret = { env: 'HANDBACK_LINK_SECRET', read: LOCAL, type: 'secret' } as const;
export const linkSecretArn = { env: 'LINK_SECRET_ARN', read: LAMBDA, type: 'string', setBy: 'stack' } as const;
export const inboxUrl = { env: 'HANDBACK_INBOX_URL', read: BOTH, type: 'url', context: 'handback:inboxUrl' } as const;

// Lifecycle events and the sweep (docs/triggers.md).

export const webhookUrl = { env: 'HANDBACK_WEBHOOK_URL', read: LOCAL, type: 'url' } as const;
export const eventBusName = {
  env: 'EVENT_BUS_NAME',
  read: LAMBDA,
  type: 'string',
  context: 'handback:eventBusName',
  setBy: 'stack',
} as const;
export const sweepIntervalMs = {
  env: 'HANDBACK_SWEEP_INTERVAL_MS',
  read: LOCAL,
  type: 'integer',
  default: 1000,
} as const;
export const retentionDays = {
  env: 'HANDBACK_RETENTION_DAYS',
  read: LAMBDA,
  type: 'integer',
  context: 'handback:retentionDays',
  default: 365,
} as const;

// MCP (§18).

export const mcpWaitSeconds = {
  env: 'HANDBACK_MCP_WAIT_SECONDS',
  read: BOTH,
  type: 'integer',
  default: LIMITS.mcpWaitSeconds.http,
} as const;

// §23: transcripts in S3, and backups.

export const transcriptBucket = {
  env: 'TRANSCRIPT_BUCKET',
  read: BOTH,
  type: 'string',
  default: 'handback-transcripts',
  setBy: 'stack',
} as const;
export const s3Endpoint = { env: 'HANDBACK_S3_ENDPOINT', read: BOTH, type: 'url' } as const;
export const backup = { type: 'boolean', context: 'handback:backup', default: false } as const;
/** The table's class: `standard-ia` by `npm run bench -- cost` (a year of retention makes storage most of the bill). */
export const tableClass = {
  type: 'words',
  values: ['standard-ia', 'standard'],
  context: 'handback:tableClass',
  default: 'standard-ia',
} as const;
