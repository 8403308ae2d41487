import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The manifest the tarball carries (`prepack` strips, `postpack` restores): package.json without what only the
 * repository uses — its scripts (each names a file the tarball lacks, and `prepare` would run on every install),
 * its devDependencies and its overrides. `npm pack` and `npm publish` read package.json from disk after `prepack`,
 * so the tarball gets the stripped one; the repository's own is kept aside and put back, also by the next `strip`
 * when a failed pack left it aside.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(root, 'package.json');
const kept = join(root, 'node_modules', '.cache', 'handback-pack', 'package.json');

/** The published manifest of the repository's one. */
export function publishedManifest(repository: Record<string, unknown>): Record<string, unknown> {
  const { scripts: _, devDependencies: __, overrides: ___, ...published } = repository;
  return published;
}

function restore(): void {
  if (!existsSync(kept)) return;
  copyFileSync(kept, manifest);
  rmSync(kept);
}

const [step] = process.argv.slice(2);
if (step === 'strip') {
  restore();
  mkdirSync(dirname(kept), { recursive: true });
  copyFileSync(manifest, kept);
  const published = publishedManifest(JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>);
  writeFileSync(manifest, `${JSON.stringify(published, null, 2)}\n`);
} else if (step === 'restore') {
  restore();
} else if (step !== undefined) {
  throw new Error('Usage: pack-manifest.ts strip|restore');
}
