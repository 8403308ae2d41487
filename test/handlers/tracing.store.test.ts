import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BatchGetItemCommand, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DAEMON_HEADER, daemonAddress, parseTraceHeader, traceAwsClient } from '../../functions/handlers/tracing.ts';
import { testClientConfig, useTestTable } from '../support/dynamodb.ts';

/**
 * X-Ray subsegments of the AWS SDK calls, sent to a stand-in of Lambda's X-Ray daemon (a UDP socket on this machine,
 * `AWS_XRAY_DAEMON_ADDRESS`), for calls to the embedded DynamoDB-compatible server and to a stand-in that fails as
 * DynamoDB does (500, throttling). Each datagram is checked as the X-Ray Developer Guide specifies it: the daemon
 * header line, then one subsegment document with `type: "subsegment"`, its `parent_id`, ids of 16 hex digits and
 * times in epoch seconds.
 */

const table = useTestTable();
const ROOT = '1-6760a1b2-a006649127e371903a2de979';
const PARENT = '53995c3f42cd8ad8';

let daemon: Socket;
let datagrams: string[] = [];
let failing: Server;
let failingStatus = 500;
let failingBody = '{}';
const seenHeaders: Array<string | undefined> = [];
const saved = { ...process.env };

beforeAll(async () => {
  daemon = createSocket('udp4');
  daemon.on('message', (message) => datagrams.push(message.toString('utf8')));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  failing = createServer((request, response) => {
    seenHeaders.push(request.headers['x-amzn-trace-id'] as string | undefined);
    request.resume();
    request.on('end', () => {
      response.writeHead(failingStatus, {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-requestid': 'stand-in-request',
      });
      response.end(failingBody);
    });
  });
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  daemon.close();
  await new Promise((resolve) => failing.close(resolve));
});

beforeEach(() => {
  datagrams = [];
  seenHeaders.length = 0;
  process.env.AWS_LAMBDA_FUNCTION_NAME = 'handback-api';
  process.env._X_AMZN_TRACE_ID = `Root=${ROOT};Parent=${PARENT};Sampled=1;Lineage=a87bd80c:0`;
  process.env.AWS_XRAY_DAEMON_ADDRESS = `127.0.0.1:${(daemon.address() as AddressInfo).port}`;
  delete process.env.POWERTOOLS_TRACE_ENABLED;
});

afterEach(() => {
  for (const key of ['AWS_LAMBDA_FUNCTION_NAME', '_X_AMZN_TRACE_ID', 'AWS_XRAY_DAEMON_ADDRESS']) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});

/** A traced client on the embedded server, recording the trace header each request carried. */
function tracedClient(endpoint?: string, attempts = 1): { client: DynamoDBClient; headers: Array<string | undefined> } {
  const headers: Array<string | undefined> = [];
  const client = traceAwsClient(
    new DynamoDBClient({ ...testClientConfig(endpoint), maxAttempts: attempts, retryMode: 'standard' }),
  );
  client.middlewareStack.add(
    (next, _context) => async (args) => {
      headers.push((args.request as { headers: Record<string, string> }).headers['X-Amzn-Trace-Id']);
      return next(args);
    },
    { step: 'finalizeRequest', name: 'recordTraceHeader' },
  );
  return { client, headers };
}

/** The subsegments received so far, each datagram checked for the daemon's header line. */
async function subsegments(count: number): Promise<Array<Record<string, unknown>>> {
  await vi.waitFor(() => expect(datagrams.length).toBeGreaterThanOrEqual(count), { timeout: 5_000, interval: 5 });
  return datagrams.map((datagram) => {
    expect(datagram.startsWith(DAEMON_HEADER)).toBe(true);
    return JSON.parse(datagram.slice(DAEMON_HEADER.length)) as Record<string, unknown>;
  });
}

