import { appendFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/**
 * A channel server that only records (run by Claude Code as an MCP server over stdio, `node --import tsx` this file):
 * it declares `claude/channel` and `claude/channel/permission`, writes every message the CLI sends it and every
 * signal it gets to `RECORD_FILE` (JSON Lines), and sends a notification whenever the test drops one as a JSON file in
 * `REPLY_DIR`. It is how the tests find out what the pinned CLI relays and when, apart from Handback's channel.
 */

const record = process.env.RECORD_FILE as string;
const replies = process.env.REPLY_DIR as string;
const write = (entry: Record<string, unknown>) =>
  appendFileSync(record, `${JSON.stringify({ at: Date.now(), ...entry })}\n`);

write({
  event: 'started',
  pid: process.pid,
  sessionId: process.env.CLAUDE_CODE_SESSION_ID,
  projectDir: process.env.CLAUDE_PROJECT_DIR,
  cwd: process.cwd(),
});
const server = new Server(
  { name: 'recording-channel', version: '0.0.0' },
  {
    capabilities: { experimental: { 'claude/channel': {}, 'claude/channel/permission': {} } },
    instructions: 'Records what Claude Code relays.',
  },
);
server.fallbackNotificationHandler = async (notification) => write({ event: 'notification', ...notification });
server.oninitialized = () => write({ event: 'initialized', capabilities: server.getClientCapabilities() });
process.stdin.once('end', () => write({ event: 'stdin closed' }));
for (const signal of ['SIGHUP', 'SIGINT', 'SIGTERM'] as const) {
  // Recorded, not obeyed: the test sees every signal the CLI sends before it kills the process.
  process.on(signal, () => write({ event: 'signal', signal }));
}
setInterval(() => {
  for (const name of readdirSync(replies).filter((entry) => entry.endsWith('.json'))) {
    const path = join(replies, name);
    const notification = JSON.parse(readFileSync(path, 'utf8'));
    rmSync(path);
    write({ event: 'sent', ...notification });
    void server.notification(notification);
  }
}, 100);
await server.connect(new StdioServerTransport());
