import { describe, expect, it } from 'vitest';
import type { PauseChange } from '../../functions/checkpoints/checkpoint-service.ts';
import type { CheckpointStore } from '../../functions/checkpoints/checkpoint-store.ts';
import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { ForbiddenError, LinkKeyUnavailableError } from '../../functions/errors.ts';
import { createLifecycleEmitter } from '../../functions/events/emitter.ts';
import type { LifecycleEvent } from '../../functions/events/lifecycle.ts';
import { createApiHandler } from '../../functions/handlers/http-api.ts';
import { createAnswerLinks } from '../../functions/links/answer-links.ts';
import { createLink, pauseTurn, type UseCaseDeps } from '../../functions/resume/resume.ts';
import type { Principal } from '../../functions/wire.ts';
import { httpEvent, lambdaContext, pauseBody } from '../handlers/events.ts';
import { testTelemetry } from '../handlers/telemetry.ts';

/** Who decides with a link (§13), who may make one, and what a pause does when the link key cannot be had. */

const key = new TextEncoder().encode('a-link-secret-of-at-least-32-bytes!!');
const INBOX = 'https://h.example/inbox';

/** A memory store that records the `by` of every resume and decide it is given. */
function recordingStore(): { store: CheckpointStore; by: unknown[] } {
  const inner = createMemoryCheckpointStore();
  const by: unknown[] = [];
  const store = new Proxy(inner, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if (typeof value !== 'function') return value;
      if (property === 'resume' || property === 'decide') {
        return (input: { by?: unknown }) => {
          by.push(input.by);
          return value.call(target, input);
        };
      }
      return value.bind(target);
    },
  });
  return { store, by };
}

function deps(store: CheckpointStore, links = createAnswerLinks(key)): UseCaseDeps & ReturnType<typeof testTelemetry> {
  const telemetry = testTelemetry();
  return { store, handoff: { deliver: async () => {} }, links, inboxUrl: INBOX, ...telemetry };
}

const person = {
  kind: 'person',
  subject: 'person-1',
  email: 'lead@example.com',
  emailVerified: true,
  via: 'api',
} as const;
const tokenOf = (url: string) => url.slice(url.indexOf('#') + 1);

async function pausedIn(d: UseCaseDeps, by: Principal = person) {
  return pauseTurn(d, {
    tenant: 'acme',
    runId: `run-${Math.random().toString(36).slice(2)}`,
    format: 'openai-chat',
    messages: pauseBody().messages as unknown[],
    toolCallId: 'call_ask',
    by,
  });
}

describe('a decision through a link (§16)', () => {
  it.each([
    [
      'the pause’s own link, granted to the person who paused, as that person',
      undefined,
      () => ({ ...person, via: 'link', groups: [] }),
    ],
    [
      'a granted link, as its grantor, with the recipient as a label',
      { email: 'Ada@Example.com', name: 'Ada' },
      () => ({ ...person, via: 'link', for: { email: 'Ada@Example.com', name: 'Ada' }, groups: [] }),
    ],
  ])('is made by %s', async (_, recipient, expected) => {
    const { store, by } = recordingStore();
    const d = deps(store);
    const created = await pausedIn(d);
    const url =
      recipient === undefined
        ? ((created as { answerUrl?: string }).answerUrl as string)
        : (await createLink(d, { tenant: 'acme', ...created, recipient, by: person })).answerUrl;
    const handler = createApiHandler(d);
    const response = await handler(
      httpEvent('POST', '/links/resume', {
        body: { answer: 'yes' },
        claims: null,
        headers: { 'x-handback-link': tokenOf(url) },
      }),
      lambdaContext(),
    );
    expect(response.statusCode).toBe(200);
    expect(by).toEqual([expected()]);
  });
});