describe('X-Ray subsegments of AWS SDK calls', () => {
  it('sends one subsegment per call, parented to the function segment, and carries its id on in the trace header', async () => {
    const { client, headers } = tracedClient();
    const before = Date.now() / 1000;
    await client.send(new GetItemCommand({ TableName: table.tableName, Key: { pk: { S: 'p' }, sk: { S: 's' } } }));
    const [document] = await subsegments(1);
    expect(datagrams).toHaveLength(1);
    expect(document).toMatchObject({
      name: 'DynamoDB',
      trace_id: ROOT,
      parent_id: PARENT,
      type: 'subsegment',
      namespace: 'aws',
      aws: { operation: 'GetItem', region: await client.config.region(), retries: 0, table_name: table.tableName },
      http: { response: { status: 200 } },
    });
    expect(document?.id).toMatch(/^[0-9a-f]{16}$/);
    expect(document).not.toHaveProperty('error');
    expect(document).not.toHaveProperty('fault');
    expect(document?.start_time as number).toBeGreaterThanOrEqual(Math.floor(before));
    expect(document?.end_time as number).toBeGreaterThanOrEqual(document?.start_time as number);
    // The service continues the trace under this subsegment; Lambda's recursion detection keeps its Lineage.
    expect(headers).toEqual([`Root=${ROOT};Parent=${document?.id};Sampled=1;Lineage=a87bd80c:0`]);
    client.destroy();
  });

  it('names every table of a batch read, and traces a client traced twice once', async () => {
    const { client } = tracedClient();
    traceAwsClient(client);
    await client.send(
      new BatchGetItemCommand({
        RequestItems: { [table.tableName]: { Keys: [{ pk: { S: 'p' }, sk: { S: 's' } }], ConsistentRead: true } },
      }),
    );
    const documents = await subsegments(1);
    expect(documents).toHaveLength(1);
    expect(documents[0]?.aws).toMatchObject({ operation: 'BatchGetItem', table_names: [table.tableName] });
    client.destroy();
  });

  it('marks a refused call an error with its remote cause, and the request id the service gave', async () => {
    const { client } = tracedClient();
    await expect(
      client.send(new GetItemCommand({ TableName: 'no-such-table', Key: { pk: { S: 'p' }, sk: { S: 's' } } })),
    ).rejects.toThrow();
    const [document] = await subsegments(1);
    expect(document).toMatchObject({
      error: true,
      http: { response: { status: 400 } },
      aws: { operation: 'GetItem', table_name: 'no-such-table' },
      cause: { exceptions: [{ type: 'ResourceNotFoundException', remote: true }] },
    });
    expect(document).toHaveProperty('aws.request_id', expect.stringMatching(/\S/));
    expect(document).not.toHaveProperty('fault');
    client.destroy();
  });

  it('marks a 500 a fault, counting the retries, and throttling a throttle', async () => {
    const endpoint = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
    failingStatus = 500;
    failingBody = JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'x' });
    const { client } = tracedClient(endpoint, 2);
    await expect(client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'p' } } }))).rejects.toThrow();
    const [fault] = await subsegments(1);
    expect(fault).toMatchObject({
      fault: true,
      http: { response: { status: 500 } },
      aws: { retries: 1, request_id: 'stand-in-request' },
    });
    expect(fault).not.toHaveProperty('error');
    // Both attempts carried the same trace header, this subsegment's.
    expect(seenHeaders).toEqual([
      `Root=${ROOT};Parent=${fault?.id};Sampled=1;Lineage=a87bd80c:0`,
      `Root=${ROOT};Parent=${fault?.id};Sampled=1;Lineage=a87bd80c:0`,
    ]);

    datagrams = [];
    failingStatus = 400;
    failingBody = JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'slow' });
    const once = tracedClient(endpoint, 1).client;
    await expect(once.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'p' } } }))).rejects.toThrow();
    const [throttled] = await subsegments(1);
    expect(throttled).toMatchObject({ throttle: true, error: true, http: { response: { status: 400 } } });
    client.destroy();
    once.destroy();
  });

  it('marks a call that never reached the service a fault with a local cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { client } = tracedClient(`http://127.0.0.1:${port}`, 1);
    await expect(client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'p' } } }))).rejects.toThrow();
    const [document] = await subsegments(1);
    expect(document).toMatchObject({ fault: true, cause: { exceptions: [{ remote: false }] } });
    expect(document).not.toHaveProperty('http');
    client.destroy();
  });

  it('sends nothing for an invocation not sampled, and tells the service so', async () => {
    process.env._X_AMZN_TRACE_ID = `Root=${ROOT};Parent=${PARENT};Sampled=0`;
    const { client, headers } = tracedClient();
    await client.send(new GetItemCommand({ TableName: table.tableName, Key: { pk: { S: 'p' }, sk: { S: 's' } } }));
    expect(headers).toEqual([`Root=${ROOT};Parent=${PARENT};Sampled=0`]);
    // A sampled call after it is received: had the unsampled one been sent, it would have arrived first.
    process.env._X_AMZN_TRACE_ID = `Root=${ROOT};Parent=${PARENT};Sampled=1`;
    await client.send(new GetItemCommand({ TableName: table.tableName, Key: { pk: { S: 'p' }, sk: { S: 's' } } }));
    const documents = await subsegments(1);
    expect(documents).toHaveLength(1);
    expect(documents[0]?.id).toBe(headers[1]?.split(';')[1]?.slice('Parent='.length));
    client.destroy();
  });

  it('does nothing outside Lambda or with tracing turned off', async () => {
    for (const setup of [
      () => delete process.env.AWS_LAMBDA_FUNCTION_NAME,
      () => {
        process.env.POWERTOOLS_TRACE_ENABLED = 'false';
      },
    ]) {
      setup();
      const { client, headers } = tracedClient();
      await client.send(new GetItemCommand({ TableName: table.tableName, Key: { pk: { S: 'p' }, sk: { S: 's' } } }));
      // Outside Lambda the SDK adds no header; with tracing off, its recursion detection passes Lambda's on as it is.
      expect(headers[0] === undefined || headers[0] === process.env._X_AMZN_TRACE_ID).toBe(true);
      client.destroy();
    }
    // A marker datagram proves the socket was listening all along.
    const marker = createSocket('udp4');
    await new Promise<void>((resolve) =>
      marker.send('marker', (daemon.address() as AddressInfo).port, '127.0.0.1', () => resolve()),
    );
    marker.close();
    await vi.waitFor(() => expect(datagrams).toEqual(['marker']), { timeout: 5_000, interval: 5 });
    delete process.env.POWERTOOLS_TRACE_ENABLED;
  });
});

