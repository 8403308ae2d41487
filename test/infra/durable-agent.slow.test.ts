import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { synthesize } from './synth.ts';

/** The stack with `-c handback:exampleAgent=durable`: the example agent as a Lambda durable function. */
const { template, violations } = synthesize({}, { bundle: false, context: { 'handback:exampleAgent': 'durable' } });

const durableFunctions = () =>
  Object.keys(template.findResources('AWS::Lambda::Function', { Properties: { DurableConfig: Match.anyValue() } }));

describe('the stack with the durable example agent', () => {
  it('offers the example agent as one durable function, its execution timeout past the pause expiry and the sweep', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('durable function'),
      DurableConfig: { ExecutionTimeout: 604_800 + 300 + 3600 },
    });
    expect(durableFunctions()).toHaveLength(1);
  });

  it('lets the durable agent checkpoint its own executions, on the versions of that function only (<arn>:*, what Lambda authorizes them against)', () => {
    const [id] = durableFunctions();
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Action: ['lambda:CheckpointDurableExecution', 'lambda:GetDurableExecutionState'],
            Effect: 'Allow',
            Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [id, 'Arn'] }, ':*']] },
          },
        ]),
      },
    });
  });

  it('grants SendDurableExecutionCallbackSuccess and Failure on the executions of the durable agent (<arn>:*, what Lambda authorizes them against) to every function that closes pauses', () => {
    const [id] = durableFunctions();
    const grants = template.findResources('AWS::IAM::Policy', {
      Properties: {
        PolicyDocument: {
          Statement: Match.arrayWith([
            {
              Action: ['lambda:SendDurableExecutionCallbackFailure', 'lambda:SendDurableExecutionCallbackSuccess'],
              Effect: 'Allow',
              Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [id, 'Arn'] }, ':*']] },
            },
          ]),
        },
      },
    });
    // The API, the Step Functions and SQS resume handlers, and the sweep.
    expect(Object.keys(grants)).toHaveLength(4);
  });

  it('is clean under cdk-nag', () => {
    expect(violations).toEqual([]);
  });
});

describe('the default stack', () => {
  it('has no durable function', () => {
    const plain = synthesize({}, { bundle: false });
    expect(
      Object.keys(
        plain.template.findResources('AWS::Lambda::Function', { Properties: { DurableConfig: Match.anyValue() } }),
      ),
    ).toEqual([]);
  });
});
