import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { AGENTS, backendFromEnv, waitMsFromEnv } from './backend.ts';
import { createHandbackMcpServer } from './server.ts';

/**
 * `handback mcp`: the MCP server over stdio (§18), on the backend the environment names. Runs until the client
 * closes stdin or the process is told to stop; resolves with the exit code.
 */
export async function runStdioServer(env: NodeJS.ProcessEnv): Promise<number> {
  const waitMs = waitMsFromEnv(env);
  const backend = await backendFromEnv(env, AGENTS.mcp);
  const server = createHandbackMcpServer({ backend, waitMs });
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  const stop = () => void server.close();
  process.stdin.once('end', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await server.connect(new StdioServerTransport());
  await closed;
  await backend.close();
  return 0;
}
