/**
 * The bench's one table of prices: AWS list prices in us-east-1, each with where it was read. The cost models (the
 * expiry group's, the cost group's per million decided pauses) take every price from here, and the report prints the
 * table with `PRICES_READ`. Update a price here, with its source, and the date. The §23 rows (storage, S3, HTTP API,
 * SQS, EventBridge events, Step Functions, durable functions) were written on that date from the AWS pricing pages
 * they cite, as published then; the bench fetches nothing.
 */

/** The date of the table: when its prices were last set against their sources. */
export const PRICES_READ = '2026-12-07';

/** Each price in US dollars, with where it was read. */
export const PRICES = {
  lambdaRequestPerMillion: {
    usd: 0.2,
    source:
      'AWS Lambda pricing: $0.20 per 1M requests (https://aws.amazon.com/lambda/pricing/, as quoted in https://cloudchipr.com/blog/aws-lambda-pricing)',
  },
  lambdaArmPerGbSecond: {
    usd: 0.0000133334,
    source:
      'AWS Lambda Arm duration, first 7.5 billion GB-s a month: $0.0000133334 per GB-s (https://cloudchipr.com/blog/aws-lambda-pricing)',
  },
  dynamodbReadPerMillion: {
    usd: 0.125,
    source:
      'DynamoDB on-demand, after the November 2024 cut: $0.125 per million read request units (https://airbyte.com/data-engineering-resources/dynamodb-pricing)',
  },
  dynamodbWritePerMillion: {
    usd: 0.625,
    source: 'DynamoDB on-demand: $0.625 per million write request units (same source)',
  },
  scheduledRuleInvocation: {
    usd: 0,
    source:
      'EventBridge scheduled rules on the default bus: events from AWS itself are not charged (https://www.wring.co/blog/aws-eventbridge-pricing-guide: "AWS Service Events: Free")',
  },
  schedulerInvocationPerMillion: {
    usd: 1.0,
    source:
      'EventBridge Scheduler: $1.00 per million invocations after 14 million free a month (https://cloudburn.io/blog/amazon-eventbridge-pricing, March 2026)',
  },
  schedulerFreeInvocationsPerMonth: {
    usd: 14_000_000,
    source: 'the same free tier, in invocations a month',
  },
  schedulerApiCall: {
    usd: 0,
    source:
      'EventBridge Scheduler: "Creating and storing schedules is included; you pay for firing them" (https://awsnegotiations.com/eventbridge-scheduler-cost, May 2026)',
  },
  // §23: what one decided pause costs, and what the same wait costs on Step Functions and Lambda durable functions.
  dynamodbStoragePerGbMonth: {
    usd: 0.25,
    source:
      'DynamoDB Standard table class: $0.25 per GB-month past the first 25 GB (https://aws.amazon.com/dynamodb/pricing/on-demand/)',
  },
  dynamodbPitrPerGbMonth: {
    usd: 0.2,
    source:
      'DynamoDB continuous backups (point-in-time recovery): $0.20 per GB-month of table size, whichever the table class (same page)',
  },
  dynamodbIaStoragePerGbMonth: {
    usd: 0.1,
    source:
      'DynamoDB Standard-IA table class: $0.10 per GB-month, 60% below Standard (https://aws.amazon.com/dynamodb/pricing/on-demand/; "reduce storage costs by up to 60 percent", https://aws.amazon.com/blogs/database/optimize-the-storage-costs-of-your-workloads-with-amazon-dynamodb-standard-ia-table-class/)',
  },
  dynamodbIaReadPerMillion: {
    usd: 0.15625,
    source:
      "DynamoDB Standard-IA on-demand: $0.15625 per million read request units, 25% above Standard (same pages; the China regions' page shows the same 1.25 ratio, ¥0.0725 against ¥0.058)",
  },
  dynamodbIaWritePerMillion: {
    usd: 0.78125,
    source: 'DynamoDB Standard-IA on-demand: $0.78125 per million write request units, 25% above Standard (same pages)',
  },
  s3StandardPerGbMonth: {
    usd: 0.023,
    source: 'S3 Standard storage, first 50 TB: $0.023 per GB-month (https://aws.amazon.com/s3/pricing/)',
  },
  s3PutPerThousand: {
    usd: 0.005,
    source: 'S3 Standard PUT, COPY, POST, LIST: $0.005 per 1,000 requests (same page)',
  },
  s3GetPerThousand: {
    usd: 0.0004,
    source: 'S3 Standard GET, SELECT and other reads: $0.0004 per 1,000 requests (same page); DELETE is free',
  },
  httpApiPerMillion: {
    usd: 1.0,
    source:
      'API Gateway HTTP APIs: $1.00 per million requests, first 300 million a month, per 512 KB (https://aws.amazon.com/api-gateway/pricing/)',
  },
  sqsPerMillion: {
    usd: 0.4,
    source:
      'SQS standard queues: $0.40 per million requests past the first million, per 64 KB chunk (https://aws.amazon.com/sqs/pricing/)',
  },
  eventBridgePerMillion: {
    usd: 1.0,
    source:
      'EventBridge custom events: $1.00 per million events, per 64 KB chunk (https://aws.amazon.com/eventbridge/pricing/)',
  },
  stepFunctionsStandardPerThousandTransitions: {
    usd: 0.025,
    source:
      'Step Functions Standard workflows: $0.025 per 1,000 state transitions (https://aws.amazon.com/step-functions/pricing/)',
  },
  durableOperationsPerMillion: {
    usd: 8.0,
    source:
      'Lambda durable functions: $8.00 per million durable operations (steps, waits, callbacks) (https://aws.amazon.com/lambda/pricing/, durable functions, as published at launch in December 2025)',
  },
  durableDataWrittenPerGb: {
    usd: 0.25,
    source: 'Lambda durable functions: $0.25 per GB of data written by durable operations (same page)',
  },
  durableDataRetainedPerGbMonth: {
    usd: 0.15,
    source: 'Lambda durable functions: $0.15 per GB-month of data retained (same page)',
  },
} as const;
