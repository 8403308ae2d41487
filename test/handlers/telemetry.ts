import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { vi } from 'vitest';
import { metricsLogger } from '../../functions/resume/telemetry.ts';

/** A silent Powertools logger and a metrics instance whose `addMetric` calls the tests can read. */
export function testTelemetry() {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const logger = new Logger({ serviceName: 'handback-test', logLevel: 'SILENT' });
  const metrics = new Metrics({
    namespace: 'HandbackTest',
    serviceName: 'handback-test',
    logger: metricsLogger(logger),
  });
  const addMetric = vi.spyOn(metrics, 'addMetric');
  const logged = { info: vi.spyOn(logger, 'info'), warn: vi.spyOn(logger, 'warn'), error: vi.spyOn(logger, 'error') };
  /** The names of the metrics added so far. */
  const metricNames = () => addMetric.mock.calls.map((call) => call[0]);
  return { logger, metrics, addMetric, logged, metricNames };
}
