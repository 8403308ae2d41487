import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as errors from '../../functions/client/index.ts';
import {
  createHandbackClient,
  ERROR_FATES,
  type ErrorCode,
  HandbackError,
  HandbackHttpError,
} from '../../functions/client/index.ts';
import { reply, standIn } from './support.ts';

/** The problem a stand-in answers each request with, by the code in its path (`/runs/<code>/…`). */
const problemFor = (code: string, status: number) => ({
  type: `urn:handback:problem:${code}`,
  title: 'A title',
  status,
  detail: `The service refused: ${code}.`,
  code,
  toolCallId: 'call_1',
  continuationId: 'cont_1',
  failures: [{ path: '/answer', message: 'must be a string' }],
});

let server: Awaited<ReturnType<typeof standIn>>;
beforeAll(async () => {
  server = await standIn((request, response) => {
    const code = decodeURIComponent(request.url.split('/')[2] ?? '');
    const fate = ERROR_FATES[code as ErrorCode];
    if (fate !== undefined) return reply(response, fate.status, problemFor(code, fate.status), { 'retry-after': '7' });
    if (code === 'not-a-problem') return reply(response, 502, { message: 'bad gateway' });
    return reply(response, 418, problemFor(code, 418));
  });
});
afterAll(() => server.close());

const client = () => createHandbackClient({ baseUrl: server.url, maxAttempts: 1 });

describe('problems into errors', () => {
  it.each(Object.entries(ERROR_FATES))('throws %s as the class ERROR_FATES names for it', async (code, fate) => {
    const error = await client()
      .decide({ runId: code, interruptId: 'int_1', decisions: [{ toolCallId: 'call_1', decision: 'approve' }] })
      .catch((e: unknown) => e);
    const Class = (errors as unknown as Record<string, new (...args: never[]) => Error>)[fate.name];
    expect(Class, `handback/client exports ${fate.name}`).toBeTypeOf('function');
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(HandbackError);
    expect(error).toMatchObject({
      name: fate.name,
      code,
      message: `The service refused: ${code}.`,
      runId: code,
      interruptId: 'int_1',
      toolCallId: 'call_1',
      continuationId: 'cont_1',
    });
    expect((error as Error).stack).toContain(fate.name);
  });

  it('carries Retry-After as retryAfterSeconds on a storage_unavailable it gives up on', async () => {
    const error = await client()
      .getPause({ runId: 'storage_unavailable', interruptId: 'int_1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errors.StorageUnavailableError);
    expect(error).toMatchObject({ retryAfterSeconds: 7 });
  });

  it('carries the failures of an invalid_answer over', async () => {
    const error = await client()
      .resume({ runId: 'invalid_answer', interruptId: 'int_1', answer: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errors.InvalidAnswerError);
    expect((error as errors.InvalidAnswerError).failures).toEqual([{ path: '/answer', message: 'must be a string' }]);
  });

  it.each([
    ['an unknown code', 'no_such_code', 418, 'no_such_code'],
    ['an edge code', 'unauthorized', 418, 'unauthorized'],
  ])('throws HandbackHttpError with the status and the code for %s', async (_, code, status, expected) => {
    const error = await client()
      .getPause({ runId: code, interruptId: 'int_1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HandbackHttpError);
    expect(error).toBeInstanceOf(HandbackError);
    expect(error).toMatchObject({ name: 'HandbackHttpError', status, code: expected });
    expect((error as HandbackHttpError).problem).toMatchObject({ code });
  });

  it('throws HandbackHttpError with the status for a response that is not a problem', async () => {
    const error = await client()
      .getPause({ runId: 'not-a-problem', interruptId: 'int_1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HandbackHttpError);
    expect(error).toMatchObject({ status: 502, problem: undefined });
  });

  it('refuses a client without an http(s) baseUrl with BadRequestError', () => {
    expect(() => createHandbackClient({ baseUrl: 'localhost:3000' })).toThrow(errors.BadRequestError);
  });
});
