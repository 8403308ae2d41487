import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { RunnableConfig } from '@langchain/core/runnables';
import { type Checkpoint, type CheckpointMetadata, MemorySaver } from '@langchain/langgraph';

/**
 * A LangGraph checkpointer that several processes share through one JSON file: `MemorySaver`'s two maps, read from the
 * file before each operation and written back after each write. A stand-in for a durable checkpointer (Postgres,
 * SQLite, Redis) in the cross-process tests, where a `MemorySaver` would leave the other process with no thread. It
 * does not lock: the tests let one process write at a time (the execution log decides which one resumes).
 */
export class FileSaver extends MemorySaver {
  constructor(private readonly file: string) {
    super();
  }

  private load(): void {
    if (!existsSync(this.file)) return;
    const { storage, writes } = JSON.parse(readFileSync(this.file, 'utf8'), (_, value) =>
      typeof value === 'object' && value !== null && typeof value.$bytes === 'string'
        ? new Uint8Array(Buffer.from(value.$bytes, 'base64'))
        : value,
    );
    this.storage = storage;
    this.writes = writes;
  }

  private save(): void {
    const text = JSON.stringify({ storage: this.storage, writes: this.writes }, (_, value) =>
      value instanceof Uint8Array ? { $bytes: Buffer.from(value).toString('base64') } : value,
    );
    writeFileSync(`${this.file}.tmp`, text);
    renameSync(`${this.file}.tmp`, this.file);
  }

  override async getTuple(config: RunnableConfig) {
    this.load();
    return super.getTuple(config);
  }

  override async *list(...args: Parameters<MemorySaver['list']>) {
    this.load();
    yield* super.list(...args);
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata) {
    this.load();
    const saved = await super.put(config, checkpoint, metadata);
    this.save();
    return saved;
  }

  override async putWrites(config: RunnableConfig, writes: Parameters<MemorySaver['putWrites']>[1], taskId: string) {
    this.load();
    await super.putWrites(config, writes, taskId);
    this.save();
  }
}
