import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { checkPauseInput } from '../../functions/checkpoints/pause-checks.ts';
import { HandbackError } from '../../functions/errors.ts';
import { createApiHandler } from '../../functions/handlers/http-api.ts';
import { createHandoff } from '../../functions/handoff/handoff.ts';
import { appendResults, applyDecisions, checkTranscript, FORMAT_NAMES, rehydrate } from '../../functions/index.ts';
import { createAnswerLinks } from '../../functions/links/answer-links.ts';
import { turnContext } from '../../functions/rehydrate/context.ts';
import { parseDecisions } from '../../functions/rehydrate/decide.ts';
import { formats } from '../../functions/rehydrate/formats/index.ts';
import { checkJsonDepth, parseTriggerRequest } from '../../functions/resume/request.ts';
import { approvalTranscript } from '../../functions/testing/service-spec.ts';
import { countOperations } from '../fixtures/operations.ts';
import { httpEvent, lambdaContext } from '../handlers/events.ts';
import { testTelemetry } from '../handlers/telemetry.ts';

/**
 * Fuzz (issue: "hostile input"): every HTTP route and every library export takes arbitrary JSON and arbitrary bytes
 * and answers with a 4xx problem or a named `HandbackError` — never a 5xx, never a `TypeError` — and the checks on the
 * request path are linear in their input, counted (not timed) as in `test/rehydrate/linearity.test.ts`.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

/** A thrown value is acceptable when Handback threw it on purpose. */
function expectNamed(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HandbackError);
    expect((error as Error).name).not.toBe('TypeError');
  }
}

const anyFormat = fc.oneof(fc.constantFrom(...FORMAT_NAMES), fc.string());

describe('every library export, on arbitrary input', () => {
  it('rehydrate, checkTranscript, applyDecisions, appendResults and turnContext throw only named errors', () => {
    fc.assert(
      fc.property(anyFormat, fc.anything(), fc.anything(), fc.anything(), (format, messages, answer, other) => {
        expectNamed(() => rehydrate({ format, messages, toolCallId: other } as never, answer));
        expectNamed(() => rehydrate(messages as never, answer));
        expectNamed(() => checkTranscript(format, messages));
        expectNamed(() => applyDecisions({ format, messages } as never, other as never));
        expectNamed(() => applyDecisions(messages as never, [answer] as never));
        expectNamed(() => appendResults(format, messages as never, other as never));
        expectNamed(() => turnContext(format, messages as never));
      }),
      { numRuns: RUNS },
    );
  });

  it('the store refuses anything that is not a well-formed request with a named error, and changes nothing', async () => {
    const store = createMemoryCheckpointStore();
    await fc.assert(
      fc.asyncProperty(fc.anything(), fc.anything(), async (input, extra) => {
        const calls = [
          () => store.pause(input as never),
          () =>
            store.pause({ tenant: 'acme', runId: 'r', format: 'openai-chat', messages: input, asks: extra } as never),
          () => store.resume(input as never),
          () => store.resume({ tenant: 'acme', runId: 'r', interruptId: extra, answer: input } as never),
          () =>
            store.decide({
              tenant: 'acme',
              runId: 'r',
              interruptId: '1.1.AAAAAAAAAAAAAAAAAAAAAA',
              decisions: input,
            } as never),
          () => store.cancel({ tenant: 'acme', runId: 'r', interruptId: extra, reason: input } as never),
          () => store.getPause(input as never),
          () => store.getContinuation(input as never),
          () => store.listPauses({ tenant: 'acme', status: input, cursor: extra } as never),
        ];
        for (const call of calls) {
          const outcome = await call().then(
            () => undefined,
            (error: unknown) => error,
          );
          if (outcome !== undefined) expect(outcome).toBeInstanceOf(HandbackError);
        }
      }),
      { numRuns: RUNS },
    );
    expect((await store.listPauses({ tenant: 'acme' })).items).toEqual([]);
  });

  it.each([
    ['an object whose toString is not a function', { toString: '' }],
    [
      'an object whose valueOf throws',
      {
        valueOf: () => {
          throw new Error('no');
        },
      },
    ],
    ['an object without a prototype', Object.create(null)],
    ['a symbol', Symbol('s')],
  ])('the store names what is wrong with %s in any field, without calling it', async (_, hostile) => {
    const store = createMemoryCheckpointStore();
    const key = { tenant: 'acme', runId: 'r' };
    const attempts = [
      () => store.getPause({ ...key, interruptId: hostile } as never),
      () => store.getContinuation({ ...key, continuationId: hostile } as never),
      () => store.resume({ ...key, interruptId: hostile, answer: 'x' } as never),
      () => store.cancel({ ...key, interruptId: hostile } as never),
      () => store.listPauses({ tenant: 'acme', limit: hostile } as never),
      () =>
        store.pause({
          ...key,
          format: 'openai-chat',
          messages: [],
          toolCallId: 'c',
          expiresInSeconds: hostile,
        } as never),
      () =>
        store.pause({
          ...key,
          format: hostile,
          messages: [],
          asks: [{ toolCallId: 'c', kind: hostile }],
          onExpiry: hostile,
        } as never),
    ];
    for (const attempt of attempts) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HandbackError);
    }
  });

  it('the trigger request parser throws only named errors', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => expectNamed(() => parseTriggerRequest(input, 'sqs'))),
      { numRuns: RUNS },
    );
  });
});

