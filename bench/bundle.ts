import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DEPLOYED_NODE_FLAGS, type HandbackFunctionProps } from '../infra/handback-function.ts';
import {
  buildLambdaBundle,
  ESM_REQUIRE_BANNER,
  LAMBDA_ESBUILD_OPTIONS,
  outputsAtInit,
} from '../infra/lambda-bundle.ts';
import { ENTRY } from '../infra/paths.ts';

/**
 * The bundles are built by the very function the stack builds its assets with (`buildLambdaBundle`,
 * infra/lambda-bundle.ts: ESM with code splitting, minified, source maps beside each file, everything inlined, the
 * hand-off target's `define`, node24), so the bench and the stack cannot part. The stack's functions run with
 * `DEPLOYED_NODE_FLAGS` (imported too): "as deployed" imports pass them to Node.
 */

export const BENCH = import.meta.dirname;
/** The repository's root. */
export const REPO = join(BENCH, '..');
/** Where bundles are written: outside the repository, so neither git nor the linter sees them. */
export const OUT_DIR = join(tmpdir(), 'handback-bench-bundles');

export { ESM_REQUIRE_BANNER };

/** The options every bundle is built with (the stack's own); only the entry and the output directory differ. */
export const LAMBDA_BUNDLE_OPTIONS = LAMBDA_ESBUILD_OPTIONS;

export { DEPLOYED_NODE_FLAGS };

/** What a function run by a benchmark is given of AWS: a region and placeholder keys (nothing reaches AWS). */
export const BENCH_AWS_ENV = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

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
  /**
   * Bundled with the deployment's policies (§17), as the stack bundles the functions that pause when
   * `handback:policies` is set. @default false: as the stack bundles every function without policies
   */
  policies?: boolean;
  /** The name of the floor it is held to (the lifecycle stream's client is EventBridge's, not the hand-off's). */
  floor?: string;
  /** Bundled with the stack's `BUNDLE_STUBS`. @default true; an earlier commit's functions without, when it had none */
  stubs?: boolean;
}

/** The floor of the stack's default hand-off target: the DynamoDB document client and the SQS client. */
export const FLOOR = 'dynamodb + sqs (floor)';
/** The Slack floor: the DynamoDB document client and `fetch` to Slack's Web API. */
export const SLACK_FLOOR = 'dynamodb + fetch to slack (slack floor)';
/** The email channel's floor: the DynamoDB document client and the SES v2 client. */
export const EMAIL_FLOOR = 'dynamodb + sesv2 (email floor)';
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
 * The stack's functions, bundled for the default hand-off target, the floors, and the peers. The lifecycle stream is
 * held to the floor of its own client (EventBridge, for the lifecycle bus), the channels' functions (bundled for no
 * hand-off but the interactions function, which decides) to theirs (Slack's, SES's); the others to the hand-off's.
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
  { name: 'mcp', kind: 'handler', entry: ENTRY.mcp, handoffTarget: DEFAULT_TARGET },
  { name: FLOOR, kind: 'floor', entry: FLOOR_ENTRIES.sqs },
  { name: 'dynamodb + eventbridge (its floor)', kind: 'floor', entry: FLOOR_ENTRIES.eventbridge },
  { name: OLD_FLOOR, kind: 'old-floor', entry: FLOOR_ENTRIES.none },
  // The Slack floor is the interactions function's and the Slack delivery function's; SES's, the email function's.
  { name: SLACK_FLOOR, kind: 'floor', entry: join(BENCH, 'entries/dynamodb-slack.ts') },
  { name: EMAIL_FLOOR, kind: 'floor', entry: join(BENCH, 'entries/dynamodb-sesv2.ts') },
  {
    name: 'slack-interactions',
    kind: 'handler',
    entry: ENTRY.slackInteractions,
    handoffTarget: DEFAULT_TARGET,
    floor: SLACK_FLOOR,
  },
  { name: 'slack-events', kind: 'handler', entry: ENTRY.slackEvents, handoffTarget: 'none', floor: SLACK_FLOOR },
  { name: 'email-events', kind: 'handler', entry: ENTRY.emailEvents, handoffTarget: 'none', floor: EMAIL_FLOOR },
  { name: 'langgraph resume', kind: 'peer', entry: join(BENCH, 'peers/entries/langgraph-resume.ts') },
  {
    name: 'openai-agents RunState.fromString',
    kind: 'peer',
    entry: join(BENCH, 'peers/entries/openai-agents-resume.ts'),
  },
  { name: 'durable-execution handler', kind: 'peer', entry: join(BENCH, 'peers/entries/durable-handler.ts') },
];

