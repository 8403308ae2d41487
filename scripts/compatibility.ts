import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run compatibility`: the compatibility table of docs/compatibility.md, from what the tests run — each
 * framework's installed version (the lockfile's, `ai` 7 through its alias `ai-v7`), the Node.js range each declares,
 * and the Node.js the tests run on. `test/docs/compatibility.test.ts` holds the page to it.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The adapters' frameworks as the tests install them: the subpath, the package's name, and where it is installed. */
const FRAMEWORKS = [
  ['handback/ai-sdk', 'ai', 'ai'],
  ['handback/ai-sdk', 'ai', 'ai-v7'],
  ['handback/openai-agents', '@openai/agents', '@openai/agents'],
  ['handback/langgraph', '@langchain/langgraph', '@langchain/langgraph'],
  ['handback/langgraph', 'langchain', 'langchain'],
  ['handback/strands', '@strands-agents/sdk', '@strands-agents/sdk'],
  ['handback/durable', '@aws/durable-execution-sdk-js', '@aws/durable-execution-sdk-js'],
] as const;

const START = '<!-- compatibility:start (npm run compatibility writes this table) -->';
const END = '<!-- compatibility:end -->';

function manifestOf(folder: string): { version: string; engines?: { node?: string } } {
  return JSON.parse(readFileSync(join(root, 'node_modules', folder, 'package.json'), 'utf8'));
}

/** The table, for the Node.js running this. */
export function compatibilityTable(nodeVersion = process.version): string {
  const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    engines: { node: string };
    peerDependencies: Record<string, string>;
  };
  const rows = FRAMEWORKS.map(([subpath, name, folder]) => {
    const installed = manifestOf(folder);
    const engines = installed.engines?.node ?? 'any';
    return `| \`${subpath}\` | \`${name}\` ${installed.version} | \`${own.peerDependencies[name]?.replaceAll('|', '\\|')}\` | ${engines} |`;
  });
  return [
    START,
    '',
    `Tested on Node.js ${nodeVersion.replace(/^v/, '')}; Handback itself declares Node.js \`${own.engines.node}\`.`,
    '',
    '| adapter | tested with | peer range | the framework declares Node.js |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    END,
  ].join('\n');
}

/** The page with its table replaced by `table`. */
export function withTable(page: string, table: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/compatibility.md has no ${START} … ${END} block.`);
  return page.slice(0, start) + table + page.slice(end + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = join(root, 'docs', 'compatibility.md');
  writeFileSync(path, withTable(readFileSync(path, 'utf8'), compatibilityTable()));
}
