import { createHash } from 'node:crypto';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsJsonStandIn, sqsMessageTaken, startAwsJsonStandIn } from '../support/aws-json-stand-in.ts';

/** The benchmarks' SQS stand-in (`sqsMessageTaken`), reached by the real SDK client: it refuses what SQS refuses. */
describe("the SQS stand-in's SendMessage", () => {
  const path = '/111122223333/handoff';
  let standIn: AwsJsonStandIn;
  let sqs: SQSClient;
  beforeAll(async () => {
    const send = sqsMessageTaken(path);
    standIn = await startAwsJsonStandIn((target, body) =>
      target === 'AmazonSQS.SendMessage' ? send(body) : undefined,
    );
    sqs = new SQSClient({
      endpoint: standIn.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
  });
  afterAll(() => {
    sqs.destroy();
    standIn.close();
  });
  const queueUrl = () => `${standIn.endpoint}${path}`;

  it('takes a message for its queue, answering the MD5 of its body the SDK checks', async () => {
    const sent = await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl(), MessageBody: '{"runId":"r-1"}' }));
    expect(sent.MessageId).toMatch(/^m-\d+$/);
    expect(sent.MD5OfMessageBody).toBe(createHash('md5').update('{"runId":"r-1"}').digest('hex'));
  });

  it.each([
    ['an empty body', () => ({ QueueUrl: queueUrl(), MessageBody: '' }), 'MissingParameter', /MessageBody/],
    ['no body', () => ({ QueueUrl: queueUrl() }), 'MissingParameter', /MessageBody/],
    [
      'a body over 1 MiB',
      () => ({ QueueUrl: queueUrl(), MessageBody: 'x'.repeat(1_048_577) }),
      'InvalidParameterValue',
      /shorter than 1048576 bytes/,
    ],
    [
      'another queue',
      () => ({ QueueUrl: `${standIn.endpoint}/111122223333/other`, MessageBody: 'x' }),
      'QueueDoesNotExist',
      /does not exist/,
    ],
  ])('refuses %s as SQS does', async (_, input, name, message) => {
    const error = await sqs
      .send(new SendMessageCommand(input() as ConstructorParameters<typeof SendMessageCommand>[0]))
      .catch((e: unknown) => e as Error & { $metadata?: { httpStatusCode?: number } });
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe(name);
    expect((error as Error).message).toMatch(message);
    expect((error as { $metadata: { httpStatusCode?: number } }).$metadata.httpStatusCode).toBe(400);
  });
});
