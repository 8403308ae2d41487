import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Reading the docs as data, for the tests that keep them true: the pages, their fenced blocks (with the words of each
 * fence's info string), their headings as GitHub makes anchors of them, and their links.
 */

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The pages these tests hold to the code: the README and every page of `docs/`. */
export function docPages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** A page's text, by its path from the root. */
export function readPage(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** A fenced code block: its language, the other words of its info string, its code, and the line it starts on. */
export interface Block {
  lang: string;
  /** `key=value` words of the info string (`session=links`, `env.PORT=0`, `check=typecheck`). */
  attributes: Record<string, string>;
  /** Words of the info string without `=` (`openai-chat:pause`). */
  words: string[];
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** The fenced code blocks of a page, in order (backtick or tilde fences of three or more). */
export function fencedBlocks(text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/.exec(lines[index] as string);
    if (open === null) continue;
    const fence = open[1] as string;
    const [lang = '', ...rest] = (open[2] as string).trim().split(/\s+/).filter(Boolean);
    const attributes: Record<string, string> = {};
    const words: string[] = [];
    for (const word of rest) {
      const at = word.indexOf('=');
      if (at > 0) attributes[word.slice(0, at)] = word.slice(at + 1);
      else words.push(word);
    }
    const body: string[] = [];
    const start = index;
    for (index++; index < lines.length; index++) {
      const line = lines[index] as string;
      if (
        line.trimStart().startsWith(fence[0]?.repeat(fence.length) ?? fence) &&
        line.trim().replace(/[`~]/g, '') === ''
      ) {
        break;
      }
      body.push(line);
    }
    blocks.push({ lang, attributes, words, code: body.join('\n'), line: start + 1 });
  }
  return blocks;
}

/** The page's lines outside fenced code blocks (fenced lines become empty, so line numbers stay). */
export function prose(text: string): string[] {
  const lines = text.split('\n');
  let fence: string | undefined;
  return lines.map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      fence = marker;
      return '';
    }
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
        fence = undefined;
      }
      return '';
    }
    return line;
  });
}

/** A heading's anchor as GitHub makes it: lower case, punctuation and symbols dropped, spaces to hyphens. */
export function slugOf(heading: string): string {
  return heading
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The page's headings, in order: their level, text and anchor (repeated anchors get `-1`, `-2`, … as on GitHub). */
export function headings(text: string): Array<{ level: number; text: string; slug: string }> {
  const seen = new Map<string, number>();
  const found: Array<{ level: number; text: string; slug: string }> = [];
  for (const line of prose(text)) {
    const match = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (match === null) continue;
    const base = slugOf(match[2] as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.push({
      level: (match[1] as string).length,
      text: match[2] as string,
      slug: count === 0 ? base : `${base}-${count}`,
    });
  }
  return found;
}

/** The links and images of a page outside code: their target and line. */
export function links(text: string): Array<{ target: string; line: number }> {
  const found: Array<{ target: string; line: number }> = [];
  prose(text).forEach((line, index) => {
    const outsideCode = line.replace(/`[^`]*`/g, '');
    for (const match of outsideCode.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      found.push({ target: match[1] as string, line: index + 1 });
    }
  });
  return found;
}

/** Whether a path exists, from the root. */
export function exists(path: string): boolean {
  return existsSync(join(ROOT, path));
}

/** Every text file under `dirs` (from the root), skipping what is installed, built or generated. */
export function sourceFiles(dirs: readonly string[]): string[] {
  // json-schema-test-suite is a third-party copy (bench/fixtures): its § are JSON Schema's, not ours.
  const skip = new Set(['node_modules', 'dist', 'cdk.out', 'coverage', 'out', '.git', 'json-schema-test-suite']);
  const text = /\.(ts|tsx|mts|js|mjs|json|md|html|css|ya?ml)$/;
  const files: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      if (skip.has(name)) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (text.test(name) && name !== 'generated.ts') files.push(relative(ROOT, path));
    }
  };
  for (const dir of dirs) walk(join(ROOT, dir));
  return files.sort();
}
