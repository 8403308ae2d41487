import { startEmbeddedDynamoDB } from '../functions/local/embedded-dynamodb.ts';

/**
 * The embedded store for the store benchmarks, in a process of its own so that its CPU and garbage collection are
 * not charged to the contestants (as a real DynamoDB's are not): prints `{"endpoint": …}` once the table exists,
 * and exits when its parent closes stdin.
 */
const db = await startEmbeddedDynamoDB({ tableName: process.argv[2] ?? 'handback-bench' });
process.stdout.write(`${JSON.stringify({ endpoint: db.endpoint })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void db.close().then(() => process.exit(0));
});
