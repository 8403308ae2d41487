import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION_DAYS } from '../../infra/settings.ts';
import { transcriptExpiryDays } from '../../infra/transcript-bucket.ts';
import { evaluate, resolve } from './iam.ts';
import { defaultSynth, synthesize } from './synth.ts';

/**
 * The transcript bucket (§23) as the template has it: private, TLS only, encrypted, its objects expiring after the
 * longest a pause and its retention can need them; the functions' grants on its objects alone; and the backup plan and
 * versioning only when `handback:backup` asks.
 */

const { template, violations } = defaultSynth();
const backedUp = synthesize({}, { bundle: false, context: { 'handback:backup': 'true' } }).template;
const keyed = synthesize({}, { bundle: false, context: { 'handback:retentionDays': 90 } }).template;

const bucketArn = 'arn:aws:s3:::transcripts-bucket';

/** The statements of the default policy of the function whose logical id starts with `prefix`. */
function statementsOf(source: typeof template, prefix: string): Array<Record<string, unknown>> {
  const policies = Object.entries(source.findResources('AWS::IAM::Policy')).filter(([id]) =>
    id.startsWith(`${prefix}Role`),
  );
  expect(policies.length).toBeGreaterThan(0);
  // The bucket's ARN as a plain string, so the evaluator can match object ARNs against it.
  return JSON.parse(
    JSON.stringify(policies.flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement)).replaceAll(
      /\{"Fn::GetAtt":\["TranscriptsBucket[0-9A-F]+","Arn"\]\}/g,
      JSON.stringify(bucketArn),
    ),
  );
}

describe('the transcript bucket', () => {
  it('is one bucket: public access blocked, objects owned by it, SSE-S3 by default, not versioned', () => {
    template.resourceCountIs('AWS::S3::Bucket', 1);
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      VersioningConfiguration: Match.absent(),
    });
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'RetainExceptOnCreate', UpdateReplacePolicy: 'Retain' });
  });

  it('refuses every request without TLS', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('deletes each object retentionDays + 366 days after writing, past the longest pause and its retention', () => {
    expect(transcriptExpiryDays(30)).toBe(396);
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: [Match.objectLike({ Status: 'Enabled', ExpirationInDays: DEFAULT_RETENTION_DAYS + 366 })],
      },
    });
    keyed.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 90 + 366 })] },
    });
  });

  it('names the bucket in TRANSCRIPT_BUCKET of every function that reads pauses', () => {
    for (const prefix of [
      'ApiHandler',
      'McpHandler',
      'StepFunctionsHandler',
      'SqsHandler',
      'Sweeper',
      'ExampleAgent',
    ]) {
      const found = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) =>
        id.startsWith(`${prefix}Function`),
      );
      if (found === undefined) throw new Error(`no function ${prefix}`);
      const variables = found[1].Properties.Environment.Variables as Record<string, unknown>;
      expect(resolve(variables.TRANSCRIPT_BUCKET), prefix).toMatch(/^\{TranscriptsBucket/);
    }
  });

  it.each([
    ['ApiHandler', ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']],
    ['McpHandler', ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']],
    ['Sweeper', ['s3:GetObject']],
    ['SqsHandler', ['s3:GetObject']],
    // The stream function deletes the objects of the pause items TTL removes, and writes those of closed transcripts
    // it moves out of the table (the bytes it reads from the table's parts); it reads none.
    ['LifecycleHandler', ['s3:PutObject', 's3:DeleteObject']],
  ])('lets %s do only %j, on the bucket’s objects alone', (prefix, allowed) => {
    const statements = statementsOf(template, prefix);
    for (const action of ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']) {
      const expected = allowed.includes(action) ? 'allow' : 'implicit';
      expect(evaluate(statements, { action, resource: `${bucketArn}/t/default/r/run/p/0000000001.x` })).toBe(expected);
      expect(evaluate(statements, { action, resource: 'arn:aws:s3:::another-bucket/t/default/r/run/p/1.x' })).toBe(
        'implicit',
      );
    }
    for (const action of ['s3:ListBucket', 's3:PutBucketPolicy', 's3:DeleteBucket', 's3:*']) {
      expect(evaluate(statements, { action, resource: bucketArn })).toBe('implicit');
    }
  });

  it('lets the example agent touch its own tenant’s objects only', () => {
    const statements = statementsOf(template, 'ExampleAgent');
    expect(evaluate(statements, { action: 's3:PutObject', resource: `${bucketArn}/t/default/r/run/p/1.x` })).toBe(
      'allow',
    );
    expect(evaluate(statements, { action: 's3:GetObject', resource: `${bucketArn}/t/other/r/run/p/1.x` })).toBe(
      'implicit',
    );
  });

  it('adds no backup plan, vault or versioning unless handback:backup asks', () => {
    template.resourceCountIs('AWS::Backup::BackupPlan', 0);
    template.resourceCountIs('AWS::Backup::BackupVault', 0);
    template.resourceCountIs('AWS::Backup::BackupSelection', 0);
  });

  it('with handback:backup, backs up the table and the bucket daily for 35 days, the bucket versioned', () => {
    backedUp.hasResourceProperties('AWS::S3::Bucket', {
      VersioningConfiguration: { Status: 'Enabled' },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ NoncurrentVersionExpiration: { NoncurrentDays: 35 } })]),
      },
    });
    backedUp.resourceCountIs('AWS::Backup::BackupPlan', 1);
    backedUp.hasResourceProperties('AWS::Backup::BackupPlan', {
      BackupPlan: {
        BackupPlanRule: [
          Match.objectLike({ ScheduleExpression: 'cron(0 5 * * ? *)', Lifecycle: { DeleteAfterDays: 35 } }),
        ],
      },
    });
    backedUp.hasResourceProperties('AWS::Backup::BackupSelection', {
      BackupSelection: {
        Resources: Match.arrayWith([
          { 'Fn::GetAtt': [Match.stringLikeRegexp('^CheckpointsTable'), 'Arn'] },
          { 'Fn::GetAtt': [Match.stringLikeRegexp('^TranscriptsBucket'), 'Arn'] },
        ]),
      },
    });
  });

  it('leaves cdk-nag nothing to report', () => {
    expect(violations).toEqual([]);
  });
});
