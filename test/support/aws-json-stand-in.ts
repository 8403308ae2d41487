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
