import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { repoPath } from '../../infra/paths.ts';
import { defaultSynth } from './synth.ts';

const { template, assembly } = defaultSynth({ bundled: true });

/** `{Ref: <logical id starting with prefix>}`. */
const ref = (prefix: string) => ({ Ref: Match.stringLikeRegexp(`^${prefix}`) });

const POWERTOOLS = {
  POWERTOOLS_SERVICE_NAME: 'handback',
  POWERTOOLS_METRICS_NAMESPACE: 'Handback',
  POWERTOOLS_LOG_LEVEL: 'INFO',
};
const RESUME_ENVIRONMENT = {
  ...POWERTOOLS,
  TENANT_CLAIM: 'tenant',
  HANDBACK_GROUPS_CLAIM: 'cognito:groups',
  TABLE_NAME: ref('CheckpointsTable'),
  TRANSCRIPT_BUCKET: ref('TranscriptsBucket'),
  HANDOFF_TARGET: 'sqs',
  HANDOFF_QUEUE_URL: ref('HandoffQueue'),
  HANDBACK_RETENTION_DAYS: '365',
};

const FUNCTIONS = [
  {
    name: 'ApiHandler',
    memory: 512,
    timeout: 29,
    environment: { ...RESUME_ENVIRONMENT, LINK_SECRET_ARN: ref('AnswerLinkKey') },
  },
  { name: 'McpHandler', memory: 512, timeout: 29, environment: RESUME_ENVIRONMENT },
  { name: 'StepFunctionsHandler', memory: 512, timeout: 60, environment: RESUME_ENVIRONMENT },
  { name: 'SqsHandler', memory: 512, timeout: 60, environment: RESUME_ENVIRONMENT },
  { name: 'Sweeper', memory: 512, timeout: 60, environment: RESUME_ENVIRONMENT },
  {
    name: 'LifecycleHandler',
    memory: 512,
    timeout: 30,
    environment: {
      ...POWERTOOLS,
      EVENT_BUS_NAME: ref('LifecycleBus'),
      HANDBACK_INBOX_URL: {
        'Fn::Join': ['', [{ 'Fn::GetAtt': [Match.stringLikeRegexp('^HttpApi'), 'ApiEndpoint'] }, '/inbox']],
      },
      LINK_SECRET_ARN: ref('AnswerLinkKey'),
      TRANSCRIPT_BUCKET: ref('TranscriptsBucket'),
      // Closed transcripts move from the table to the bucket (§23).
      TABLE_NAME: ref('CheckpointsTable'),
    },
  },
  { name: 'InboxHandler', memory: 512, timeout: 10, environment: POWERTOOLS },
  {
    name: 'ExampleAgent',
    memory: 256,
    timeout: 30,
    environment: {
      ...POWERTOOLS,
      TABLE_NAME: ref('CheckpointsTable'),
      TRANSCRIPT_BUCKET: ref('TranscriptsBucket'),
      HANDBACK_RETENTION_DAYS: '365',
    },
  },
] as const;

/** The logical id of a function of the stack, by its construct name. */
function functionLogicalId(name: string): string {
  const ids = Object.keys(template.findResources('AWS::Lambda::Function')).filter((id) =>
    id.startsWith(`${name}Function`),
  );
  expect(ids).toHaveLength(1);
  return ids[0] as string;
}

/** The directory of a function's bundled asset in the cloud assembly. */
function bundleDirectory(name: string): string {
  const fn = template.findResources('AWS::Lambda::Function')[functionLogicalId(name)];
  const key = fn?.Properties.Code.S3Key as string;
  return join(assembly.directory, `asset.${key.replace(/\.zip$/, '')}`);
}

describe('the functions', () => {
  it('are the eight of the stack', () => {
    template.resourceCountIs('AWS::Lambda::Function', FUNCTIONS.length);
  });

  it.each(FUNCTIONS)(
    'run $name on Node.js 24, ARM64, with explicit memory and timeout',
    ({ name, memory, timeout }) => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Role: { 'Fn::GetAtt': [Match.stringLikeRegexp(`^${name}Role`), 'Arn'] },
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        MemorySize: memory,
        Timeout: timeout,
      });
    },
  );

  it.each(FUNCTIONS)('give $name exactly its environment', ({ name, environment }) => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Role: { 'Fn::GetAtt': [Match.stringLikeRegexp(`^${name}Role`), 'Arn'] },
      Environment: { Variables: Match.objectEquals(environment) },
    });
  });

  it.each(FUNCTIONS)('trace $name with X-Ray and log JSON to its own log group', ({ name }) => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Role: { 'Fn::GetAtt': [Match.stringLikeRegexp(`^${name}Role`), 'Arn'] },
      TracingConfig: { Mode: 'Active' },
      LoggingConfig: { LogFormat: 'JSON', LogGroup: ref(`${name}Logs`), ApplicationLogLevel: 'INFO' },
    });
  });

  it('keep their logs for 30 days and retain them', () => {
    template.allResources('AWS::Logs::LogGroup', {
      Properties: { RetentionInDays: 30 },
      DeletionPolicy: 'RetainExceptOnCreate',
    });
  });
});

