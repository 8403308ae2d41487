import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The frameworks are optional peers (§15): importing `handback`, `handback/local` or one adapter never loads another
 * adapter's framework. Read from the built package (what `exports` names), following its relative imports, so the
 * check is about what Node loads; `dist/` is the slow project's to build, hence the suffix.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, { import?: string }>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

/** Every bare package a built entry loads, through the relative imports it follows. */
function packagesLoadedBy(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    // Value imports only: `import type` is erased from the JavaScript.
    for (const match of text.matchAll(/^\s*(?:import|export)\s[^;]*?\bfrom\s+['"]([^'"]+)['"]/gm)) {
      const specifier = match[1] as string;
      if (specifier.startsWith('.')) visit(join(dirname(file), specifier));
      else
        packages.add(
          specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? ''),
        );
    }
  };
  visit(join(root, entry));
  return packages;
}

const FRAMEWORKS = ['@openai/agents', '@langchain/langgraph', '@langchain/core', 'langchain', '@strands-agents/sdk'];
const loads = (subpath: string) => {
  const entry = manifest.exports[subpath]?.import;
  if (entry === undefined) throw new Error(`package.json exports no ${subpath}`);
  return [...packagesLoadedBy(entry)].filter((name) => FRAMEWORKS.includes(name)).sort();
};

describe('the frameworks as optional peers', () => {
  it('are optional peer dependencies of the package', () => {
    for (const name of FRAMEWORKS) {
      expect(manifest.peerDependencies[name], name).toBeDefined();
      expect(manifest.peerDependenciesMeta[name], name).toEqual({ optional: true });
    }
  });

  it.each([
    ['.', []],
    ['./dynamodb', []],
    ['./local', []],
    ['./openai-agents', ['@openai/agents']],
    ['./langgraph', ['@langchain/core', '@langchain/langgraph']],
    ['./strands', ['@strands-agents/sdk']],
    ['./ai-sdk', []],
    ['./durable', []],
    ['./client', []],
  ])('the export %s loads only the frameworks it adapts: %j', (subpath, frameworks) => {
    expect(loads(subpath)).toEqual(frameworks);
  });
});
