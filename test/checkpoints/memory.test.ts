import { MemoryPersistence } from '../../functions/checkpoints/memory.ts';
import { persistenceSpec, serviceSpec } from '../../functions/testing/index.ts';

const memory = { name: 'the in-memory adapter', create: () => new MemoryPersistence() };

persistenceSpec(memory);
serviceSpec(memory);
