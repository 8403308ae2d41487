import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** A queue with SQS-managed encryption, TLS only, and the longest retention, so nothing is lost before a person looks. */
export function durableQueue(
  scope: Construct,
  id: string,
  props: Partial<ConstructorParameters<typeof Queue>[2]> = {},
): Queue {
  return new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    ...props,
  });
}
