import { describe, expect, it } from 'vitest';
import { createMemoryCheckpointStore } from '../functions/checkpoints/dynamodb-store.ts';
import { BadRequestError, InvalidAnswerError, PayloadTooLargeError } from '../functions/errors.ts';
import { decideInput, parseInput, resumeBody } from '../functions/inputs.ts';
import { pauseBody, pauseInput } from '../functions/inputs-pause.ts';
import { parseTriggerRequest } from '../functions/resume/request.ts';
import { LIMITS } from '../functions/vocabulary.ts';
import { actor, approvers, isEmailAddress, linkRecipient } from '../functions/wire.ts';

/**
 * Each input has one schema (`functions/fields.ts`, `functions/inputs.ts`), and every door parses with it: a bound
 * holds the same over HTTP, through a trigger and through the library, and a failure is one kind of error, naming
 * the field.
 */

/** The error `run` throws. */
function thrown(run: () => unknown): { name: string; failures: Array<{ path: string; message: string }> } {
  try {
    run();
  } catch (error) {
    return error as never;
  }
  throw new Error('nothing was thrown');
}

describe('an email address', () => {
  it.each(['ada@example.com', 'A.B+tag@sub.example.co.uk', `${'a'.repeat(64)}@example.com`])('takes %s', (email) => {
    expect(isEmailAddress(email)).toBe(true);
    expect(linkRecipient.safeParse({ email }).success).toBe(true);
  });

  it.each([
    ['no @', 'ada.example.com'],
    ['two @', 'ada@b@example.com'],
    ['a space', 'ada lovelace@example.com'],
    ['no dot in the domain', 'ada@localhost'],
    ['an empty domain label', 'ada@example..com'],
    ['an empty local part', '@example.com'],
    ['no domain', 'ops@'],
    ['angle brackets', '<ada@example.com>'],
    ['a local part over 64 characters', `${'a'.repeat(65)}@example.com`],
    ['more than 254 characters', `a@${'b'.repeat(250)}.com`],
  ])('refuses one with %s, as a link recipient and a notify address alike', (_, email) => {
    expect(isEmailAddress(email)).toBe(false);
    expect(linkRecipient.safeParse({ email }).success).toBe(false);
    expect(
      pauseBody.safeParse({
        format: 'openai-chat',
        messages: [1],
        toolCallId: 'c',
        notify: [{ channel: 'email', to: email }],
      }).success,
    ).toBe(false);
  });
});

describe("a principal's groups", () => {
  const person = (groups: number) => ({
    kind: 'person',
    subject: 'ann',
    via: 'api',
    groups: Array.from({ length: groups }, (_, n) => `g${n}`),
  });

  it(`are at most ${LIMITS.principalGroups} at every door: the library's by, a trigger's by`, () => {
    expect(actor.safeParse(person(LIMITS.principalGroups)).success).toBe(true);
    expect(thrown(() => parseInput(actor, person(LIMITS.principalGroups + 1), 'principal', '/by')).failures).toEqual([
      { path: '/by/groups', message: `Too big: expected array to have <=${LIMITS.principalGroups} items` },
    ]);
    const trigger = (groups: number) => ({
      runId: 'r1',
      interruptId: '1.1.AAAAAAAAAAAAAAAAAAAAAA',
      answer: 'yes',
      by: { subject: 'ann', groups: person(groups).groups },
    });
    expect(parseTriggerRequest(trigger(LIMITS.principalGroups), 'sqs').by.groups).toHaveLength(LIMITS.principalGroups);
    expect(thrown(() => parseTriggerRequest(trigger(LIMITS.principalGroups + 1), 'sqs')).failures).toEqual([
      { path: '/by/groups', message: `Too big: expected array to have <=${LIMITS.principalGroups} items` },
    ]);
  });

  it('refuse a pause through the store with the same words', async () => {
    const store = createMemoryCheckpointStore();
    const error = await store
      .pause({
        tenant: 'acme',
        runId: 'r1',
        format: 'openai-chat',
        messages: [{ role: 'user', content: 'hi' }],
        toolCallId: 'c',
        by: person(LIMITS.principalGroups + 1) as never,
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).failures).toContainEqual({
      path: '/by/groups',
      message: `Too big: expected array to have <=${LIMITS.principalGroups} items`,
    });
  });
});

describe('approvers', () => {
  it('take subjects, emails and groups, at least one entry in all, each list at most 50', () => {
    expect(approvers.safeParse({ groups: ['finance'] }).success).toBe(true);
    expect(thrown(() => parseInput(approvers, {}, 'approvers', '/approvers')).failures).toEqual([
      { path: '/approvers', message: 'must name at least one subject, email or group' },
    ]);
    expect(thrown(() => parseInput(approvers, { roles: ['x'] }, 'approvers', '/approvers')).failures).toContainEqual({
      path: '/approvers',
      message: 'Unrecognized key: "roles"',
    });
    const many = { subjects: Array.from({ length: LIMITS.approvers.entries + 1 }, (_, n) => `s${n}`) };
    expect(thrown(() => parseInput(approvers, many, 'approvers', '/approvers')).failures[0]?.path).toBe(
      '/approvers/subjects',
    );
  });
});

