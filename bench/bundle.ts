import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build } from 'esbuild';
import { bundleDefines, FUNCTION_NODE_OPTIONS, type HandbackFunctionProps } from '../infra/handback-function.ts';
import { ENTRY } from '../infra/paths.ts';

/**
 * The esbuild options of a Lambda bundle, in one place, as the CDK stack builds them: `HandbackFunction`
 * (infra/handback-function.ts) gives `NodejsFunction` `format: ESM, minify, sourceMap (default mode: a .map file
 * beside the bundle), sourcesContent: false, externalModules: [] with bundleAwsSDK (everything bundled),
 * mainFields: module, main`, the createRequire banner, the `define` of the hand-off target the function is bundled for
 * (`bundleDefines`, imported from infra/, so the two cannot part), and runtime Node.js 24 (so esbuild's target is
 * node24), and CDK adds `--bundle --platform=node`. `bannerDrift` reads the banner back out of infra/ so the two
 * cannot part silently. The stack's functions run with `FUNCTION_NODE_OPTIONS` (imported too): "as deployed" imports
 * pass them to Node.
 */

const BENCH = import.meta.dirname;
const REPO = join(BENCH, '..');
/** Where bundles are written: outside the repository, so neither git nor the linter sees them. */
export const OUT_DIR = join(tmpdir(), 'handback-bench-bundles');

/** The banner `HandbackFunction` passes to esbuild. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __handbackCreateRequire } from 'node:module'; const require = __handbackCreateRequire(import.meta.url);";

/** esbuild's target for the stack's runtime (`Runtime.NODEJS_24_X`). */
export const TARGET = 'node24';

/** The options every bundle is built with; only the entry and the output file differ. */
export const LAMBDA_BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: TARGET,
  format: 'esm',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  external: [],
  banner: { js: ESM_REQUIRE_BANNER },
  logLevel: 'error',
} as const satisfies BuildOptions;

/** Whether the banner in infra/handback-function.ts still equals ours (undefined), or what it says instead. */
export function bannerDrift(): string | undefined {
  try {
    const source = readFileSync(join(REPO, 'infra/handback-function.ts'), 'utf8');
    const match = /ESM_REQUIRE_BANNER\s*=\s*\n?\s*"([^"]*)"/.exec(source);
    if (match === null) return 'ESM_REQUIRE_BANNER not found in infra/handback-function.ts';
    return match[1] === ESM_REQUIRE_BANNER ? undefined : `infra banner is now: ${match[1]}`;
  } catch (error) {
    return `cannot read infra/handback-function.ts: ${(error as Error).message}`;
  }
}

/** The Node flags the stack's functions run with (`NODE_OPTIONS`), as a list. */
export const DEPLOYED_NODE_FLAGS: string[] = FUNCTION_NODE_OPTIONS?.split(/\s+/).filter(Boolean) ?? [];

/** The hand-off target the stack bundles its functions for by default (`HandbackStackProps.handoff`). */
export const DEFAULT_TARGET = 'sqs';

/** A bundle to build and measure. */
export interface BundleSpec {
  name: string;
  /**
   * What it stands for in the report: a stack function, the floor (the DynamoDB document client and the configured
   * hand-off target's client), the old floor (the DynamoDB document client alone), or a peer.
   */
  kind: 'handler' | 'floor' | 'old-floor' | 'peer' | 'before';
  entry: string;
  /** The hand-off target it is bundled for (`bundleDefines`), as the stack bundles it. */
  handoffTarget?: HandbackFunctionProps['handoffTarget'];
  /** The name of the floor it is held to (the lifecycle stream's client is EventBridge's, not the hand-off's). */
  floor?: string;
}

/** The floor of the stack's default hand-off target: the DynamoDB document client and the SQS client. */
export const FLOOR = 'dynamodb + sqs (floor)';
/** The old floor: the DynamoDB document client alone. */
export const OLD_FLOOR = 'dynamodb-only (old floor)';

/** The floor entry of each hand-off target (`none`: the DynamoDB document client alone). */
export const FLOOR_ENTRIES: Record<NonNullable<BundleSpec['handoffTarget']>, string> = {
  sqs: join(BENCH, 'entries/dynamodb-sqs.ts'),
  eventbridge: join(BENCH, 'entries/dynamodb-eventbridge.ts'),
  lambda: join(BENCH, 'entries/dynamodb-lambda.ts'),
  none: join(BENCH, 'entries/dynamodb-only.ts'),
};

/**
 * The stack's seven functions, bundled for the default hand-off target, the floors, and the peers. The lifecycle
 * stream is held to the floor of its own client (EventBridge, for the lifecycle bus); the others to the hand-off's.
 */
