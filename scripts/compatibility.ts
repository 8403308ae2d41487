import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADAPTER_NAMES, type AdapterName } from '../functions/vocabulary.ts';

/**
 * `npm run compatibility`: the compatibility table of docs/compatibility.md, from what the tests run — each
 * framework's installed version (the lockfile's, `ai` 7 through its alias `ai-v7`), the Node.js range each declares,
 * and the Node.js the tests run on. `test/docs/compatibility.test.ts` holds the page to it.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Each adapter's frameworks as the tests install them: the package's name, and the folder it is installed in. */
const FRAMEWORKS: Record<AdapterName, ReadonlyArray<readonly [name: string, folder: string]>> = {
  'ai-sdk': [
    ['ai', 'ai'],
    ['ai', 'ai-v7'],
  ],
  'openai-agents': [['@openai/agents', '@openai/agents']],
  langgraph: [
    ['@langchain/langgraph', '@langchain/langgraph'],
    ['langchain', 'langchain'],
  ],
  strands: [['@strands-agents/sdk', '@strands-agents/sdk']],
  durable: [['@aws/durable-execution-sdk-js', '@aws/durable-execution-sdk-js']],
};

const START = '<!-- compatibility:start (npm run compatibility writes this table) -->';
const END = '<!-- compatibility:end -->';

function manifestOf(folder: string): { version: string; engines?: { node?: string } } {
  return JSON.parse(readFileSync(join(root, 'node_modules', folder, 'package.json'), 'utf8'));
}

/** `v20.20.2` → `20`: the table names the major line, so a patch release of Node.js leaves it true. */
export function nodeMajor(version: string): string {
  return version.replace(/^v/, '').split('.')[0] as string;
}

/** The table, for the Node.js running this. */
export function compatibilityTable(nodeVersion = process.version): string {
  const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    engines: { node: string };
    peerDependencies: Record<string, string>;
  };
  const rows = ADAPTER_NAMES.flatMap((adapter) =>
    FRAMEWORKS[adapter].map(([name, folder]) => {
      const installed = manifestOf(folder);
      const engines = installed.engines?.node ?? 'any';
      const range = own.peerDependencies[name]?.replaceAll('|', '\\|');
      return [`\`handback/${adapter}\``, `\`${name}\` ${installed.version}`, `\`${range}\``, engines];
    }),
  );
  return [
    START,
    '',
    `Tested on Node.js ${nodeMajor(nodeVersion)}.x; Handback itself declares Node.js \`${own.engines.node}\`.`,
    '',
    ...markdownTable(['adapter', 'tested with', 'peer range', 'the framework declares Node.js'], rows),
    '',
    END,
  ].join('\n');
}

/** A Markdown table, its columns padded as the formatter (`biome format`) pads them, so the page stays formatted. */
function markdownTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
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