describe('making a link', () => {
  it.each([
    ['an agent', { kind: 'agent', subject: 'agent-1', via: 'api' }],
    ['a link', { kind: 'link', subject: 'link:1.1.A', via: 'link' }],
    ['a service', { kind: 'service', subject: 'service:sqs', via: 'sqs' }],
  ] as const)('is forbidden to %s, before the pause is read', async (_, by) => {
    const d = deps(createMemoryCheckpointStore());
    const refused = createLink(d, {
      tenant: 'acme',
      runId: 'no-such-run',
      interruptId: '1.1.AAAA',
      recipient: { email: 'ada@example.com' },
      by,
    });
    await expect(refused).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('signs a granted link for the pause, naming its grantor, expiring with it', async () => {
    const links = createAnswerLinks(key);
    const d = deps(createMemoryCheckpointStore(), links);
    const created = await pausedIn(d);
    const made = await createLink(d, {
      tenant: 'acme',
      runId: created.runId,
      interruptId: created.interruptId,
      recipient: { email: 'ada@example.com' },
      by: person,
    });
    expect(made.recipient).toEqual({ email: 'ada@example.com' });
    expect(made.answerUrl.startsWith(`${INBOX}#`)).toBe(true);
    const grant = await links.verify(tokenOf(made.answerUrl));
    expect(grant).toMatchObject({ runId: created.runId, interruptId: created.interruptId, recipient: made.recipient });
    expect(grant.principal).toMatchObject({ kind: 'person', subject: person.subject, via: 'link' });
    const { exp } = JSON.parse(Buffer.from(tokenOf(made.answerUrl).split('.')[1] as string, 'base64url').toString());
    expect(exp).toBe(Math.ceil(Date.parse(created.expiresAt) / 1000));
  });
});

describe('a pause and its answer link', () => {
  it('carries no answerUrl when an agent made it', async () => {
    const created = await pausedIn(deps(createMemoryCheckpointStore()), { kind: 'agent', subject: 'a', via: 'api' });
    expect(created).not.toHaveProperty('answerUrl');
  });

  it('is committed and answered without its answerUrl when the link key cannot be had, with a warning', async () => {
    const store = createMemoryCheckpointStore();
    const d = deps(
      store,
      createAnswerLinks(async () => {
        throw new LinkKeyUnavailableError();
      }),
    );
    const created = await pausedIn(d);
    expect(created).not.toHaveProperty('answerUrl');
    expect((await store.getPause({ tenant: 'acme', ...created })).status).toBe('paused');
    expect(d.logged.warn).toHaveBeenCalledWith(
      'Pause created without its answer link: the link key is unavailable',
      expect.objectContaining({ interruptId: created.interruptId }),
    );
  });

  it('leaves Pause Created without its answerUrl when the key cannot be had, and still delivers it', async () => {
    const changes: PauseChange[] = [];
    const store = createMemoryCheckpointStore({ onChange: (change) => changes.push(change) });
    await store.pause({
      tenant: 'acme',
      runId: 'run-event',
      format: 'openai-chat',
      messages: pauseBody().messages as unknown[],
      toolCallId: 'call_ask',
    });
    const delivered: LifecycleEvent[] = [];
    const { logger, logged } = testTelemetry();
    const emitter = createLifecycleEmitter({
      sinks: [{ deliver: async (events) => void delivered.push(...events) }],
      log: logger,
      links: createAnswerLinks(async () => {
        throw new LinkKeyUnavailableError();
      }),
      inboxUrl: INBOX,
    });
    await emitter.emitChanges(changes);
    expect(delivered.map((event) => event.type)).toEqual(['Pause Created']);
    expect(delivered[0]?.detail).not.toHaveProperty('answerUrl');
    expect(logged.warn).toHaveBeenCalled();
  });
});

describe('a vote through a link is bound to what it saw (§16)', () => {
  // A delivered link proves an address, which a quorum does not count (§20): it is refused before its arguments are.
  it.each([
    ['granted', { kind: 'granted' as const, grantor: { ...person, groups: [] } }, 409, 'args_changed'],
    ['delivered', { kind: 'delivered' as const, recipient: { email: 'ada@example.com' } }, 403, 'unknown_person'],
  ])(
    'refuses through a %s link an approve of arguments edited since (%i %s), recording nothing',
    async (_, how, status, code) => {
      const store = createMemoryCheckpointStore();
      const links = createAnswerLinks(key);
      const d = deps(store, links);
      const created = await pauseTurn(d, {
        tenant: 'acme',
        runId: `run-${Math.random().toString(36).slice(2)}`,
        format: 'openai-chat',
        messages: pauseBody().messages as unknown[],
        asks: [{ toolCallId: 'call_ask', kind: 'approval', approvals: 2 }],
        by: { kind: 'agent', subject: 'agent-1', via: 'api' },
      });
      const ids = { tenant: 'acme', runId: created.runId, interruptId: created.interruptId };
      const seen = (await store.getPause(ids)).asks[0]?.argsHash;
      const editor = { kind: 'person' as const, subject: 'u-editor', via: 'api' as const };
      await store.decide({
        ...ids,
        decisions: [{ toolCallId: 'call_ask', decision: 'edit', args: { question: 'Refund 9999?' }, argsHash: seen }],
        by: editor,
      });
      const before = await store.getPause(ids);
      const url = await links.linkFor({ ...ids, expiresAt: created.expiresAt }, INBOX, how);
      const response = await createApiHandler(d)(
        httpEvent('POST', '/links/resume', {
          body: { decisions: [{ toolCallId: 'call_ask', decision: 'approve', argsHash: seen }] },
          claims: null,
          headers: { 'x-handback-link': tokenOf(url) },
        }),
        lambdaContext(),
      );
      expect(response.statusCode).toBe(status);
      expect(JSON.parse(String(response.body))).toMatchObject({
        code,
        ...(code === 'args_changed' ? { argsHash: before.asks[0]?.argsHash } : { toolCallId: 'call_ask' }),
      });
      expect((await store.getPause(ids)).asks[0]?.votes).toEqual(before.asks[0]?.votes);
    },
  );
});