describe('the bundles', () => {
  /** Every file of a function's asset, its chunks included. */
  const everyFile = (name: string) =>
    readdirSync(bundleDirectory(name), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.mjs'))
      .map((file) => readFileSync(join(bundleDirectory(name), file), 'utf8'));

  // The MCP SDK's Streamable HTTP transport names its session header; nothing else in Handback does.
  it("keep the MCP SDK out of the API function's bundle and chunks, and in the MCP function's", () => {
    expect(everyFile('ApiHandler').some((code) => code.includes('mcp-session-id'))).toBe(false);
    expect(everyFile('McpHandler').some((code) => code.includes('mcp-session-id'))).toBe(true);
  });

  it.each(FUNCTIONS)('of $name are ESM with the createRequire banner', ({ name }) => {
    const code = readFileSync(join(bundleDirectory(name), 'index.mjs'), 'utf8');
    expect(code.startsWith("import { createRequire as __handbackCreateRequire } from 'node:module';")).toBe(true);
  });

  it.each(FUNCTIONS)('of $name come with a source map', ({ name }) => {
    expect(existsSync(join(bundleDirectory(name), 'index.mjs.map'))).toBe(true);
  });

  // Service targets of the clients' protocols, as each client package writes them into a bundle.
  it.each(['ApiHandler', 'StepFunctionsHandler', 'SqsHandler', 'Sweeper'])(
    "of %s carry the configured hand-off client (SQS) at init, no other target's, and Lambda's and Step Functions' in chunks",
    (name) => {
      const code = readFileSync(join(bundleDirectory(name), 'index.mjs'), 'utf8');
      expect(code).toContain('AmazonSQS');
      expect(code).not.toContain('"AWSEvents"');
      // The Lambda client completes a pause's durable callback, Step Functions' its task token: each loaded on first use.
      expect(code).not.toContain('AWSGirApiService');
      expect(code).not.toContain('"AWSStepFunctions"');
      const chunks = readdirSync(join(bundleDirectory(name), 'chunks'));
      expect(
        ['durable-callback', 'task-token'].map((lazy) => chunks.some((file) => file.startsWith(`${lazy}-`))),
      ).toEqual([true, true]);
    },
  );

  /** The files a function's init loads: its entry and every chunk it imports statically, and theirs. */
  const atInit = (name: string) => {
    const seen = new Set<string>(['index.mjs']);
    const pending = ['index.mjs'];
    while (pending.length > 0) {
      const file = pending.pop() as string;
      const code = readFileSync(join(bundleDirectory(name), file), 'utf8');
      for (const [, path] of code.matchAll(/(?:from|import)\s*"\.\.?\/((?:chunks\/)?[^"]+\.mjs)"/g)) {
        const next = file.startsWith('chunks/') && !path?.startsWith('chunks/') ? `chunks/${path}` : (path as string);
        if (!seen.has(next)) {
          seen.add(next);
          pending.push(next);
        }
      }
    }
    return [...seen].map((file) => readFileSync(join(bundleDirectory(name), file), 'utf8'));
  };

  // §23: the S3 client (its service target, "AmazonS3") is loaded by the first transcript that needs the bucket.
  it.each(['ApiHandler', 'McpHandler', 'SqsHandler', 'Sweeper', 'LifecycleHandler', 'ExampleAgent'])(
    'of %s carry the S3 client in a chunk loaded on first use, never at init',
    (name) => {
      expect(atInit(name).some((code) => code.includes('"AmazonS3"'))).toBe(false);
      expect(everyFile(name).some((code) => code.includes('"AmazonS3"'))).toBe(true);
    },
  );

  it.each(['Sweeper', 'LifecycleHandler'])('of %s leave out the JSON Schema checks', (name) => {
    const code = readFileSync(join(bundleDirectory(name), 'index.mjs'), 'utf8');
    expect(code).not.toContain('json-schema.org/draft/2020-12');
  });

  // The bundle sits in a temporary directory with no node_modules above it, and Node gets no NODE_PATH: an import of
  // anything but a Node built-in would fail here, so loading proves every dependency is bundled.
  it.each(FUNCTIONS)('of $name load in bare Node, far from any node_modules, and export a handler', ({ name }) => {
    expect(bundleDirectory(name).startsWith(repoPath(''))).toBe(false);
    const url = pathToFileURL(join(bundleDirectory(name), 'index.mjs')).href;
    const output = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', `const m = await import(${JSON.stringify(url)}); console.log(typeof m.handler);`],
      {
        env: {
          PATH: process.env.PATH,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          AWS_REGION: 'eu-west-1',
          TABLE_NAME: 'checkpoints',
          HANDOFF_TARGET: 'sqs',
          HANDOFF_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111122223333/handoff',
          EVENT_BUS_NAME: 'handback-lifecycle',
        },
        encoding: 'utf8',
      },
    );
    expect(output.trim()).toBe('function');
  });
});
