import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { createHandbackMcpServer } from '../../functions/mcp/server.ts';
import { buildLambdaBundle } from '../../infra/lambda-bundle.ts';
import { ENTRY } from '../../infra/paths.ts';

/**
 * §23: the MCP function's bundle holds a stub in place of the SDK's default JSON Schema validator (ajv draft-07 and
 * its formats, which only form-mode elicitation uses); Handback's server, bundled so, still serves, and Handback's
 * own checks (ajv/dist/2020.js) stay in the bundle, loaded on first use.
 */

const dir = mkdtempSync(join(tmpdir(), 'handback-bundled-mcp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const inputs = (metafile: ReturnType<typeof buildLambdaBundle>['metafile']) =>
  Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));

describe('the MCP function bundled with the stubs', () => {
  it('holds no ajv draft-07 nor ajv-formats, and keeps the 2020-12 checks in a chunk of their own', () => {
    const { metafile } = buildLambdaBundle(ENTRY.mcp, join(dir, 'mcp'), 'sqs');
    const bundled = inputs(metafile);
    expect(
      bundled.filter((path) => /node_modules\/ajv-formats\/|node_modules\/ajv\/dist\/ajv\.js$/.test(path)),
    ).toEqual([]);
    expect(bundled).toContain('infra/bundle-stubs/ajv.ts');
    expect(bundled.some((path) => path.endsWith('node_modules/ajv/dist/2020.js'))).toBe(true);
    // Without the stubs (as an earlier commit was bundled), the SDK's validator is there.
    const { metafile: plain } = buildLambdaBundle(ENTRY.mcp, join(dir, 'mcp-plain'), 'sqs', false, false);
    expect(inputs(plain).some((path) => path.endsWith('node_modules/ajv/dist/ajv.js'))).toBe(true);
  });

  it('serves initialize and tools/list from the bundled server', async () => {
    const built = buildLambdaBundle(join(import.meta.dirname, 'fixtures/bundled-server.ts'), join(dir, 'server'));
    const bundled = (await import(pathToFileURL(built.entry).href)) as {
      createHandbackMcpServer: typeof createHandbackMcpServer;
    };
    const refuse = async () => {
      throw new Error('no pause is made here');
    };
    const server = bundled.createHandbackMcpServer({
      backend: { pause: refuse, getPause: refuse, getContinuation: refuse, cancel: refuse, claimExecution: refuse },
      waitMs: 1_000,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      expect(client.getServerVersion()).toEqual({ name: 'handback', version: '0.1.0' });
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
        'ask_person',
        'request_permission',
      ]);
    } finally {
      await client.close();
    }
  });
});