/**
 * The functions the stack had at `rev` of the API, the resume triggers, the sweep, the lifecycle stream and MCP
 * (`npm run bench -- coldstart --before=<rev>`), bundled as the stack bundles them now (the same options and `define`;
 * not `BUNDLE_STUBS`, which `rev` may not have had):
 * the sources of `rev` taken out with `git archive` into a temporary directory, with the dependencies of its own
 * lockfile (`npm ci` there, once per directory: `rev` bundled packages this tree no longer has, such as the X-Ray SDK),
 * and the inbox page as built now, which `git archive` does not hold. Undefined when git, the commit or the install
 * is not there.
 */
export function beforeSpecs(rev: string): BundleSpec[] | undefined {
  const dir = join(OUT_DIR, `before-${rev}`);
  try {
    if (!existsSync(join(dir, 'node_modules', '.package-lock.json'))) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const files = ['functions', 'infra', 'package.json', 'package-lock.json'];
      const tar = execFileSync('git', ['-C', REPO, 'archive', rev, ...files], { maxBuffer: 1 << 28 });
      execFileSync('tar', ['-x', '-C', dir], { input: tar });
      execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
        cwd: dir,
        stdio: 'ignore',
      });
    }
    const generated = join(REPO, 'functions/inbox/generated.ts');
    if (existsSync(generated)) copyFileSync(generated, join(dir, 'functions/inbox/generated.ts'));
  } catch {
    return undefined;
  }
  const entry = (name: string) => join(dir, 'functions/handlers', `${name}.ts`);
  const names = ['api', 'step-functions', 'sqs', 'eventbridge', 'sweeper', 'lifecycle-events', 'mcp'];
  // Bundled with the stubs where `rev` was (its stack then bundled the MCP function without ajv's validator).
  const stubs = existsSync(join(dir, 'infra/bundle-stubs'));
  return names
    .filter((name) => existsSync(entry(name)))
    .map((name) => ({
      name: `${name} (before)`,
      kind: 'before' as const,
      entry: entry(name),
      stubs,
      ...(name === 'lifecycle-events' ? {} : { handoffTarget: DEFAULT_TARGET }),
    }));
}

/** What one bundle weighs. */
export interface BuiltBundle extends BundleSpec {
  /** The entry file, index.mjs. */
  file: string;
  /** What a cold start reads and parses: the entry and the chunks it imports statically. */
  bytes: number;
  gzipBytes: number;
  /** The whole asset, chunks loaded on first use included. */
  assetBytes: number;
  assetGzipBytes: number;
  /** The chunks loaded on first use, by file and gzip bytes. */
  lazyChunks: Array<{ file: string; gzipBytes: number }>;
  mapBytes: number;
  /** Minified bytes by package (`node_modules/<name>`, or `handback` for the repo's own code), largest first. */
  byPackage: Array<{ name: string; bytes: number }>;
  /** What the traces (§21) weigh in it: absent in results from before them. */
  traces?: TracesWeight;
  /** The `LOADED_ON_USE` parts found in what init loads, with their minified bytes there (none is the rule). */
  onUseAtInit: Array<{ name: string; bytes: number }>;
}

/** The traces' share of a bundle (§21): what init reads of them, and the chunk read with the first span. */
export interface TracesWeight {
  /** `functions/traces/traces.ts`, the front every entry point imports, minified. */
  frontAtInitBytes: number;
  /** The rest of `functions/traces/` (the spans, the exporter) and any `@opentelemetry/*` package at init, minified. */
  spanCodeAtInitBytes: number;
  /** The chunks holding the spans' code, loaded with the first span, gzip. */
  chunkGzipBytes: number;
}

const TRACES_FRONT = /functions\/traces\/traces\.ts$/;
const SPAN_CODE = /functions\/traces\/|node_modules\/@opentelemetry\//;

/**
 * What only some requests use, and so only they may load (§23): a part found in what a function's init loads (the
 * entry and its static chunks, by esbuild's metafile) is reported by `npm run bench -- coldstart`, whichever function
 * it is. A module path (the metafile's inputs) matching `pattern` belongs to the part.
 */
