import { vi } from 'vitest';
import { EmfMetrics, JsonLogger } from '../../functions/handlers/telemetry.ts';

/** A silent logger and a metrics instance that writes nothing, whose `addMetric` calls the tests can read. */
export function testTelemetry() {
  const logger = new JsonLogger({ serviceName: 'handback-test', logLevel: 'SILENT' });
  const metrics = new EmfMetrics({
    namespace: 'HandbackTest',
    serviceName: 'handback-test',
    disabled: true,
  });
  const addMetric = vi.spyOn(metrics, 'addMetric');
  const logged = { info: vi.spyOn(logger, 'info'), warn: vi.spyOn(logger, 'warn'), error: vi.spyOn(logger, 'error') };
  /** The names of the metrics added so far. */
  const metricNames = () => addMetric.mock.calls.map((call) => call[0]);
  return { logger, metrics, addMetric, logged, metricNames };
}
