import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * vitest global setup: the examples import Handback by its package name, which resolves through `exports` to dist/.
 * `npm ci` does not build dist/ (the package builds it in `prepack`, so an install never runs a build); this builds it when it is missing or older than a source it is built from,
 * so the examples never run against a stale build after an edit to functions/. When dist/ is fresh it costs a stat
 * per source file.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const built = join(root, 'dist', 'index.js');
  const sources = [
    ...readdirSync(join(root, 'functions'), { recursive: true, encoding: 'utf8' }).map((f) => join('functions', f)),
    'package.json',
    'tsconfig.json',
    'tsconfig.build.json',
    join('scripts', 'build.ts'),
  ];
  const newest = Math.max(...sources.map((file) => statSync(join(root, file)).mtimeMs));
  if (existsSync(built) && statSync(built).mtimeMs >= newest) return;
  console.log('dist/ is missing or older than its sources: npm run build');
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'build.ts')], {
    cwd: root,
    stdio: 'inherit',
  });
}