export const LOADED_ON_USE: Array<{ name: string; pattern: RegExp }> = [
  {
    name: 'S3',
    pattern: /node_modules\/@aws-sdk\/client-s3\/|^functions\/(checkpoints\/)?(s3|transcripts?-store)[^/]*\.ts$/,
  },
  // The directory's code; not the choice of which to load (deployment.ts) nor the table's loader, which init holds.
  {
    name: 'the directory (a file or SCIM)',
    pattern: /^functions\/(directory\/(?!deployment\.ts$|table-directory-lazy\.ts$)|scim\/)/,
  },
  { name: 'metrics', pattern: /node_modules\/@aws-lambda-powertools\/metrics\/|^functions\/(metrics|stats)\// },
  {
    name: 'traces (an X-Ray or OpenTelemetry SDK)',
    pattern: /node_modules\/(aws-xray-sdk[^/]*|@aws-lambda-powertools\/tracer|@opentelemetry\/[^/]+)\//,
  },
  { name: 'the JSON Schema checks', pattern: /^functions\/checkpoints\/json-schema\/|node_modules\/ajv\// },
  { name: 'the policies (Cedar)', pattern: /node_modules\/@cedar-policy\// },
];

function packageOf(path: string): string {
  const at = path.lastIndexOf('node_modules/');
  if (at < 0) return 'handback';
  const rest = path.slice(at + 'node_modules/'.length).split('/');
  return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? path);
}

/** Builds `spec` as the stack builds it into <tmp>/handback-bench-bundles/<name>/ and weighs it. */
export async function buildBundle(spec: BundleSpec): Promise<BuiltBundle> {
  const dir = join(OUT_DIR, spec.name.replace(/[^a-z0-9-]+/gi, '-'));
  rmSync(dir, { recursive: true, force: true });
  const built = buildLambdaBundle(spec.entry, dir, spec.handoffTarget, spec.policies ?? false, spec.stubs ?? true);
  const file = built.entry;
  const outputs = built.metafile.outputs;
  // What init loads: the entry and, transitively, the chunks it imports statically.
  const eager = outputsAtInit(built.metafile);
  const gzip = (path: string) => gzipSync(readFileSync(path), { level: 9 }).length;
  const files = Object.keys(outputs).filter((k) => k.endsWith('.mjs'));
  const abs = (k: string) => join(process.cwd(), k);
  const sizes = new Map<string, number>();
  const onUse = new Map<string, number>();
  for (const name of eager) {
    for (const [path, input] of Object.entries(outputs[name]?.inputs ?? {})) {
      sizes.set(packageOf(path), (sizes.get(packageOf(path)) ?? 0) + input.bytesInOutput);
      const part = LOADED_ON_USE.find((p) => p.pattern.test(path));
      if (part !== undefined) onUse.set(part.name, (onUse.get(part.name) ?? 0) + input.bytesInOutput);
    }
  }
  const traces: TracesWeight = { frontAtInitBytes: 0, spanCodeAtInitBytes: 0, chunkGzipBytes: 0 };
  for (const [name, output] of Object.entries(outputs)) {
    const inputs = Object.entries(output.inputs);
    if (!eager.has(name)) {
      if (name.endsWith('.mjs') && inputs.some(([path]) => SPAN_CODE.test(path))) {
        traces.chunkGzipBytes += gzip(join(process.cwd(), name));
      }
      continue;
    }
    for (const [path, input] of inputs) {
      if (TRACES_FRONT.test(path)) traces.frontAtInitBytes += input.bytesInOutput;
      else if (SPAN_CODE.test(path)) traces.spanCodeAtInitBytes += input.bytesInOutput;
    }
  }
  const mapBytes = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.map'))
    .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
  const eagerFiles = [...eager].map(abs);
  return {
    ...spec,
    file,
    bytes: eagerFiles.reduce((sum, f) => sum + statSync(f).size, 0),
    gzipBytes: eagerFiles.reduce((sum, f) => sum + gzip(f), 0),
    assetBytes: files.reduce((sum, f) => sum + statSync(abs(f)).size, 0),
    assetGzipBytes: files.reduce((sum, f) => sum + gzip(abs(f)), 0),
    lazyChunks: files
      .filter((f) => !eager.has(f))
      .map((f) => ({ file: f.slice(f.indexOf('chunks/')), gzipBytes: gzip(abs(f)) }))
      .sort((a, b) => b.gzipBytes - a.gzipBytes),
    mapBytes,
    byPackage: [...sizes]
      .map(([name, bytes]) => ({ name, bytes }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 15),
    traces,
    onUseAtInit: [...onUse].map(([name, bytes]) => ({ name, bytes })),
  };
}