describe('trace header and daemon address', () => {
  it('parses the trace header, keeping the keys it does not know in order', () => {
    expect(parseTraceHeader(`Root=${ROOT};Parent=${PARENT};Sampled=1;Lineage=a:1;Self=x`)).toEqual({
      root: ROOT,
      parent: PARENT,
      sampled: true,
      rest: ['Lineage=a:1', 'Self=x'],
    });
    expect(parseTraceHeader(`Root=${ROOT};Sampled=1`)).toBeUndefined();
    expect(parseTraceHeader(undefined)).toBeUndefined();
    expect(parseTraceHeader(`Root=${ROOT};Parent=${PARENT};junk;=x`)).toMatchObject({ sampled: false, rest: [] });
  });

  it('reads the daemon address as Lambda and the X-Ray docs write it', () => {
    expect(daemonAddress('169.254.79.129:2000')).toEqual({ host: '169.254.79.129', port: 2000 });
    expect(daemonAddress('tcp:10.0.0.1:2001 udp:10.0.0.2:2002')).toEqual({ host: '10.0.0.2', port: 2002 });
    expect(daemonAddress(undefined)).toEqual({ host: '127.0.0.1', port: 2000 });
    expect(daemonAddress('nonsense')).toEqual({ host: '127.0.0.1', port: 2000 });
  });
});
