import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { metricsLogger } from '../resume/telemetry.ts';

/**
 * The Powertools logger and metrics of every Lambda entry point, made once per container at cold start. X-Ray
 * subsegments of the AWS calls are tracing.ts's (`traceAwsClient`), given each client as it is made.
 */

/** Powertools logger: JSON lines; level from `POWERTOOLS_LOG_LEVEL`. */
export const logger = new Logger({ serviceName: 'handback' });
/** Powertools metrics in EMF, namespace `Handback` unless `POWERTOOLS_METRICS_NAMESPACE` says otherwise. */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Handback',
  serviceName: 'handback',
  logger: metricsLogger(logger),
});
