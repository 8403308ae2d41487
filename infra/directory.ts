import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Construct } from 'constructs';
import { readDirectoryFile } from '../functions/directory/file.ts';
import { directory } from '../functions/settings.ts';

/**
 * The deployment's directory file on AWS (§20): context `handback:directory` names it; synthesis reads and checks it
 * whole, as `npm start` does, so a file that cannot work fails `cdk synth` naming the key, the entry and what is
 * wrong; the functions that decide get it in their asset (`directory/people.json`) and `HANDBACK_DIRECTORY` naming it,
 * like the policies. The people SCIM provisions are kept in the table instead.
 */

/** Where a function's asset holds the directory file, relative to its root (the task root on Lambda). */
const ASSET_FILE = join('directory', 'people.json');

/** The directory file a stack bundles: its absolute path, and a hash of what it holds (the bundling's key). */
export interface DirectoryBundle {
  file: string;
  hash: string;
}

/**
 * The directory file context names, read and checked now; undefined when `handback:directory` is not set. A file that
 * cannot be read or checked is `refuse`d naming the key and what is wrong.
 */
export function directoryBundleOf(scope: Construct, refuse: (message: string) => Error): DirectoryBundle | undefined {
  const key = directory.context;
  const value: unknown = scope.node.tryGetContext(key);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw refuse(`Context ${key} must be a string, not ${JSON.stringify(value)}.`);
  if (value.trim() === '') return undefined;
  // Relative paths are the app's working directory's, as the CDK CLI runs it: the project's root.
  const file = resolve(value.trim());
  try {
    readDirectoryFile(file);
  } catch (error) {
    throw refuse(`Context ${key}: ${(error as Error).message.replace(file, value.trim())}`);
  }
  return { file, hash: createHash('sha256').update(readFileSync(file)).digest('hex') };
}

/** Copies the directory file into a function's asset directory. */
export function copyDirectoryFile(outputDir: string, bundle: DirectoryBundle): void {
  mkdirSync(join(outputDir, 'directory'), { recursive: true });
  copyFileSync(bundle.file, join(outputDir, ASSET_FILE));
}

/** The variable that tells a function where its asset's directory file is (`functions/handlers/config.ts`). */
export function directoryEnvironment(): Record<string, string> {
  return { [directory.env]: ASSET_FILE.split('\\').join('/') };
}