describe('every HTTP route, on arbitrary requests', () => {
  const secret = new TextEncoder().encode('a-link-secret-of-at-least-32-bytes!!');
  const telemetry = testTelemetry();
  const store = createMemoryCheckpointStore();
  const handler = createApiHandler({
    store,
    handoff: createHandoff({ target: 'none' }, {}, telemetry.logger),
    links: createAnswerLinks(secret),
    ...telemetry,
  });
  const routes = [
    ['POST', '/runs/{run}/pauses'],
    ['GET', '/runs/{run}/pauses/{id}'],
    ['POST', '/runs/{run}/pauses/{id}/cancel'],
    ['POST', '/runs/{run}/resume'],
    ['GET', '/runs/{run}/continuations/{id}'],
    ['GET', '/pauses'],
    ['GET', '/links/pause'],
    ['POST', '/links/resume'],
    ['GET', '/inbox/{id}'],
  ] as const;
  const segment = fc.oneof(
    fc.constantFrom('r1', '1.1.AAAAAAAAAAAAAAAAAAAAAA', '..', '%', ''),
    fc.string({ maxLength: 40 }),
  );
  const body = fc.oneof(
    fc.jsonValue().map((value) => ({ body: value })),
    fc.string().map((raw) => ({ rawBody: raw })),
    fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ rawBody: Buffer.from(bytes).toString('latin1') })),
    fc
      .record({
        interruptId: segment,
        answer: fc.jsonValue(),
        decisions: fc.array(fc.record({ toolCallId: segment, decision: fc.string(), args: fc.jsonValue() }), {
          maxLength: 3,
        }),
      })
      .map((value) => ({ body: value })),
  );
  const query = fc.dictionary(
    fc.constantFrom('status', 'limit', 'cursor', 'include', 'from'),
    fc.string({ maxLength: 20 }),
  );

  it('answers every request with a status under 500, and every refusal as a problem with a code', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        segment,
        segment,
        body,
        query,
        fc.constantFrom('application/json', 'text/plain', 'application/x+json', 'APPLICATION/JSON; charset=x'),
        fc.option(fc.string({ maxLength: 60 })),
        async ([method, template], run, id, payload, params, contentType, link) => {
          const path = template.replace('{run}', encodeURIComponent(run)).replace('{id}', encodeURIComponent(id));
          const search = new URLSearchParams(params).toString();
          const event = httpEvent(method, `${path}${search ? `?${search}` : ''}`, {
            ...(method === 'POST' ? payload : {}),
            contentType,
            headers: link === null ? {} : { 'x-handback-link': link },
          });
          const result = await handler(event, lambdaContext());
          expect(result.statusCode).toBeLessThan(500);
          if ((result.statusCode ?? 0) >= 400) {
            expect(result.headers?.['Content-Type']).toBe('application/problem+json');
            expect(JSON.parse(String(result.body)).code).toEqual(expect.any(String));
          }
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });
});

describe('the checks on the request path are linear in their input (counted, not timed)', () => {
  const MAX_RATIO = 6;

  /** An openai-chat transcript of `n` earlier rounds and a paused round of 16 calls, each asked. */
  function pauseOf(n: number) {
    const messages: unknown[] = [{ role: 'system', content: 'Be brief.' }];
    for (let r = 0; r < n; r++) {
      messages.push({ role: 'user', content: `Question ${r}` });
      messages.push({ role: 'assistant', content: `Answer ${r}` });
    }
    const round = approvalTranscript().slice(1);
    const asks = [{ toolCallId: 'call_ask' }, { toolCallId: 'call_refund', kind: 'approval' as const }];
    return {
      tenant: 'acme',
      runId: 'r1',
      format: 'openai-chat' as const,
      messages: [...messages, ...round],
      asks,
      metadata: { ticket: 'T-1' },
    };
  }

  it('checks a pause in time linear in its transcript', () => {
    const small = countOperations(pauseOf(200), (input) => checkPauseInput(input, formats['openai-chat']));
    const large = countOperations(pauseOf(800), (input) => checkPauseInput(input, formats['openai-chat']));
    expect(large / small).toBeLessThan(MAX_RATIO);
  });

  it('checks decisions in time linear in their answers', () => {
    const decisions = (n: number) => [
      { toolCallId: 'call_ask', answer: Array.from({ length: n }, (_, i) => ({ i, s: `v${i}` })) },
      { toolCallId: 'call_refund', decision: 'edit', args: { list: Array.from({ length: n }, (_, i) => i) } },
    ];
    const small = countOperations(decisions(500), (input) => parseDecisions(input));
    const large = countOperations(decisions(2000), (input) => parseDecisions(input));
    expect(large / small).toBeLessThan(MAX_RATIO);
  });

  it('bounds the depth of a request body in time linear in its size', () => {
    const wide = (n: number) => ({ items: Array.from({ length: n }, (_, i) => ({ i, nested: [i, { i }] })) });
    const small = countOperations(wide(500), (input) => checkJsonDepth(input, 'body'));
    const large = countOperations(wide(2000), (input) => checkJsonDepth(input, 'body'));
    expect(large / small).toBeLessThan(MAX_RATIO);
  });
});
