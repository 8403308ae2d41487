import { CheckpointService } from '../../functions/checkpoints/checkpoint-service.ts';
import { ALL_CHECKS } from '../../functions/checkpoints/checks.ts';
import { MemoryPersistence } from '../../functions/checkpoints/memory.ts';
import { persistenceSpec } from './spec/persistence-spec.ts';
import { serviceSpec } from './spec/service-spec.ts';
import { whoDecidesSpec } from './spec/who-decides-spec.ts';

persistenceSpec('the in-memory adapter', () => new MemoryPersistence());

serviceSpec('the in-memory adapter', async () => {
  const persistence = new MemoryPersistence();
  return (options) => new CheckpointService({ checks: ALL_CHECKS, ...options, persistence });
});

whoDecidesSpec('the in-memory adapter', async () => {
  const persistence = new MemoryPersistence();
  return (options) => new CheckpointService({ checks: ALL_CHECKS, ...options, persistence });
});
