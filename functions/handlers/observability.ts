import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { metricsLogger } from '../resume/telemetry.ts';

/**
 * The Powertools logger, metrics and tracer of every Lambda entry point, made once per container at cold start
 *. The tracer only captures the AWS SDK clients each entry point hands it (`captureAWSv3Client`), so a
 * trace shows the calls a request made; it does not patch Node's `http` and `https` modules, which carry nothing here
 * but those same SDK calls.
 */

/** Powertools logger: JSON lines; level from `POWERTOOLS_LOG_LEVEL`. */
export const logger = new Logger({ serviceName: 'handback' });
/** Powertools metrics in EMF, namespace `Handback` unless `POWERTOOLS_METRICS_NAMESPACE` says otherwise. */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Handback',
  serviceName: 'handback',
  logger: metricsLogger(logger),
});
/** Powertools tracer (X-Ray): each AWS SDK client an entry point makes is captured with it. */
export const tracer = new Tracer({ serviceName: 'handback', captureHTTPsRequests: false });
