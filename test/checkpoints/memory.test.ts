import { CheckpointService } from '../../functions/checkpoints/checkpoint-service.ts';
import { MemoryPersistence } from '../../functions/checkpoints/memory.ts';
import { persistenceSpec } from './spec/persistence-spec.ts';
import { serviceSpec } from './spec/service-spec.ts';

persistenceSpec('the in-memory adapter', () => new MemoryPersistence());

serviceSpec('the in-memory adapter', async () => {
  const persistence = new MemoryPersistence();
  return (options) => new CheckpointService({ ...options, persistence });
});
