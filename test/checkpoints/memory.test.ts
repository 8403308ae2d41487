import { MemoryPersistence } from '../../functions/checkpoints/memory.ts';
import {
  executionSpec,
  persistenceSpec,
  policySpec,
  samePersonSpec,
  serviceSpec,
} from '../../functions/testing/index.ts';
import { whoDecidesSpec } from './who-decides-spec.ts';

const memory = { name: 'the in-memory adapter', create: () => new MemoryPersistence() };

persistenceSpec(memory);
serviceSpec(memory);
whoDecidesSpec(memory);
samePersonSpec(memory);
policySpec(memory);
executionSpec(memory);
