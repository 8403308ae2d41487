import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../infra/settings.ts';
import { ACCOUNT, evaluate, resolve } from './iam.ts';
import { defaultSynth, synthesize } from './synth.ts';

/** What the template trusts: who may put Resume Requested events. */

const OPS_ROLE = `arn:aws:iam::${ACCOUNT.account}:role/handback-ops`;
const OTHER_ROLE = `arn:aws:iam::${ACCOUNT.account}:role/anyone-with-put-events`;
const { template } = defaultSynth();
const named = synthesize({}, { bundle: false, context: { 'handback:resumeEventPrincipals': OPS_ROLE } }).template;

/** The resume bus's ARN and its resource policy's statements. */
function resumeBus(template: Template) {
  const buses = Object.entries(template.findResources('AWS::Events::EventBus')).filter(([id]) =>
    id.startsWith('ResumeRequestsBus'),
  );
  expect(buses).toHaveLength(1);
  const [busId] = buses[0] as [string, unknown];
  const arn = resolve({ 'Fn::GetAtt': [busId, 'Arn'] });
  const statements = Object.values(template.findResources('AWS::Events::EventBusPolicy'))
    .filter((policy) => JSON.stringify(policy.Properties.EventBusName).includes(busId))
    .map((policy) => policy.Properties.Statement as Record<string, unknown>);
  return { busId, arn, statements };
}

/** A principal whose own IAM policy allows `events:PutEvents` on every bus, as is often granted. */
const broadIdentityPolicy = { Effect: 'Allow', Action: 'events:PutEvents', Resource: '*' };

function putEvents(template: Template, principal: string) {
  const { arn, statements } = resumeBus(template);
  return evaluate([broadIdentityPolicy, ...statements], {
    action: 'events:PutEvents',
    resource: arn,
    principal,
    context: { 'aws:PrincipalArn': principal },
  });
}

describe('the Resume Requested bus', () => {
  it('is a bus of the stack’s own, which the Resume Requested rule listens on', () => {
    const { busId } = resumeBus(template);
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: busId },
      EventPattern: { 'detail-type': ['Resume Requested'] },
    });
  });

  it('refuses every principal by default, even one allowed events:PutEvents on every bus', () => {
    expect(putEvents(template, OPS_ROLE)).toBe('deny');
  });

  it('lets the principals handback:resumeEventPrincipals names put events', () => {
    expect(putEvents(named, OPS_ROLE)).toBe('allow');
  });

  it('refuses any other principal, whatever its own IAM policy allows', () => {
    expect(putEvents(named, OTHER_ROLE)).toBe('deny');
  });

  it('is an output, ResumeEventBusName', () => {
    const { busId } = resumeBus(template);
    template.hasOutput('ResumeEventBusName', { Value: { Ref: busId } });
  });

  it('refuses a context entry that is no IAM principal ARN', () => {
    expect(() =>
      synthesize({}, { bundle: false, context: { 'handback:resumeEventPrincipals': 'handback-ops' } }),
    ).toThrow(ConfigurationError);
  });
});

describe('the Pause Created topic', () => {
  /** The topic's policy statements, and the ARN of the rule that publishes to it. */
  function topic() {
    const policies = Object.values(template.findResources('AWS::SNS::TopicPolicy')).filter((policy) =>
      JSON.stringify(policy.Properties.Topics).includes('LifecyclePauseCreatedTopic'),
    );
    expect(policies).toHaveLength(1);
    const rules = Object.keys(template.findResources('AWS::Events::Rule')).filter((id) =>
      id.startsWith('LifecyclePauseCreated'),
    );
    expect(rules).toHaveLength(1);
    return {
      statements: policies[0]?.Properties.PolicyDocument.Statement as Array<Record<string, unknown>>,
      ruleArn: resolve({ 'Fn::GetAtt': [rules[0], 'Arn'] }),
      topicArn: '{LifecyclePauseCreatedTopic}',
    };
  }
  const publish = (sourceArn: string) => {
    const { statements, topicArn } = topic();
    const arn = resolve(statements.find((statement) => statement.Action === 'sns:Publish')?.Resource) ?? topicArn;
    return evaluate(statements, {
      action: 'sns:Publish',
      resource: arn,
      principal: 'events.amazonaws.com',
      context: { 'aws:SourceArn': sourceArn, 'aws:SecureTransport': 'true' },
    });
  };

  it('lets EventBridge publish for the Pause Created rule', () => {
    expect(publish(topic().ruleArn)).toBe('allow');
  });

  it('refuses EventBridge publishing for any other rule, another account’s included (aws:SourceArn)', () => {
    expect(publish('arn:aws:events:eu-west-1:444455556666:rule/someone-elses')).not.toBe('allow');
  });
});

describe('what the stack keeps', () => {
  const kept = Object.entries(template.toJSON().Resources as Record<string, { Type: string; DeletionPolicy?: string }>)
    .filter(([, resource]) => resource.DeletionPolicy !== undefined && resource.DeletionPolicy !== 'Delete')
    .map(([id, resource]) => ({ id, type: resource.Type, policy: resource.DeletionPolicy }));

  it('keeps the table, the link key and the log groups (the user pool too: test/infra/user-pool.test.ts)', () => {
    const types = new Set(kept.map((resource) => resource.type));
    for (const type of ['AWS::DynamoDB::Table', 'AWS::SecretsManager::Secret', 'AWS::Logs::LogGroup']) {
      expect(types).toContain(type);
    }
  });

  it('keeps each of them except when its first create fails (RetainExceptOnCreate): a failed first deploy leaves no orphans', () => {
    expect(kept.filter((resource) => resource.policy !== 'RetainExceptOnCreate')).toEqual([]);
  });
});
