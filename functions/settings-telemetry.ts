// The settings of logs, metrics and traces: how much the service says, and where it says it.

import { BOTH, LAMBDA, LOCAL } from './settings-readers.ts';

export const logLevel = {
  env: 'LOG_LEVEL',
  read: LOCAL,
  type: 'words',
  values: ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'],
  default: 'INFO',
} as const;
export const powertoolsLogLevel = {
  env: 'POWERTOOLS_LOG_LEVEL',
  read: LAMBDA,
  type: 'string',
  default: 'INFO',
  setBy: 'stack',
} as const;
export const metricsNamespace = {
  env: 'POWERTOOLS_METRICS_NAMESPACE',
  read: LAMBDA,
  type: 'string',
  default: 'Handback',
  setBy: 'stack',
} as const;
export const metricsDisabled = { env: 'POWERTOOLS_METRICS_DISABLED', read: BOTH, type: 'boolean' } as const;
export const traceEnabled = { env: 'POWERTOOLS_TRACE_ENABLED', read: LAMBDA, type: 'boolean', default: true } as const;
// §21 traces
export const otlpEndpoint = {
  env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
  read: BOTH,
  type: 'url',
  context: 'handback:otlpEndpoint',
} as const;
