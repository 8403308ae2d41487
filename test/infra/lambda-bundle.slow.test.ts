import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMAT_NAMES } from '../../functions/vocabulary.ts';
import { buildLambdaBundle, type LambdaBundle } from '../../infra/lambda-bundle.ts';
import { ENTRY } from '../../infra/paths.ts';

const dir = mkdtempSync(join(tmpdir(), 'handback-lambda-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Imports a bundle in a fresh Node with the SQS trigger's environment: its exit status and what it printed. */
function load(file: string, env: Record<string, string> = {}) {
  const done = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(typeof m.handler);`,
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        AWS_REGION: 'eu-west-1',
        TABLE_NAME: 'checkpoints',
        HANDOFF_TARGET: 'sqs',
        HANDOFF_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111122223333/handoff',
        ...env,
      },
      encoding: 'utf8',
    },
  );
  return { status: done.status, stdout: done.stdout.trim(), stderr: done.stderr };
}

let bundle: LambdaBundle;
beforeAll(() => {
  bundle = buildLambdaBundle(ENTRY.sqs, join(dir, 'sqs'), 'sqs');
});

describe('a Lambda bundle built with code splitting', () => {
  it('puts the JSON Schema checks in a chunk of their own, which the entry does not import at init', () => {
    const schemas = bundle.chunks.filter((chunk) => chunk.includes('json-schema'));
    expect(schemas).toHaveLength(1);
    const entry = readFileSync(bundle.entry, 'utf8');
    expect(entry).not.toContain('json-schema.org/draft/2020-12');
  });

  it('reads none of the seven formats, nor the Step Functions or Lambda client, nor the directory, nor every command of the document client, at init, and gives each format a chunk', () => {
    const outputs = bundle.metafile.outputs;
    const entry = Object.keys(outputs).find((name) => name.endsWith('index.mjs')) as string;
    const atInit = new Set<string>();
    const visit = (name: string) => {
      if (atInit.has(name)) return;
      atInit.add(name);
      for (const imported of outputs[name]?.imports ?? [])
        if (imported.kind === 'import-statement') visit(imported.path);
    };
    visit(entry);
    const inputsAtInit = [...atInit].flatMap((name) => Object.keys(outputs[name]?.inputs ?? {}));
    const lazy = /rehydrate\/formats\/(?!format|load|shared)[a-z-]+\.ts$|@aws-sdk\/client-(sfn|lambda)\//;
    expect(inputsAtInit.filter((input) => lazy.test(input))).toEqual([]);
    expect(inputsAtInit.some((input) => input.includes('@aws-sdk/client-sqs/'))).toBe(true);
    // §23: the directory's code is loaded only by a deployment that has one; init holds the choice alone.
    const directoryCode = /functions\/directory\/(?!deployment\.ts$|table-directory-lazy\.ts$)/;
    expect(inputsAtInit.filter((input) => directoryCode.test(input))).toEqual([]);
    // The document client's commands named one by one: the package as a namespace would keep all of them at init.
    const aggregated = /@aws-sdk\/lib-dynamodb\/dist-es\/(DynamoDBDocument|commands\/Transact\w+Command)\.js$/;
    expect(inputsAtInit.filter((input) => aggregated.test(input))).toEqual([]);
    const formatChunks = FORMAT_NAMES.map((name) =>
      bundle.chunks.filter((chunk) => chunk.startsWith(`./chunks/${name}-`)),
    );
    expect(formatChunks.map((chunks) => chunks.length)).toEqual(FORMAT_NAMES.map(() => 1));
  });

  it('loads with every chunk beside it and exports a handler', () => {
    expect(load(bundle.entry)).toMatchObject({ status: 0, stdout: 'function' });
  });

  it('fails at init, naming the chunk, when a chunk loaded on first use is missing', () => {
    const copy = buildLambdaBundle(ENTRY.sqs, join(dir, 'sqs-incomplete'), 'sqs');
    const missing = copy.chunks.find((chunk) => chunk.includes('json-schema')) as string;
    rmSync(join(copy.dir, missing));
    const loaded = load(copy.entry);
    expect(loaded.status).not.toBe(0);
    expect(loaded.stderr).toContain(`chunk ${missing} is missing`);
  });

  it('fails at init the same way when the whole chunks/ directory is missing', () => {
    const copy = buildLambdaBundle(ENTRY.sqs, join(dir, 'sqs-without-chunks'), 'sqs');
    rmSync(join(copy.dir, 'chunks'), { recursive: true });
    const loaded = load(copy.entry);
    expect(loaded.status).not.toBe(0);
    expect(loaded.stderr).toContain(`chunk ${copy.chunks[0]} is missing`);
  });

  it('reads no directory file at init: a function bundled with one loads and reads it with its first call', () => {
    const people = join(dir, 'people.json');
    // Not even JSON: init never reads it (synthesis checks the file; test/directory/deployment.test.ts, the first call).
    writeFileSync(people, 'not a directory');
    const loaded = load(bundle.entry, { HANDBACK_DIRECTORY: people });
    expect(loaded).toMatchObject({ status: 0, stdout: 'function' });
    expect(bundle.chunks.some((chunk) => chunk.startsWith('./chunks/file-'))).toBe(true);
  });
});

describe('what init reads, joined into index.mjs (joinInit)', () => {
  /** A module graph where a chunk loaded on use needs what init holds: esbuild alone splits that into chunks at init. */
  function fixture(): string {
    const src = mkdtempSync(join(dir, 'fixture-'));
    writeFileSync(
      join(src, 'shared.ts'),
      'export class Shared {}\nexport const state = { loads: 0 };\nstate.loads++;\n',
    );
    writeFileSync(join(src, 'other.ts'), "export const unused = 'only the lazy side'; export const used = 1;\n");
    writeFileSync(
      join(src, 'lazy.ts'),
      "import { Shared, state } from './shared.ts';\nimport { unused } from './other.ts';\nexport const made = () => ({ shared: new Shared(), state, unused });\n",
    );
    writeFileSync(
      join(src, 'entry.ts'),
      [
        "import { Shared, state } from './shared.ts';",
        "import { used } from './other.ts';",
        'export async function handler() {',
        "  const { made } = await import('./lazy.ts');",
        '  const m = made();',
        '  return { sameClass: m.shared instanceof Shared, sameState: m.state === state, loads: state.loads, used, unused: m.unused };',
        '}',
      ].join('\n'),
    );
    return join(src, 'entry.ts');
  }

  it('reads one file at init, and a chunk loaded on use shares its modules', () => {
    const joined = buildLambdaBundle(fixture(), join(dir, 'joined'));
    const outputs = joined.metafile.outputs;
    const entry = Object.keys(outputs).find((name) => name.endsWith('index.mjs')) as string;
    // Nothing at init but index.mjs: its static imports are Node's alone.
    expect((outputs[entry]?.imports ?? []).filter((i) => i.kind === 'import-statement' && !i.external)).toEqual([]);
    expect(Object.keys(outputs[entry]?.inputs ?? {}).some((input) => input.endsWith('shared.ts'))).toBe(true);
    const run = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { handler } = await import(${JSON.stringify(pathToFileURL(joined.entry).href)}); console.log(JSON.stringify(await handler()));`,
      ],
      { encoding: 'utf8' },
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      sameClass: true,
      sameState: true,
      loads: 1,
      used: 1,
      unused: 'only the lazy side',
    });
    expect(readFileSync(`${joined.entry}.map`, 'utf8')).toContain('shared.ts');
  });

  it('leaves no facade: the chunk loaded on use imports what init holds from index.mjs itself', () => {
    const joined = buildLambdaBundle(fixture(), join(dir, 'joined-direct'));
    // The lazy chunk alone: the shared module and the other one are in index.mjs, with no file re-exporting them.
    expect(joined.chunks).toHaveLength(1);
    const lazy = join(joined.dir, joined.chunks[0] as string);
    const code = readFileSync(lazy, 'utf8');
    expect(code).toMatch(/from\s*"\.\.\/index\.mjs"/);
    expect(code).not.toMatch(/from\s*"\.\/chunk-/);
    // Its source map still names its own source, composed through the third pass.
    expect(readFileSync(`${lazy}.map`, 'utf8')).toContain('lazy.ts');
    const output = Object.entries(joined.metafile.outputs).find(([name]) => name.endsWith(basename(lazy)));
    expect(output?.[1].imports.filter((i) => i.kind === 'import-statement').map((i) => basename(i.path))).toEqual([
      'index.mjs',
    ]);
    expect(Object.keys(output?.[1].inputs ?? {}).some((input) => input.endsWith('lazy.ts'))).toBe(true);
  });

  it('refuses an entry exporting a name of the form it keeps for its own ($<place><name>), naming it', () => {
    const entry = fixture();
    writeFileSync(entry, `${readFileSync(entry, 'utf8')}\nexport const $1used = 1;\n`);
    expect(() => buildLambdaBundle(entry, join(dir, 'joined-clash'))).toThrow(
      `${entry} exports $1used, a name joinInit keeps for its own exports`,
    );
  });
});
