import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableClass,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { INDEXES, TABLE } from '../functions/checkpoints/table.ts';

/** Props of {@link CheckpointTable}. */
export interface CheckpointTableProps {
  /**
   * A customer managed KMS key to encrypt the table with.
   * @default - an AWS owned key (no key to manage, no KMS charges)
   */
  readonly encryptionKey?: IKey;
  /**
   * What happens to the table when it leaves the stack. Deletion protection is on unless this is `DESTROY`.
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * The table class: Standard-Infrequent Access stores for 60% less and serves requests for 25% more, which a year of
   * audit trail repays (`npm run bench -- cost`). Changing it is an online update (twice in 30 days at most).
   * @default 'standard-ia'
   */
  readonly tableClass?: 'standard' | 'standard-ia';
}

/** A key attribute of `TABLE` as CDK spells it. */
function attribute(key: { readonly name: string; readonly type: 'S' | 'N' | 'B' }) {
  const type = { S: AttributeType.STRING, N: AttributeType.NUMBER, B: AttributeType.BINARY }[key.type];
  return { name: key.name, type };
}

/**
 * The checkpoint table, built from `TABLE` and `INDEXES` (the same objects the store and the tests use): on-demand,
 * Standard-IA by default, the TTL attribute, point-in-time recovery, encryption at rest, deletion protection and RETAIN by default, and a
 * stream of new and old images, from which lifecycle events are made.
 */
export class CheckpointTable extends Construct {
  /** The table. */
  readonly table: Table;

  constructor(scope: Construct, id: string, props: CheckpointTableProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;
    // Table, not TableV2: TableV2 cannot render a customer key in an environment-agnostic stack.
    this.table = new Table(this, 'Table', {
      partitionKey: attribute(TABLE.partitionKey),
      sortKey: attribute(TABLE.sortKey),
      timeToLiveAttribute: TABLE.timeToLiveAttribute,
      billingMode: BillingMode.PAY_PER_REQUEST,
      tableClass: props.tableClass === 'standard' ? TableClass.STANDARD : TableClass.STANDARD_INFREQUENT_ACCESS,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: props.encryptionKey ? TableEncryption.CUSTOMER_MANAGED : TableEncryption.DEFAULT,
      encryptionKey: props.encryptionKey,
      deletionProtection: removalPolicy !== RemovalPolicy.DESTROY,
      removalPolicy,
      // Every committed change of a pause, before and after: the lifecycle stream function names the change from both.
      stream: StreamViewType.NEW_AND_OLD_IMAGES,
    });
    // Keys only: the store reads the items it finds (strongly consistent), so an index never shows a stale pause.
    for (const index of INDEXES) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        sortKey: attribute(index.sortKey),
        projectionType: ProjectionType.KEYS_ONLY,
      });
    }
  }
}
