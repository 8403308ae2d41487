import { Tracer } from '@aws-lambda-powertools/tracer';
import { EmfMetrics, JsonLogger } from './telemetry.ts';

/**
 * The logger, metrics and tracer of every Lambda entry point, made once per container at cold start
 *. The tracer only captures the AWS SDK clients each entry point hands it (`captureAWSv3Client`), so a
 * trace shows the calls a request made; it does not patch Node's `http` and `https` modules, which carry nothing here
 * but those same SDK calls.
 */

/** JSON lines in Powertools' shape; level from `AWS_LAMBDA_LOG_LEVEL`, else `POWERTOOLS_LOG_LEVEL`. */
export const logger = new JsonLogger({ serviceName: 'handback' });
/** Metrics in EMF, namespace `Handback` unless `POWERTOOLS_METRICS_NAMESPACE` says otherwise. */
export const metrics = new EmfMetrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Handback',
  serviceName: 'handback',
});
/** Powertools tracer (X-Ray): each AWS SDK client an entry point makes is captured with it. */
export const tracer = new Tracer({ serviceName: 'handback', captureHTTPsRequests: false });