export const BUNDLES: BundleSpec[] = [
  { name: 'api', kind: 'handler', entry: ENTRY.api, handoffTarget: DEFAULT_TARGET },
  { name: 'step-functions', kind: 'handler', entry: ENTRY.stepFunctions, handoffTarget: DEFAULT_TARGET },
  { name: 'sqs', kind: 'handler', entry: ENTRY.sqs, handoffTarget: DEFAULT_TARGET },
  { name: 'eventbridge', kind: 'handler', entry: ENTRY.eventBridge, handoffTarget: DEFAULT_TARGET },
  { name: 'sweeper', kind: 'handler', entry: ENTRY.sweeper, handoffTarget: DEFAULT_TARGET },
  {
    name: 'lifecycle-events',
    kind: 'handler',
    entry: ENTRY.lifecycleEvents,
    floor: 'dynamodb + eventbridge (its floor)',
  },
  { name: 'inbox', kind: 'handler', entry: ENTRY.inbox },
  { name: FLOOR, kind: 'floor', entry: FLOOR_ENTRIES.sqs },
  { name: 'dynamodb + eventbridge (its floor)', kind: 'floor', entry: FLOOR_ENTRIES.eventbridge },
  { name: OLD_FLOOR, kind: 'old-floor', entry: FLOOR_ENTRIES.none },
  { name: 'langgraph resume', kind: 'peer', entry: join(BENCH, 'peers/entries/langgraph-resume.ts') },
  {
    name: 'openai-agents RunState.fromString',
    kind: 'peer',
    entry: join(BENCH, 'peers/entries/openai-agents-resume.ts'),
  },
  { name: 'durable-execution handler', kind: 'peer', entry: join(BENCH, 'peers/entries/durable-handler.ts') },
];

/** The last commit before the bundles were made per function (the "before" of the report's before-and-after). */
export const BEFORE_REV = '53081f1';

/**
 * The six functions the stack had at `rev`, bundled as it bundled them then (no `define`): the sources of `rev` taken
 * out with `git archive` into a temporary directory beside this repository's node_modules (and the inbox page as built
 * now, which `git archive` does not hold). Undefined when git or the commit is not there.
 */
export function beforeSpecs(rev = BEFORE_REV): BundleSpec[] | undefined {
  const dir = join(OUT_DIR, `before-${rev}`);
  try {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const tar = execFileSync('git', ['-C', REPO, 'archive', rev, 'functions', 'infra'], { maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
    symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
    const generated = join(REPO, 'functions/inbox/generated.ts');
    if (existsSync(generated)) copyFileSync(generated, join(dir, 'functions/inbox/generated.ts'));
  } catch {
    return undefined;
  }
  const entry = (name: string) => join(dir, 'functions/handlers', `${name}.ts`);
  return ['api', 'step-functions', 'sqs', 'eventbridge', 'sweeper', 'lifecycle-events'].map((name) => ({
    name: `${name} (before)`,
    kind: 'before' as const,
    entry: entry(name),
  }));
}

/** What one bundle weighs. */
export interface BuiltBundle extends BundleSpec {
  file: string;
  bytes: number;
  gzipBytes: number;
  mapBytes: number;
  /** Minified bytes by package (`node_modules/<name>`, or `handback` for the repo's own code), largest first. */
  byPackage: Array<{ name: string; bytes: number }>;
}

function packageOf(path: string): string {
  const at = path.lastIndexOf('node_modules/');
  if (at < 0) return 'handback';
  const rest = path.slice(at + 'node_modules/'.length).split('/');
  return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? path);
}

/** Builds `spec` with the Lambda options into bench/.out/<name>/index.mjs and weighs it. */
export async function buildBundle(spec: BundleSpec): Promise<BuiltBundle> {
  const dir = join(OUT_DIR, spec.name.replace(/[^a-z0-9-]+/gi, '-'));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'index.mjs');
  const result = await build({
    ...LAMBDA_BUNDLE_OPTIONS,
    define: bundleDefines(spec.handoffTarget),
    entryPoints: [spec.entry],
    outfile: file,
    metafile: true,
  });
  const code = readFileSync(file);
  const sizes = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      sizes.set(packageOf(path), (sizes.get(packageOf(path)) ?? 0) + input.bytesInOutput);
    }
  }
  return {
    ...spec,
    file,
    bytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
    mapBytes: statSync(`${file}.map`).size,
    byPackage: [...sizes]
      .map(([name, bytes]) => ({ name, bytes }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 15),
  };
}
