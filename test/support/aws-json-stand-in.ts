import { createServer } from 'node:http';

/**
 * A stand-in of the AWS JSON-protocol services a bundled function calls (EventBridge's `PutEvents`, Secrets Manager's
 * `GetSecretValue`), in the test's process, for a function run in a child Node (`AWS_ENDPOINT_URL_<SERVICE>`): each
 * request's `X-Amz-Target` and body recorded in order, each answered with `answer`'s JSON; a target `answer` does not
 * know (undefined) gets what the services answer an operation they do not have: 400 `UnknownOperationException`.
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
      const answered = answer(target, body);
      response.writeHead(answered === undefined ? 400 : 200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(answered ?? { __type: 'UnknownOperationException' }));
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

/** `PutEvents`' answer taking every entry of `body`. */
export function everyEventTaken(body: string): unknown {
  const entries = (JSON.parse(body) as { Entries: unknown[] }).Entries;
  return { FailedEntryCount: 0, Entries: entries.map((_, i) => ({ EventId: `e${i}` })) };
}

/** `GetSecretValue`'s answer: the secret `arn` holding `value`. */
export function secretValue(arn: string, value: string): unknown {
  return { ARN: arn, Name: arn.slice(arn.lastIndexOf(':') + 1), SecretString: value, VersionId: 'v1' };
}
