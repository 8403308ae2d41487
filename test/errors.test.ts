import { describe, expect, it } from 'vitest';
import {
  AlreadyClaimedError,
  AlreadyDecidedError,
  AlreadyFinishedError,
  AlreadyResumedError,
  AlreadyVotedError,
  ApprovalExpiredError,
  ArgsChangedError,
  BadRequestError,
  ContinuationNotFoundError,
  CorruptCheckpointError,
  ERROR_FATES,
  ErrorCode,
  ExecutionInProgressError,
  FINAL_ERROR_NAMES,
  ForbiddenError,
  fateOf,
  GraphCheckpointNotFoundError,
  HandbackError,
  HandoffFailedError,
  IdempotencyKeyReusedError,
  InvalidAnswerError,
  InvalidPoliciesError,
  InvalidTranscriptError,
  isFinal,
  LinkKeyUnavailableError,
  MissingTurnStateError,
  NoChannelError,
  NotAnApproverError,
  NotClaimedError,
  NotDispatchedError,
  OpenPauseExistsError,
  PauseCancelledError,
  PauseExpiredError,
  PauseNotFoundError,
  PauseOpenError,
  PayloadTooLargeError,
  PolicyEvaluationError,
  PolicyForbidsError,
  RecipientNotAllowedError,
  SelfDecisionError,
  StorageUnavailableError,
  UnknownPersonError,
  UnsupportedRecordError,
} from '../functions/errors.ts';

/** One of every error, made as the code that throws it makes it; the names and codes are a contract. */
const cause = new Error('underneath');
const EXECUTION = { runId: 'run-1', continuationId: 'cont-1', toolCallId: 'call-1' };
const AGENT = { kind: 'agent', subject: 'bot', via: 'api' } as const;
const everyError: Array<[string, HandbackError]> = [
  ['MissingTurnStateError', new MissingTurnStateError(undefined, { cause })],
  ['InvalidTranscriptError', new InvalidTranscriptError('bad', [{ rule: 'r', index: 1, message: 'm' }], { cause })],
  ['PauseNotFoundError', new PauseNotFoundError('run-1', 'int-1', { cause })],
  ['OpenPauseExistsError', new OpenPauseExistsError('run-1', 'int-1', { cause })],
  ['AlreadyResumedError', new AlreadyResumedError('run-1', 'int-1', 'cont-1', { cause })],
  ['PauseExpiredError', new PauseExpiredError('run-1', 'int-1', '2026-01-01T00:00:00.000Z', { cause })],
  ['InvalidAnswerError', new InvalidAnswerError('bad answer', [{ path: '/a', message: 'm' }], { cause })],
  ['ContinuationNotFoundError', new ContinuationNotFoundError('run-1', 'cont-1', { cause })],
  ['CorruptCheckpointError', new CorruptCheckpointError('run-1', 'int-1', 'a chunk is missing', { cause })],
  ['BadRequestError', new BadRequestError('bad request', [], { cause })],
  ['HandoffFailedError', new HandoffFailedError('the queue', 'cont-1', { cause })],
  ['AlreadyDecidedError', new AlreadyDecidedError('run-1', 'int-1', 'call-1', { cause })],
  ['PauseCancelledError', new PauseCancelledError('run-1', 'int-1', 'cont-1', { cause })],
  ['StorageUnavailableError', new StorageUnavailableError(undefined, { cause })],
  ['IdempotencyKeyReusedError', new IdempotencyKeyReusedError('run-1', 'int-1', { cause })],
  ['UnsupportedRecordError', new UnsupportedRecordError('run-1', 'int-1', 'status "held"', { cause })],
  ['PayloadTooLargeError', new PayloadTooLargeError('too large', [{ path: '/messages', message: 'm' }], { cause })],
  ['ForbiddenError', new ForbiddenError('needs handback/decide', { cause, scope: 'handback/decide' })],
  [
    'NotAnApproverError',
    new NotAnApproverError('run-1', 'int-1', 'call-1', 'its approvers are groups finance', { cause }),
  ],
  ['SelfDecisionError', new SelfDecisionError('run-1', 'int-1', 'call-1', { cause })],
  ['AlreadyVotedError', new AlreadyVotedError('run-1', 'int-1', 'call-1', { cause })],
  ['LinkKeyUnavailableError', new LinkKeyUnavailableError(undefined, { cause })],
  [
    'RecipientNotAllowedError',
    new RecipientNotAllowedError('outside', [{ path: '/notify/0/to', message: 'm' }], { cause }),
  ],
  ['ArgsChangedError', new ArgsChangedError('run-1', 'int-1', 'call-1', 'hash-1', { cause })],
  ['NoChannelError', new NoChannelError(undefined, { cause })],
  ['ExecutionInProgressError', new ExecutionInProgressError('cont-1/call-1', '2026-01-01T00:00:00.000Z', { cause })],
  ['GraphCheckpointNotFoundError', new GraphCheckpointNotFoundError('thread-1', 'int-1', { cause })],
  ['InvalidPoliciesError', new InvalidPoliciesError('policies.cedar', 3, 14, 'unexpected token', { cause })],
  ['PauseOpenError', new PauseOpenError('run-1', 'int-1', { cause })],
  ['UnknownPersonError', new UnknownPersonError('run-1', 'int-1', 'call-1', 'the directory knows no one', { cause })],
  // §19
  [
    'PolicyForbidsError',
    new PolicyForbidsError(
      'forbidden now',
      { policyIds: ['no-big'], reason: 'too big', toolCallId: 'call-1' },
      { cause },
    ),
  ],
  ['PolicyEvaluationError', new PolicyEvaluationError('could not judge', { reason: 'args.amount' }, { cause })],
  ['ApprovalExpiredError', new ApprovalExpiredError(EXECUTION, '2026-01-01T01:00:00.000Z', { cause })],
  ['AlreadyClaimedError', new AlreadyClaimedError(EXECUTION, '2026-01-01T00:00:00.000Z', AGENT, { cause })],
  ['NotDispatchedError', new NotDispatchedError(EXECUTION, { cause })],
  ['NotClaimedError', new NotClaimedError(EXECUTION, 'was not claimed', { cause })],
  ['AlreadyFinishedError', new AlreadyFinishedError(EXECUTION, 'succeeded', '2026-01-01T00:00:00.000Z', { cause })],
];

