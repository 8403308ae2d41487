import { describe, expect, it } from 'vitest';
import { createDynamoDBToolExecutions } from '../../functions/adapters/executions.ts';
import { createMemoryToolExecutions, type ExecutionLog } from '../../functions/adapters/shared.ts';
import { ExecutionInProgressError } from '../../functions/errors.ts';
import { useTestTable } from '../support/dynamodb.ts';

/** The record both adapters key approved calls by (`continuationId/toolCallId`), in memory and in DynamoDB. */
const table = useTestTable();
const kinds: Array<[string, () => ExecutionLog]> = [
  ['in memory', () => createMemoryToolExecutions()],
  ['in DynamoDB', () => createDynamoDBToolExecutions({ client: table.client, tableName: table.tableName })],
];

describe.each(kinds)('tool executions %s', (_, make) => {
  it('runs a key once, and every later call with it reads the first output', async () => {
    const executions = make();
    let runs = 0;
    const execute = async () => `refund ${++runs}`;
    const key = { runId: 'run-1', continuationId: `cont-${Math.random()}`, toolCallId: 'call_refund' };
    expect(await executions.once(key, execute)).toBe('refund 1');
    expect(await executions.once(key, execute)).toBe('refund 1');
    expect(runs).toBe(1);
  });

  it('lets a later delivery run a call whose first run failed', async () => {
    const executions = make();
    const key = { runId: 'run-1', continuationId: `cont-${Math.random()}`, toolCallId: 'call_refund' };
    await expect(executions.once(key, async () => Promise.reject(new Error('timeout')))).rejects.toThrow('timeout');
    expect(await executions.once(key, async () => 'refunded')).toBe('refunded');
  });
});

describe('tool executions in DynamoDB, from two workers', () => {
  it('never runs a call another worker has claimed and not finished: the second is told it is in progress', async () => {
    const first = createDynamoDBToolExecutions({ client: table.client, tableName: table.tableName });
    const second = createDynamoDBToolExecutions({ client: table.client, tableName: table.tableName });
    const key = { runId: 'run-1', continuationId: `cont-${Math.random()}`, toolCallId: 'call_refund' };
    let release: (value: string) => void = () => {};
    const running = first.once(key, () => new Promise<string>((resolve) => (release = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 200));
    let ran = false;
    const again = async () => {
      ran = true;
      return 'again';
    };
    await expect(second.once(key, again)).rejects.toBeInstanceOf(ExecutionInProgressError);
    release('refunded');
    expect(await running).toBe('refunded');
    expect(await second.once(key, async () => 'again')).toBe('refunded');
    expect(ran).toBe(false);
  });
});
