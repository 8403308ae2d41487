import { readFileSync } from 'node:fs';
import type { DirectoryEntry } from '../wire.ts';
import { directoryFile } from '../wire-persons.ts';
import { MemoryDirectory } from './memory.ts';
import { conflictText, isConflict } from './port.ts';

/**
 * A directory file (§20: `HANDBACK_DIRECTORY` for `npm start`, context `handback:directory` on AWS, where it is
 * bundled like the policies): `{"people": [...]}`, read and checked whole when the service starts or the stack is
 * synthesised, so a file that cannot work stops either with one message naming the file and the entry. Checked by its
 * one schema (`directoryFile`, `functions/wire.ts`), then as a directory: no id or identity held twice in a tenant, a
 * manager and a delegate who are persons of the same tenant. The directory it makes is read only.
 */

/** A directory file that cannot be used: its message names the file, the entry and what is wrong. */
export class DirectoryFileError extends Error {
  override readonly name = 'DirectoryFileError';
}

/** The directory of the file at `path` (relative to the working directory), checked whole. */
export function readDirectoryFile(path: string): MemoryDirectory {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new DirectoryFileError(`The directory file ${path} cannot be read: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return directoryOfText(text, path);
}

/** The directory a file's text describes, checked whole; `name` is how errors name the file. */
export function directoryOfText(text: string, name: string): MemoryDirectory {
  const refuse = (where: string, message: string) =>
    new DirectoryFileError(`The directory file ${name}${where === '' ? '' : ` at ${where}`}: ${message}.`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw refuse('', `is not JSON (${(error as Error).message})`);
  }
  const parsed = directoryFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = (issue?.path ?? []).map(String).join('/');
    throw refuse(path === '' ? '' : `/${path}`, issue?.message ?? 'is not a directory file');
  }
  const entries = parsed.data.people;
  const directory = new MemoryDirectory();
  // Everyone first, each delegation once its delegate is known: a delegation may name one who comes later.
  const at = new Map<string, number>();
  for (const [index, entry] of entries.entries()) {
    const { delegation: _, ...person } = entry;
    const answer = directory.createNow(person);
    if (isConflict(answer)) throw refuse(`/people/${index}`, conflictText(answer));
    at.set(`${entry.tenant}\u0000${entry.id}`, index);
  }
  const known = (tenant: string, id: string) => at.has(`${tenant}\u0000${id}`);
  for (const [index, entry] of entries.entries()) {
    if (entry.manager !== undefined && !known(entry.tenant, entry.manager)) {
      throw refuse(`/people/${index}/manager`, `names ${JSON.stringify(entry.manager)}, no person of its tenant`);
    }
    if (entry.delegation === undefined) continue;
    const to = delegateOf(directory, entry, known);
    if (to === undefined) {
      throw refuse(
        `/people/${index}/delegation/to`,
        `names ${JSON.stringify(entry.delegation.to)}, no person of its tenant (an id, or an email of theirs)`,
      );
    }
    if (to === entry.id) throw refuse(`/people/${index}/delegation/to`, 'names the person themselves');
    directory.setDelegationNow(entry.tenant, entry.id, { ...entry.delegation, to });
  }
  return directory;
}

/** The id of the person a file's delegation names: by id, else by an email of theirs (folded). */
function delegateOf(
  directory: MemoryDirectory,
  entry: DirectoryEntry,
  known: (tenant: string, id: string) => boolean,
): string | undefined {
  const to = entry.delegation?.to as string;
  if (known(entry.tenant, to)) return to;
  const byEmail = directory.findNow(entry.tenant, { email: to });
  return byEmail?.id;
}
