import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

/**
 * A stand-in of the AWS JSON-protocol services a bundled function calls (EventBridge's `PutEvents`, Secrets Manager's
 * `GetSecretValue`), in the test's process, for a function run in a child Node (`AWS_ENDPOINT_URL_<SERVICE>`): each
 * request's `X-Amz-Target` and body recorded in order, each answered with `answer`'s JSON (a 400 when it names an
 * error in `__type`); a target `answer` does not know (undefined) gets what the services answer an operation they do
 * not have: 400 `UnknownOperationException`.
 */
export interface AwsJsonStandIn {
  endpoint: string;
  calls: Array<{ target: string; body: string }>;
  close(): void;
}

export async function startAwsJsonStandIn(
  answer: (target: string, body: string) => unknown | undefined,
): Promise<AwsJsonStandIn> {
  const calls: AwsJsonStandIn['calls'] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const target = String(request.headers['x-amz-target']);
      calls.push({ target, body });
      const answered = answer(target, body) ?? { __type: 'UnknownOperationException' };
      // An error answer (`__type`, as the services name theirs) is a 400, as they send it.
      const refused = typeof answered === 'object' && answered !== null && '__type' in answered;
      response.writeHead(refused ? 400 : 200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(answered));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    calls,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/**
 * `PutEvents`' answer taking every entry of `body`; a request of no entry or of more than 10 is refused with
 * `ValidationException`, as EventBridge refuses it (its API reference: `Entries`, 1 to 10 items).
 */
export function everyEventTaken(body: string): unknown {
  const entries = (JSON.parse(body) as { Entries?: unknown[] }).Entries ?? [];
  if (entries.length < 1 || entries.length > 10) {
    return { __type: 'ValidationException', message: `Entries holds ${entries.length} entries; 1 to 10 are allowed.` };
  }
  return { FailedEntryCount: 0, Entries: entries.map((_, i) => ({ EventId: `e${i}` })) };
}

/** `GetSecretValue`'s answer: the secret `arn` holding `value`. */
export function secretValue(arn: string, value: string): unknown {
  return { ARN: arn, Name: arn.slice(arn.lastIndexOf(':') + 1), SecretString: value, VersionId: 'v1' };
}

/**
 * SQS's `SendMessage` answer for the one queue at `queuePath` (`/<account>/<name>`, on whatever host the stand-in
 * listens): the message's id and the MD5 of its body, which the SDK checks. Refused as SQS refuses it (its API
 * reference and JSON errors): no `QueueUrl` or `MessageBody`, or an empty body, `MissingParameter`; a body over 1 MiB
 * (1,048,576 bytes), `InvalidParameterValue`; another queue, `QueueDoesNotExist`.
 */
export function sqsMessageTaken(queuePath: string): (body: string) => unknown {
  let sent = 0;
  return (body) => {
    const { QueueUrl, MessageBody } = JSON.parse(body) as { QueueUrl?: unknown; MessageBody?: unknown };
    for (const [name, value] of [
      ['QueueUrl', QueueUrl],
      ['MessageBody', MessageBody],
    ] as const) {
      if (typeof value !== 'string' || value === '') {
        return {
          __type: 'com.amazonaws.sqs#MissingParameter',
          message: `The request must contain the parameter ${name}.`,
        };
      }
    }
    const text = MessageBody as string;
    if (Buffer.byteLength(text) > 1_048_576) {
      return {
        __type: 'com.amazonaws.sqs#InvalidParameterValue',
        message: 'One or more parameters are invalid. Reason: Message must be shorter than 1048576 bytes.',
      };
    }
    if (URL.parse(QueueUrl as string)?.pathname !== queuePath) {
      return { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'The specified queue does not exist.' };
    }
    sent += 1;
    return { MessageId: `m-${sent}`, MD5OfMessageBody: createHash('md5').update(text).digest('hex') };
  };
}