describe('a decision', () => {
  const key = { tenant: 'acme', runId: 'r1', interruptId: '1.1.AAAAAAAAAAAAAAAAAAAAAA' };

  it(`carries an argsHash of at most ${LIMITS.argsHashChars} characters, over HTTP and through the store alike`, () => {
    const long = { toolCallId: 'c', decision: 'approve', argsHash: 'h'.repeat(LIMITS.argsHashChars + 1) };
    const http = thrown(() =>
      parseInput(resumeBody, { interruptId: key.interruptId, decisions: [long] }, 'resume body'),
    );
    const store = thrown(() => parseInput(decideInput, { ...key, decisions: [long] }, 'decisions'));
    expect(http.failures).toEqual(store.failures);
    expect(store.failures).toEqual([
      {
        path: '/decisions/0/argsHash',
        message: `Too big: expected string to have <=${LIMITS.argsHashChars} characters`,
      },
    ]);
  });

  it('is a 413 past 256 KB and a 422 when its edited args are no JSON object, unless something is malformed too', () => {
    const big = { toolCallId: 'c', answer: 'x'.repeat(LIMITS.answerBytes) };
    const array = { toolCallId: 'c', decision: 'edit', args: [1] };
    expect(() => parseInput(decideInput, { ...key, decisions: [big] }, 'decisions')).toThrow(PayloadTooLargeError);
    expect(() => parseInput(decideInput, { ...key, decisions: [array] }, 'decisions')).toThrow(InvalidAnswerError);
    const both = thrown(() =>
      parseInput(decideInput, { ...key, decisions: [array, { decision: 'approve' }] }, 'decisions'),
    );
    expect(both).toMatchObject({ name: 'BadRequestError', failures: [{ path: '/decisions/1/toolCallId' }] });
  });
});

describe('a pause input', () => {
  const base = { tenant: 'acme', runId: 'r1', format: 'openai-chat', messages: [{ role: 'user', content: 'hi' }] };

  // §21: the ladder is the deployment's; an agent cannot set, shorten or remove one.
  it.each([
    ['escalation', 'PT1S sub:me'],
    ['escalate', 'PT1S sub:me'],
    ['escalation', null],
    ['escalate', []],
  ])('refuses a body naming %s (%j) with 400, naming the field', (field, value) => {
    const body = { format: 'openai-chat', messages: [1], toolCallId: 'c', [field]: value };
    const error = thrown(() => parseInput(pauseBody, body, 'pause body'));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.failures).toEqual([
      {
        path: `/${field}`,
        message:
          "escalation is the deployment's (§21: a policy's @escalate, or HANDBACK_ESCALATION): a pause cannot set it",
      },
    ]);
    expect(pauseBody.safeParse({ format: 'openai-chat', messages: [1], toolCallId: 'c' }).success).toBe(true);
  });

  it('is the HTTP body with the tenant, run, key and principal of the request: one set of fields', () => {
    const body = {
      format: 'openai-chat',
      messages: [1],
      asks: [{ toolCallId: 'c', kind: 'approval', editable: true }],
    };
    expect(pauseBody.safeParse(body).success).toBe(true);
    expect(pauseInput.safeParse({ ...body, tenant: 'acme', runId: 'r1' }).success).toBe(true);
    const misplaced = { ...body, asks: [{ toolCallId: 'c', editable: true }] };
    expect(thrown(() => parseInput(pauseBody, misplaced, 'pause body')).failures).toEqual(
      thrown(() => parseInput(pauseInput, { ...misplaced, tenant: 'acme', runId: 'r1' }, 'pause')).failures,
    );
  });

  it.each([
    ['both forms', { toolCallId: 'c', asks: [{ toolCallId: 'c' }] }, '/asks'],
    ['neither form', {}, '/toolCallId'],
    [
      'a reminder at the expiry',
      { toolCallId: 'c', expiresInSeconds: 60, remindBeforeSeconds: 60 },
      '/remindBeforeSeconds',
    ],
    ['metadata that is not JSON', { toolCallId: 'c', metadata: { at: new Date(0) } }, '/metadata/at'],
    ['metadata over 4 KB', { toolCallId: 'c', metadata: { s: 'x'.repeat(LIMITS.metadataBytes) } }, '/metadata'],
    [
      'messages that are not JSON',
      { toolCallId: 'c', messages: [{ role: 'user', content: Number.NaN }] },
      '/messages/0/content',
    ],
    ['a tenant with a lone surrogate', { toolCallId: 'c', tenant: '\ud800' }, '/tenant'],
  ])('refuses %s, naming the field', (_, overrides, path) => {
    const failures = thrown(() => parseInput(pauseInput, { ...base, ...overrides }, 'pause')).failures;
    expect(failures.map((failure) => failure.path)).toContain(path);
  });
});
