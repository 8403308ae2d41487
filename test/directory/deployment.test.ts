import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { deploymentDirectory } from '../../functions/directory/deployment.ts';

const dir = mkdtempSync(join(tmpdir(), 'handback-deployment-directory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Never called: a deployment with a file reads no table.
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));

/** A directory file at a path of its own, holding `text`. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('the directory of a Lambda function (§20, loaded on first use: §23)', () => {
  it('is none without SCIM or a file', () => {
    expect(deploymentDirectory(client, 'pauses', { scim: false, file: undefined })).toEqual({});
  });

  it('reads the file with its first call, once, and answers from it', async () => {
    const path = file('people.json', JSON.stringify({ people: [{ tenant: 'acme', id: 'ada', name: 'Ada' }] }));
    const { directory, table } = deploymentDirectory(client, 'pauses', { scim: false, file: path });
    expect(table).toBeUndefined();
    // Changed after the first call: the container keeps what it read (a file changes only with a deploy).
    await expect(directory?.get('acme', 'ada')).resolves.toMatchObject({ id: 'ada', name: 'Ada' });
    writeFileSync(path, JSON.stringify({ people: [] }));
    await expect(directory?.get('acme', 'ada')).resolves.toMatchObject({ id: 'ada' });
    await expect(directory?.get('acme', 'bob')).resolves.toBeUndefined();
  });

  it('refuses each call, naming the file and the entry, when the file cannot work; made without reading it', async () => {
    const path = file(
      'bad.json',
      JSON.stringify({ people: [{ tenant: 'acme', id: 'ada', name: 'Ada', manager: 'bob' }] }),
    );
    const { directory } = deploymentDirectory(client, 'pauses', { scim: false, file: path });
    const refusal = `The directory file ${path} at /people/0/manager: names "bob", no person of its tenant.`;
    await expect(directory?.find('acme', { subject: 'ada' })).rejects.toMatchObject({
      name: 'DirectoryFileError',
      message: refusal,
    });
    await expect(directory?.get('acme', 'ada')).rejects.toThrow(refusal);
  });
});
