import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { BackupPlan, BackupResource } from 'aws-cdk-lib/aws-backup';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** Props of {@link TranscriptBucket}. */
export interface TranscriptBucketProps {
  /** Days a pause is kept after it expires (`handback:retentionDays`): its transcript object outlives it. */
  readonly retentionDays: number;
  /**
   * The deployment's customer managed key, which encrypts the table too.
   * @default - SSE-S3 (no key to manage, no KMS charges)
   */
  readonly encryptionKey?: IKey;
  /** @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * With the table: versioning on the bucket and an AWS Backup plan (daily, kept 35 days) for both, what
   * `handback:backup=true` asks for (AWS Backup needs versioning to back up a bucket).
   * @default - neither
   */
  readonly backupTable?: ITable;
}

/**
 * Days after writing that S3 deletes a transcript object: a pause waits at most 366 days (the contract's longest
 * `expiresInSeconds`), then its item is kept `retentionDays`; an object that outlives that belongs to no item (a pause whose item
 * write never landed, or one DynamoDB's TTL removed while the stream function could not delete it).
 */
export function transcriptExpiryDays(retentionDays: number): number {
  return retentionDays + 366;
}

/**
 * The bucket transcripts over 64 KB compressed go to (§23): private (public access blocked, objects owned by the
 * bucket), TLS only, encrypted with the deployment's key or SSE-S3, each object deleted `retentionDays` + 366 days
 * after writing. The functions that read or write pauses get `HandbackFunction.bindTranscripts` grants on it alone.
 */
export class TranscriptBucket extends Construct {
  /** The bucket. */
  readonly bucket: Bucket;
  /** The backup plan, with `backupTable`. */
  readonly backupPlan: BackupPlan | undefined;

  constructor(scope: Construct, id: string, props: TranscriptBucketProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;
    const backup = props.backupTable !== undefined;
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: props.encryptionKey ? BucketEncryption.KMS : BucketEncryption.S3_MANAGED,
      encryptionKey: props.encryptionKey,
      bucketKeyEnabled: props.encryptionKey !== undefined,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      lifecycleRules: [
        {
          id: 'transcripts-expire-after-retention',
          expiration: Duration.days(transcriptExpiryDays(props.retentionDays)),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        // Versions replaced or deleted are kept no longer than the backups that could need them.
        ...(backup ? [{ id: 'noncurrent-versions', noncurrentVersionExpiration: Duration.days(35) }] : []),
      ],
      versioned: backup,
      removalPolicy,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Objects are written and read only by the stack functions, whose calls CloudTrail data events record when the account wants them; server access logs would need a second bucket for the same facts.',
    });
    this.backupPlan = props.backupTable === undefined ? undefined : this.#backUp(props.backupTable);
  }

  /** The AWS Backup plan for the table and the bucket. */
  #backUp(table: ITable): BackupPlan {
    const plan = BackupPlan.daily35DayRetention(this, 'BackupPlan');
    const managed = [
      'service-role/AWSBackupServiceRolePolicyForBackup',
      'service-role/AWSBackupServiceRolePolicyForRestores',
      'AWSBackupServiceRolePolicyForS3Backup',
      'AWSBackupServiceRolePolicyForS3Restore',
    ];
    const role = new Role(this, 'BackupRole', {
      assumedBy: new ServicePrincipal('backup.amazonaws.com'),
      managedPolicies: managed.map((name) => ManagedPolicy.fromAwsManagedPolicyName(name)),
    });
    plan.addSelection('TableAndTranscripts', {
      resources: [BackupResource.fromDynamoDbTable(table), BackupResource.fromArn(this.bucket.bucketArn)],
      role,
      disableDefaultBackupPolicy: true,
    });
    Validations.of(role).acknowledge(
      ...managed.map((name) => ({
        id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${name}]`,
        reason:
          'AWS Backup documents these managed policies for its service role (DynamoDB, and S3 backups and restores); they follow the service as it adds what it needs.',
      })),
    );
    return plan;
  }
}
