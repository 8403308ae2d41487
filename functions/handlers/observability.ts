import { EmfMetrics, JsonLogger } from './telemetry.ts';

/**
 * The logger and metrics of every Lambda entry point, made once per container at cold start. X-Ray subsegments of
 * the AWS calls are tracing.ts's (`traceAwsClient`), given each client as it is made.
 */

/** JSON lines in Powertools' shape; level from `AWS_LAMBDA_LOG_LEVEL`, else `POWERTOOLS_LOG_LEVEL`. */
export const logger = new JsonLogger({ serviceName: 'handback' });
/** Metrics in EMF, namespace `Handback` unless `POWERTOOLS_METRICS_NAMESPACE` says otherwise. */
export const metrics = new EmfMetrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Handback',
  serviceName: 'handback',
});
