import { lambdaRuntime } from './config.ts';
import { EmfMetrics, JsonLogger } from './telemetry.ts';

/**
 * The logger and metrics of every Lambda entry point, made once per container at cold start. X-Ray subsegments of
 * the AWS calls are tracing.ts's (`traceAwsClient`), given each client as it is made.
 */

/** JSON lines in Powertools' shape; level from Lambda's log-level control, else the stack's `POWERTOOLS_LOG_LEVEL`. */
export const logger = new JsonLogger({ serviceName: 'handback', runtime: lambdaRuntime });
/** Metrics in EMF, in the stack's namespace (`POWERTOOLS_METRICS_NAMESPACE`, default `Handback`). */
export const metrics = new EmfMetrics({
  namespace: lambdaRuntime.metricsNamespace(),
  serviceName: 'handback',
  disabled: lambdaRuntime.metricsDisabled(),
});