describe('errors', () => {
  it.each(everyError)('%s carries its name, its code, its cause, and the fate its code gives it', (name, error) => {
    expect(error).toBeInstanceOf(HandbackError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.cause).toBe(cause);
    expect(fateOf(error)).toBe(ERROR_FATES[error.code]);
    expect(ERROR_FATES[error.code].name).toBe(name);
    expect(isFinal(error)).toBe(!ERROR_FATES[error.code].retryable);
  });

  it('has one error class for every code, and no code without one', () => {
    expect(new Set(everyError.map(([, error]) => error.code))).toEqual(new Set(Object.values(ErrorCode)));
  });

  it('names in its messages the ids the error is about', () => {
    expect(new AlreadyDecidedError('run-1', 'int-1', 'call-1')).toMatchObject({
      runId: 'run-1',
      interruptId: 'int-1',
      toolCallId: 'call-1',
      message: expect.stringContaining('call-1'),
    });
    expect(new PauseCancelledError('run-1', 'int-1', 'cont-1')).toMatchObject({
      continuationId: 'cont-1',
      message: expect.stringContaining('its continuation is cont-1'),
    });
    expect(new PauseCancelledError('run-1', 'int-1').message).not.toContain('continuation');
    expect(new OpenPauseExistsError('run-1', undefined).message).toBe(
      'Run run-1 already has an open pause: resume it or let it expire before pausing again.',
    );
    expect(new IdempotencyKeyReusedError('run-1', 'int-1').message).toContain('pause int-1 of run run-1');
    expect(new UnsupportedRecordError('run-1', 'int-1', 'schema 9').message).toContain('(schema 9)');
    expect(new AlreadyClaimedError(EXECUTION, '2026-01-01T00:00:00.000Z', AGENT)).toMatchObject({
      ...EXECUTION,
      claimedAt: '2026-01-01T00:00:00.000Z',
      claimedBy: AGENT,
      message: expect.stringContaining('claimed at 2026-01-01T00:00:00.000Z by agent bot'),
    });
    expect(new ApprovalExpiredError(EXECUTION, '2026-01-01T01:00:00.000Z').message).toContain(
      'was valid until 2026-01-01T01:00:00.000Z',
    );
  });

  it('tells a client when to retry a storage timeout: after 1 s unless the store says otherwise', () => {
    expect(new StorageUnavailableError().retryAfterSeconds).toBe(1);
    expect(
      PolicyForbidsError.ofEdit(
        { runId: 'run-1', interruptId: 'int-1', toolCallId: 'call-1' },
        ['over-10000'],
        'Never over 10,000',
      ),
    ).toMatchObject({
      toolCallId: 'call-1',
      policyIds: ['over-10000'],
      message: expect.stringContaining('forbidden by policy over-10000: Never over 10,000'),
    });
    expect(
      PolicyForbidsError.ofEdit(
        { runId: 'run-1', interruptId: 'int-1', toolCallId: 'call-1' },
        [],
        'No policy allows it',
      ).message,
    ).toContain("forbidden by the deployment's default: No policy allows it");
    expect(
      PolicyEvaluationError.ofEdit({ runId: 'run-1', interruptId: 'int-1', toolCallId: 'call-1' }, ['p'], 'overflow')
        .message,
    ).toContain('could not judge the edited arguments of the ask call-1 of pause int-1 (run run-1): overflow');
    expect(new StorageUnavailableError('slow', { retryAfterSeconds: 5 })).toMatchObject({
      message: 'slow',
      retryAfterSeconds: 5,
    });
  });

  it('treats an error Handback did not throw as having no fate, and as possibly transient', () => {
    expect(fateOf(new Error('boom'))).toBeUndefined();
    expect(isFinal(new Error('boom'))).toBe(false);
    expect(isFinal('not even an error')).toBe(false);
  });

  it('lets a workflow catch as final exactly the errors no retry fixes', () => {
    const retryable = everyError.filter(([, error]) => ERROR_FATES[error.code].retryable).map(([name]) => name);
    expect(retryable.sort()).toEqual([
      'ExecutionInProgressError',
      'HandoffFailedError',
      'LinkKeyUnavailableError',
      'PauseOpenError',
      'StorageUnavailableError',
      'UnsupportedRecordError',
    ]);
    expect([...FINAL_ERROR_NAMES].sort()).toEqual(
      everyError
        .map(([name]) => name)
        .filter((name) => !retryable.includes(name))
        .sort(),
    );
  });
});
