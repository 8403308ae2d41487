import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { schemaFailures, schemaProblems } from '../functions/checkpoints/json-schema/index.ts';
import { buildBundle } from './bundle.ts';
import { importPeer } from './group-peers.ts';
import { quantile } from './measure.ts';
import type { GroupOptions } from './options.ts';

/**
 * Group 8, the JSON Schema validator: Handback's (ajv + re2js, with its pause-time analysis and its meter), stock ajv,
 * and the lighter 2020-12 validators a function could carry instead, on bundle bytes, cold import, and correctness on
 * the official JSON-Schema-Test-Suite cases of the keywords Handback documents (bench/fixtures/json-schema-test-suite).
 * A schema Handback refuses at pause time (a remote reference, an unbounded recursion) is counted as refused, not as
 * a wrong answer: a pause with it is never recorded.
 */

export interface ValidatorRow {
  name: string;
  gzipBytes: number;
  bytes: number;
  importMs: number;
  /** Suite tests answered as the suite says, answered otherwise, and not run because the schema was refused. */
  passed: number;
  failed: number;
  refused: number;
  /** A few of the failed tests, `file: case / test`. */
  failures: string[];
}

export interface ValidatorsResult {
  suiteCommit: string;
  files: string[];
  rows: ValidatorRow[];
}

const SUITE = join(import.meta.dirname, 'fixtures', 'json-schema-test-suite');
const SUITE_COMMIT = '44401e0c046704b476ec9d2e2fccdaee618f259d';

interface SuiteCase {
  description: string;
  schema: unknown;
  tests: Array<{ description: string; data: unknown; valid: boolean }>;
}

type Check = (schema: unknown, value: unknown) => boolean | 'refused';

function runSuite(check: Check): Omit<ValidatorRow, 'name' | 'gzipBytes' | 'bytes' | 'importMs'> {
  let passed = 0;
  let failed = 0;
  let refused = 0;
  const failures: string[] = [];
  for (const file of readdirSync(SUITE).filter((f) => f.endsWith('.json'))) {
    const cases = JSON.parse(readFileSync(join(SUITE, file), 'utf8')) as SuiteCase[];
    for (const c of cases) {
      for (const test of c.tests) {
        let answer: boolean | 'refused';
        try {
          answer = check(c.schema, test.data);
        } catch {
          answer = 'refused';
        }
        if (answer === 'refused') refused++;
        else if (answer === test.valid) passed++;
        else {
          failed++;
          if (failures.length < 8)
            failures.push(`${file.replace(/\.json$/, '')}: ${c.description} / ${test.description}`);
        }
      }
    }
  }
  return { passed, failed, refused, failures };
}

const PROBE = `const s = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - s));`;

function importMs(file: string, rounds: number): number {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const done = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE, pathToFileURL(file).href], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    if (done.status !== 0) throw new Error(done.stderr.slice(-400));
    samples.push(Number(done.stdout));
  }
  return quantile(samples, 0.5);
}

export async function runValidators(options: GroupOptions): Promise<ValidatorsResult> {
  const { candidates } = await importPeer<{ candidates: Record<string, { check: Check }> }>('validators');
  const ajv = new Ajv2020({ strict: false });
  const contestants: Array<{ name: string; entry: string; check: Check }> = [
    {
      name: 'Handback (ajv + re2js, analysed and metered)',
      entry: join(import.meta.dirname, 'entries', 'json-schema-handback.ts'),
      check: (schema, value) =>
        schemaProblems(schema).length > 0 ? 'refused' : schemaFailures(schema as never, value).length === 0,
    },
    {
      name: 'ajv 2020 (stock)',
      entry: join(import.meta.dirname, 'entries', 'json-schema-ajv.ts'),
      check: (schema, value) => ajv.compile(schema as never)(value),
    },
    {
      name: '@cfworker/json-schema',
      entry: join(import.meta.dirname, 'peers', 'entries', 'validator-cfworker.ts'),
      check: (schema, value) => (candidates['@cfworker/json-schema'] as { check: Check }).check(schema, value),
    },
    {
      name: '@exodus/schemasafe',
      entry: join(import.meta.dirname, 'peers', 'entries', 'validator-schemasafe.ts'),
      check: (schema, value) => (candidates['@exodus/schemasafe'] as { check: Check }).check(schema, value),
    },
    {
      name: 're2js alone (no validator)',
      entry: join(import.meta.dirname, 'entries', 're2js.ts'),
      check: () => 'refused',
    },
  ];
  const rows: ValidatorRow[] = [];
  for (const c of contestants) {
    const built = await buildBundle({ name: `validator-${c.name.replace(/\W+/g, '-')}`, kind: 'peer', entry: c.entry });
    const suite = c.name.startsWith('re2js') ? { passed: 0, failed: 0, refused: 0, failures: [] } : runSuite(c.check);
    const row: ValidatorRow = {
      name: c.name,
      gzipBytes: built.gzipBytes,
      bytes: built.bytes,
      importMs: importMs(built.file, options.quick ? 3 : 15),
      ...suite,
    };
    rows.push(row);
    options.log(
      `validators ${c.name}: gzip ${(row.gzipBytes / 1024).toFixed(1)} KB, import ${row.importMs.toFixed(1)} ms, suite ${row.passed} passed, ${row.failed} failed, ${row.refused} refused`,
    );
  }
  return {
    suiteCommit: SUITE_COMMIT,
    files: readdirSync(SUITE)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.replace(/\.json$/, '')),
    rows,
  };
}
