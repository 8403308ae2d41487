import { relative } from 'node:path';
import { AssetHashType, CfnResource, DockerImage, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Policy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  type CfnFunction,
  Code,
  type DurableConfig,
  type IFunction,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { Keys } from '../functions/checkpoints/dynamodb/keys.ts';
import { INDEXES } from '../functions/checkpoints/table.ts';
import * as S from '../functions/settings.ts';
import { copyDirectoryFile, type DirectoryBundle, directoryEnvironment } from './directory.ts';
import { type BundledHandoffTarget, buildLambdaBundle, bundleDefines } from './lambda-bundle.ts';
import { repoPath } from './paths.ts';
import { copyPolicyFiles, type PolicyBundle, policyEnvironment } from './policies.ts';

export { bundleDefines };

/**
 * The `NODE_OPTIONS` every function runs with: none. The bundles come with source maps (`index.mjs.map` beside
 * `index.mjs` in each asset, for symbolicating a stack trace offline), but Node is not told to apply them: with
 * `--enable-source-maps` Node 20+ reads and parses each bundle's map at load, which `npm run bench -- coldstart`
 * measured at tens of milliseconds of every cold start (see bench/REPORT.md, "import" against "import with maps").
 */
export const FUNCTION_NODE_OPTIONS: string | undefined = undefined;

/** `FUNCTION_NODE_OPTIONS` as a list of flags: what a test or a benchmark runs a bundled function's `node` with. */
export const DEPLOYED_NODE_FLAGS: string[] = flagsOf(FUNCTION_NODE_OPTIONS);

function flagsOf(options: string | undefined): string[] {
  return options?.split(/\s+/).filter(Boolean) ?? [];
}

/**
 * The table actions a function may be granted, each level only what its code sends (the store's and the delivery
 * log's commands): no level has `BatchWriteItem` or `ConditionCheckItem`, which nothing sends, and only the levels
 * whose code deletes have `DeleteItem`.
 */
export const TABLE_ACTIONS = {
  /** Reads: a pause (`GetItem`, `BatchGetItem` with its parts), a run's latest pause and listings (`Query`). */
  read: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'],
  /** Reads and the commit loop's conditional `UpdateItem`: resume, decide, cancel, the sweep. */
  decide: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
  /** A pause too: its parts and its item (`PutItem`), and the parts of an attempt that lost the race (`DeleteItem`). */
  readWrite: [
    'dynamodb:BatchGetItem',
    'dynamodb:GetItem',
    'dynamodb:Query',
    'dynamodb:DeleteItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
  ],
  /** Decisions, and the delivery log's records of a click (`PutItem`: a signature seen, who decided), never a delete. */
  click: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
  /**
   * The lifecycle stream's move of a closed transcript to the bucket (§23): the pause item and its parts read, the
   * item's `UpdateItem` naming the object, the parts deleted; no `Query`, no `PutItem`.
   */
  archive: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  // A channel's delivery (§14): reads of the pause as it is now, and the delivery log's single-item writes (a claim
  // given back is deleted).
  deliver: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
} as const;

/** The KMS actions that go with each table access level when the table is encrypted with a customer key. */
const WRITE_KEY = ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'] as const;
const KEY_ACTIONS: Record<keyof typeof TABLE_ACTIONS, readonly string[]> = {
  read: ['kms:Decrypt', 'kms:DescribeKey'],
  decide: WRITE_KEY,
  readWrite: WRITE_KEY,
  click: WRITE_KEY,
  archive: WRITE_KEY,
  deliver: WRITE_KEY,
};

/** The object actions on the transcript bucket (§23) each level of access grants: only what the store sends. */
export const TRANSCRIPT_ACTIONS = {
  read: ['s3:GetObject'],
  /**
   * The lifecycle stream function: the objects of the pause items TTL removes, and closed transcripts moved out of
   * the table (`PutObject`, and `DeleteObject` of one whose item was gone when it was written).
   */
  stream: ['s3:PutObject', 's3:DeleteObject'],
  readWrite: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
} as const;

/** How much of the table a function may touch. */
export type TableAccess = keyof typeof TABLE_ACTIONS;

/** Props of {@link HandbackFunction}. */
export interface HandbackFunctionProps {
  /** The handler's TypeScript entry file (absolute path); it exports `handler`. */
  readonly entry: string;
  /** What the function does, shown in the console. */
  readonly description: string;
  /**
   * Memory in MB; CPU scales with it.
   * @default 512
   */
  readonly memorySize?: number;
  /**
   * The invocation timeout.
   * @default Duration.seconds(30)
   */
  readonly timeout?: Duration;
  /**
   * How long the function's log group keeps logs.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the log group when the stack is deleted.
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * The level of the functions' application logs (`POWERTOOLS_LOG_LEVEL`, and Lambda's own log-level control).
   * @default 'INFO'
   */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * More environment variables, on top of the Powertools ones and those the `bind*` methods set.
   * @default - none
   */
  readonly environment?: Record<string, string>;
  /**
   * The hand-off target the function is bundled for, as `Handoff.bind` will set `HANDOFF_TARGET`: an esbuild `define`
   * makes the other targets' clients dead code, so they are left out of the bundle (and a function whose
   * `HANDOFF_TARGET` says otherwise fails at cold start, naming both).
   * @default - bundled for every target
   */
  readonly handoffTarget?: BundledHandoffTarget;
  /**
   * Makes it a Lambda durable function (`handback/durable`), with the checkpoint permissions its SDK needs.
   * @default - a plain function
   */
  readonly durableConfig?: DurableConfig;
  /**
   * The deployment's Cedar policies (§17), for a function that pauses: the files go into its asset (`policies/`, with
   * Cedar's WebAssembly and Handback's schema) and the variables naming them into its environment. Its code loads
   * them on the first pause that needs them.
   * @default - none: the function carries no policy file and loads no Cedar
   */
  readonly policies?: PolicyBundle;
  /**
   * The deployment's directory file of persons (§20), for a function that decides: the file goes into its asset
   * (`directory/people.json`) and `HANDBACK_DIRECTORY` names it.
   * @default - none: no directory file
   */
  readonly directory?: DirectoryBundle;
  /**
   * Instances reserved for it (and at most that many at once), taken from the account's unreserved concurrency (§23).
   * @default - none reserved: it shares the account's unreserved pool
   */
  readonly reservedConcurrentExecutions?: number;
}

/**
 * A Handback Lambda function with every house default: Node.js 24 on ARM64, an ESM bundle with code splitting
 * (infra/lambda-bundle.ts: what a request may not need in chunks loaded on first use, minified, source maps beside
 * it, every dependency inlined, bundled for its hand-off target), explicit memory and timeout, its own log group with retention, JSON logs, active X-Ray
 * tracing, and a role of its own that starts with nothing but writing to that log group. Grants are added one by
 * one through `bindTable`, `grantTaskCallbacks` and the hand-off's `bind`.
 */
export class HandbackFunction extends Construct {
  /** The function. */
  readonly function: LambdaFunction;
  /** Its execution role. */
  readonly role: Role;
  /** Its log group. */
  readonly logGroup: LogGroup;
  /** The hand-off target it is bundled for, when it is bundled for one. */
  readonly handoffTarget?: HandbackFunctionProps['handoffTarget'];

  constructor(scope: Construct, id: string, props: HandbackFunctionProps) {
    super(scope, id);
    const logLevel = props.logLevel ?? 'INFO';
    if (props.handoffTarget !== undefined) this.handoffTarget = props.handoffTarget;

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });

    // An explicit role instead of AWSLambdaBasicExecutionRole, whose logs:* actions reach every log group.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${Stack.of(this).stackName} ${id}`,
    });
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    // Bundled at synth by esbuild with splitting (which NodejsFunction cannot do), as a local bundling of the asset,
    // as NodejsFunction does it: hashed by its output, skipped like any bundling when `aws:cdk:bundling-stacks` says.
    const entry = props.entry;
    const handoffTarget = props.handoffTarget;
    const policies = props.policies;
    const people = props.directory;
    this.function = new LambdaFunction(this, 'Function', {
      code: Code.fromAsset(repoPath(''), {
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          // What the bundle is built from, in the options CDK keys its bundling cache by (JSON, which drops
          // `tryBundle`): without it every function outside vitest got the first function's bundle.
          environment: {
            HANDBACK_ENTRY: relative(repoPath(''), entry),
            HANDBACK_HANDOFF_TARGET: handoffTarget ?? '',
            ...(policies === undefined ? {} : { HANDBACK_POLICY_FILES: policies.hash }),
            ...(people === undefined ? {} : { HANDBACK_DIRECTORY_FILE: people.hash }),
          },
          // Never pulled: the local bundling below always succeeds or throws.
          image: DockerImage.fromRegistry('dummy'),
          local: {
            tryBundle(outputDir: string): boolean {
              buildLambdaBundle(entry, outputDir, handoffTarget, policies !== undefined);
              if (policies !== undefined) copyPolicyFiles(outputDir, policies);
              if (people !== undefined) copyDirectoryFile(outputDir, people);
              return true;
            },
          },
        },
      }),
      handler: 'index.handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(30),
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel[logLevel],
      systemLogLevelV2: SystemLogLevel.WARN,
      tracing: Tracing.ACTIVE,
      ...(props.durableConfig === undefined ? {} : { durableConfig: props.durableConfig }),
      ...(props.reservedConcurrentExecutions === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
      environment: {
        ...(FUNCTION_NODE_OPTIONS === undefined ? {} : { NODE_OPTIONS: FUNCTION_NODE_OPTIONS }),
        POWERTOOLS_SERVICE_NAME: 'handback',
        [S.metricsNamespace.env]: S.metricsNamespace.default,
        [S.powertoolsLogLevel.env]: logLevel,
        ...(policies === undefined ? {} : policyEnvironment(policies)),
        ...(people === undefined ? {} : directoryEnvironment()),
        ...props.environment,
      },
    });

    if (props.durableConfig !== undefined) {
      // What AWSLambdaBasicDurableExecutionRolePolicy grants, on this function alone: the SDK checkpoints and reads
      // its execution's state, which runs on a version: Lambda authorizes these calls against the durable execution's
      // ARN, `<arn>:<qualifier>/durable-execution/…`, which the bare function ARN never matches
      // (https://docs.aws.amazon.com/lambda/latest/dg/durable-security.html).
      // A policy of its own, not the role's default one: the function depends on that, and this names the function.
      const durable = new Policy(this, 'DurableExecutionPolicy', {
        roles: [this.role],
        statements: [
          new PolicyStatement({
            actions: ['lambda:CheckpointDurableExecution', 'lambda:GetDurableExecutionState'],
            resources: [`${this.function.functionArn}:*`],
          }),
        ],
      });
      Validations.of(durable).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.function.node.defaultChild as CfnFunction)}.Arn>:*]`,
        reason:
          'A durable execution runs on a qualified version of this function ($LATEST or a number): the grant covers that one function.',
      });
    }

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active tracing adds xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions; they are the only statement on "*".',
    });
  }

  /**
   * Sets `TABLE_NAME` and grants exactly the item actions `access` needs, on the table and its indexes; with
   * `tenants`, only on the items of those tenants' runs (`dynamodb:LeadingKeys`), so the function cannot read or
   * write another tenant's pauses.
   */
  bindTable(table: ITable, access: TableAccess, options: { tenants?: readonly string[] } = {}): this {
    this.function.addEnvironment(S.tableName.env, table.tableName);
    const tenants = options.tenants;
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...TABLE_ACTIONS[access]],
        // Each index by its exact ARN, from `INDEXES`, rather than `<table>/index/*`: a wildcard would also cover an
        // index someone adds later for another purpose.
        resources: [table.tableArn, ...INDEXES.map((index) => `${table.tableArn}/index/${index.indexName}`)],
        ...(tenants === undefined
          ? {}
          : {
              conditions: {
                'ForAllValues:StringLike': {
                  'dynamodb:LeadingKeys': tenants.map((tenant) => `${Keys.run(tenant, '')}*`),
                },
              },
            }),
      }),
    );
    if (table.encryptionKey) {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({ actions: [...KEY_ACTIONS[access]], resources: [table.encryptionKey.keyArn] }),
      );
    }
    return this;
  }

  /**
   * Sets `TRANSCRIPT_BUCKET` and lets the function read (`GetObject`), and with `readWrite` write and remove
   * (`PutObject`, `DeleteObject`: an attempt that lost the race), or with `delete` only remove (the stream function,
   * as TTL removes pause items), the transcripts kept in the bucket (§23): objects of
   * that bucket alone, with `tenants` only those tenants' (`t/<tenant>/*`). The deployment's key, which encrypts the
   * table too, is granted by `bindTable`.
   */
  bindTranscripts(
    bucket: IBucket,
    access: keyof typeof TRANSCRIPT_ACTIONS,
    options: { tenants?: readonly string[] } = {},
  ): this {
    this.function.addEnvironment(S.transcriptBucket.env, bucket.bucketName);
    const prefixes = options.tenants?.map((tenant) => Keys.objectsOf(tenant)) ?? [''];
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...TRANSCRIPT_ACTIONS[access]],
        resources: prefixes.map((prefix) => bucket.arnForObjects(`${prefix}*`)),
      }),
    );
    const child = bucket.node.defaultChild;
    const arn = CfnResource.isCfnResource(child) ? `<${Stack.of(child).getLogicalId(child)}.Arn>` : bucket.bucketArn;
    Validations.of(this).acknowledge(
      ...prefixes.map((prefix) => ({
        id: `AwsSolutions-IAM5[Resource::${arn}/${prefix}*]`,
        reason:
          'Transcript objects are named per pause (tenant, run, attempt) as pauses are made: the grant covers the objects of this one bucket (one tenant’s, where scoped), never the bucket itself.',
      })),
    );
    return this;
  }

  /**
   * Sets `variable` (the link key's `LINK_SECRET_ARN` unless told) to the secret's ARN (its name when it was imported
   * by name) and lets the function read that one secret's value (`GetSecretValue`, not `DescribeSecret` or any other),
   * and decrypt it when a customer key encrypts it.
   */
  grantSecretRead(secret: ISecret, variable: string = S.linkSecretArn.env): this {
    this.function.addEnvironment(variable, secret.secretFullArn ?? secret.secretName);
    // A secret imported by name has no full ARN: its six random characters are matched, as CDK's own grants do.
    const arn = secret.secretFullArn ?? `${secret.secretArn}-??????`;
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [arn] }),
    );
    if (secret.encryptionKey) {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['kms:Decrypt'], resources: [secret.encryptionKey.keyArn] }),
      );
    }
    return this;
  }

  /**
   * Lets the function complete the callbacks of one durable function's executions (`handback/durable`):
   * `SendDurableExecutionCallbackSuccess` and `SendDurableExecutionCallbackFailure`, on that function's executions.
   * `durable` is the function itself, not a version or an alias (aliases do not apply to durable execution permissions).
   */
  grantDurableCallbacks(durable: IFunction): this {
    // Lambda authorizes these against the durable execution's ARN, `<function ARN>:<$LATEST or version>/durable-execution/
    // <name>/<id>`, which an unqualified function ARN never matches: `<function ARN>:*` covers every version's
    // executions (https://docs.aws.amazon.com/lambda/latest/dg/durable-security.html). No heartbeat: a pause's
    // callback times out at its expiry plus the sweep's bound, and Handback never extends it.
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['lambda:SendDurableExecutionCallbackFailure', 'lambda:SendDurableExecutionCallbackSuccess'],
        resources: [`${durable.functionArn}:*`],
      }),
    );
    const child = durable.node.defaultChild;
    const arn = CfnResource.isCfnResource(child) ? `<${Stack.of(child).getLogicalId(child)}.Arn>` : durable.functionArn;
    Validations.of(this).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${arn}:*]`,
      reason:
        "A durable execution's callbacks belong to a qualified version of the function ($LATEST or a number): the grant covers that one function.",
    });
    return this;
  }

  /** Lets the function complete the task tokens of one workflow: `SendTaskSuccess` and `SendTaskFailure`, nothing else. */
  grantTaskCallbacks(stateMachine: IStateMachine): this {
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['states:SendTaskFailure', 'states:SendTaskSuccess'],
        resources: [stateMachine.stateMachineArn],
      }),
    );
    return this;
  }
}
