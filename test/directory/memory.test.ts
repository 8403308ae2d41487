import { MemoryDirectory } from '../../functions/directory/memory.ts';
import { directorySpec } from '../../functions/testing/index.ts';

directorySpec({ name: 'the memory directory', create: () => new MemoryDirectory() });
