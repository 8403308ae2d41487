import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { HandbackStack, type HandbackStackProps } from '../../infra/handback-stack.ts';
import { repoPath } from '../../infra/paths.ts';

/** One violation of the validation report, as `validation-report.json` writes it. */
export interface ReportedViolation {
  plugin: string;
  rule: string;
  severity: string;
  paths: string[];
}

/** A synthesized Handback stack: its template, its cloud assembly, and what the validation plugins reported. */
export interface Synthesized {
  template: Template;
  assembly: CloudAssembly;
  violations: ReportedViolation[];
}

/** The issuer and audience every test stack trusts. */
export const TEST_JWT = { issuer: 'https://issuer.test/', audience: ['handback-test'] } as const;

/** The context `cdk synth` uses: cdk.json's, so the tests see the feature flags the CLI sees. */
function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(repoPath('cdk.json'), 'utf8')) as { context: Record<string, unknown> };
  return cdkJson.context;
}

interface PluginReport {
  summary?: { pluginName?: string };
  pluginName?: string;
  violations?: {
    ruleName: string;
    severity?: string;
    violatingResources?: { constructPath?: string }[];
    violatingConstructs?: { constructPath?: string }[];
  }[];
}

/** Every unacknowledged violation in the assembly's validation report (none when no report was written). */
function readViolations(assembly: CloudAssembly): ReportedViolation[] {
  let text: string;
  try {
    text = readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8');
  } catch {
    return [];
  }
  const report = JSON.parse(text) as { pluginReports?: PluginReport[] };
  return (report.pluginReports ?? []).flatMap((plugin) =>
    (plugin.violations ?? []).map((violation) => ({
      plugin: plugin.summary?.pluginName ?? plugin.pluginName ?? 'unknown',
      rule: violation.ruleName,
      severity: violation.severity ?? 'unknown',
      paths: (violation.violatingResources ?? violation.violatingConstructs ?? []).map((r) => r.constructPath ?? '?'),
    })),
  );
}

/**
 * Synthesizes a Handback stack with cdk-nag's packs, as `infra/app.ts` does, once per set of props and context for the
 * sources as they are: the cloud assembly is kept in the temporary directory (`CACHE`), keyed by the props, the
 * context and a hash of everything synthesis reads (`infra/`, `functions/`, `cdk.json`, the lockfile, the test
 * fixtures), so every test file (each runs in a worker of its own) and every run after it reads that one synthesis
 * instead of making its own. A set that cannot synthesize (a `ConfigurationError`) throws each time, as it is never
 * kept. `bundle: false` skips esbuild (CDK's `aws:cdk:bundling-stacks` context) for tests that only read the template.
 */
export function synthesize(
  props: HandbackStackProps = {},
  options: { bundle?: boolean; context?: Record<string, unknown> } = {},
): Synthesized {
  const context: Record<string, unknown> = { ...cdkJsonContext(), ...options.context };
  if (options.bundle === false) context['aws:cdk:bundling-stacks'] = [];
  const stackProps = { jwtIssuer: TEST_JWT.issuer, jwtAudience: [...TEST_JWT.audience], ...props };
  const key = createHash('sha256')
    .update(JSON.stringify([stackProps, context], (_, value: unknown) => (value === undefined ? UNSET : value)))
    .digest('hex')
    .slice(0, 32);
  const memoized = memo.get(key);
  if (memoized !== undefined) return memoized;
  const synthesized = cachedAssembly(key, (outdir) => {
    const app = new App({ context, outdir });
    new HandbackStack(app, STACK, stackProps);
    return synthesizeWithChecks(app).assembly;
  });
  memo.set(key, synthesized);
  return synthesized;
}

/** How an unset prop is keyed: apart from a prop left out, which takes the test issuer's value. */
const UNSET = '\u0000unset';

/** The stack's name in every test assembly. */
const STACK = 'Handback';

/** What this process synthesized or read, by key. */
const memo = new Map<string, Synthesized>();

/** Adds cdk-nag's AWS Solutions and Serverless packs, as `infra/app.ts` does, synthesizes, and reads the report. */
export function synthesizeWithChecks(app: App): { assembly: CloudAssembly; violations: ReportedViolation[] } {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  const assembly = app.synth();
  return { assembly, violations: readViolations(assembly) };
}

/** The default stack (`bundled`: with every function bundled, which only the tests of the bundles need). */
export function defaultSynth(options: { bundled?: boolean } = {}): Synthesized {
  return synthesize({}, { bundle: options.bundled === true });
}

/**
 * Where kept assemblies live, one directory per hash of the sources and one assembly per key in it: outside the
 * repository, where a bundle finds no `node_modules` to lean on (the bundle tests load them there), one per checkout.
 */
const CACHE = join(tmpdir(), `handback-synth-${createHash('sha256').update(repoPath('')).digest('hex').slice(0, 8)}`);

/** What synthesis reads besides the props and the context: a hash of every file of these, as they are now. */
const INPUTS = [
  'infra',
  'functions',
  'cdk.json',
  'package-lock.json',
  'handback.cedarschema',
  'test/fixtures',
  'test/infra/synth.ts',
];

let sourcesHash: string | undefined;

/** The hash of `INPUTS`' contents, computed once per process (a few milliseconds). */
function hashOfSources(): string {
  if (sourcesHash !== undefined) return sourcesHash;
  const hash = createHash('sha256').update(process.version);
  const visit = (path: string) => {
    const full = repoPath(path);
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) visit(join(path, name));
    } else {
      hash.update(`${path}\0`).update(readFileSync(full));
    }
  };
  for (const input of INPUTS) visit(input);
  sourcesHash = hash.digest('hex').slice(0, 16);
  return sourcesHash;
}

/**
 * The assembly kept under `key` for these sources, made by `make` (given the directory to write it to) when there is
 * none yet. One worker makes it while the others wait for it (a lock directory, taken over when its holder died).
 */
function cachedAssembly(key: string, make: (outdir: string) => CloudAssembly): Synthesized {
  const root = join(CACHE, hashOfSources());
  const dir = join(root, key);
  const lock = `${dir}.lock`;
  mkdirSync(root, { recursive: true });
  for (;;) {
    if (existsSync(join(dir, 'manifest.json'))) return read(new CloudAssembly(dir));
    try {
      mkdirSync(lock);
    } catch {
      if (holderGone(lock)) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
      continue;
    }
    try {
      writeFileSync(join(lock, 'pid'), String(process.pid));
      pruneOtherSources(root);
      const outdir = `${dir}.${process.pid}`;
      rmSync(outdir, { recursive: true, force: true });
      make(outdir);
      renameSync(outdir, dir);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** The template and the violations of the stack in `assembly`. */
function read(assembly: CloudAssembly): Synthesized {
  const template = Template.fromJSON(assembly.getStackByName(STACK).template as Record<string, unknown>);
  return { template, assembly, violations: readViolations(assembly) };
}

/** Whether the worker holding `lock` is gone: its process has ended, or it has not written its pid in a minute. */
function holderGone(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    try {
      return Date.now() - statSync(lock).mtimeMs > 60_000;
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as { code?: string }).code !== 'EPERM';
  }
}

/** Removes the assemblies of other sources that nothing has written for an hour: they will never be read again. */
function pruneOtherSources(root: string): void {
  const parent = dirname(root);
  for (const name of readdirSync(parent)) {
    const other = join(parent, name);
    if (other !== root && Date.now() - statSync(other).mtimeMs > 3_600_000) {
      rmSync(other, { recursive: true, force: true });
    }
  }
}
