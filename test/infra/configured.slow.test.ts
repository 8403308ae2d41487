import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { synthesize } from './synth.ts';

const KEY_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/11111111-2222-3333-4444-555555555555';
const TOPIC_ARN = 'arn:aws:sns:eu-west-1:111122223333:handback-alarms';
const OTLP_ENDPOINT = 'http://localhost:4318';
const ESCALATION = 'PT30M group:finance-leads; PT2H manager';

/** Every setting changed from its default, through context as a deployment would: one synthesis for the file. */
const { template, violations } = synthesize(
  {},
  {
    bundle: false,
    context: {
      'handback:kmsKeyArn': KEY_ARN,
      'handback:alarmTopicArn': TOPIC_ARN,
      'handback:handoff': 'eventbridge',
      'handback:handoffEventBusName': 'agents',
      'handback:pauseExpirySeconds': 259_200,
      'handback:eventSource': 'my.app',
      'handback:tenantClaim': 'org_id',
      'handback:logRetentionDays': 90,
      'handback:removalPolicy': 'destroy',
      'handback:resumeRequestsVia': 'function',
      'handback:eventBusName': 'handback-lifecycle',
      'handback:notifyEmail': 'approvers@example.org',
      'handback:inboxUrl': 'https://decide.example.org/inbox',
      'handback:otlpEndpoint': OTLP_ENDPOINT,
      'handback:escalation': ESCALATION,
    },
  },
);

/** The properties of the function whose logical id starts with `prefix`. */
const functionProperties = (prefix: string) => {
  const [fn] = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([id]) => id.startsWith(prefix));
  return fn?.[1].Properties;
};
const apiFunction = () => functionProperties('ApiHandler');

/** `arn:<partition>:events:<region>:<account>:event-bus/<name>`, as CDK renders an imported bus. */
const busArn = (name: string) => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':events:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      `:event-bus/${name}`,
    ],
  ],
});

describe('a stack configured through context', () => {
  it('encrypts the table with the customer key', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: KEY_ARN },
    });
  });

  it('lets a read-write function use that key and no other', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyName: Match.stringLikeRegexp('^ApiHandlerRoleDefaultPolicy'),
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Action: ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'],
            Effect: 'Allow',
            Resource: KEY_ARN,
          },
        ]),
      },
    });
  });

  it('hands off to the named EventBridge bus', () => {
    expect(apiFunction()?.Environment.Variables).toMatchObject({
      HANDOFF_TARGET: 'eventbridge',
      HANDOFF_EVENT_BUS_NAME: 'agents',
    });
  });

  it('may put events on that bus only', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyName: Match.stringLikeRegexp('^ApiHandlerRoleDefaultPolicy'),
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Action: 'events:PutEvents',
            Effect: 'Allow',
            Resource: busArn('agents'),
          },
        ]),
      },
    });
  });

  it('creates no hand-off queue', () => {
    expect(Object.keys(template.findResources('AWS::SQS::Queue')).filter((id) => id.startsWith('Handoff'))).toEqual([]);
  });

  it('reads the tenant from the configured claim', () => {
    expect(apiFunction()?.Environment.Variables.TENANT_CLAIM).toBe('org_id');
  });

  it('waits for answers five minutes past the configured pause expiry, and records that expiry', () => {
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      DefinitionString: {
        'Fn::Join': [
          '',
          Match.arrayWith([Match.stringLikeRegexp('"TimeoutSeconds":259500,"ResultPath":"\\$.continuation"')]),
        ],
      },
    });
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      DefinitionString: { 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('"expiresInSeconds":259200,')])] },
    });
  });

  it('matches Resume Requested events from the configured source', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['my.app'], 'detail-type': ['Resume Requested'] },
    });
  });

  it('notifies the alarm topic from every alarm', () => {
    template.allResourcesProperties('AWS::CloudWatch::Alarm', { AlarmActions: [TOPIC_ARN] });
  });

  it('keeps logs for the configured retention', () => {
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
  });

  it('lets the table go with the stack when told to destroy', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
      DeletionPolicy: 'Delete',
    });
  });

  it('deploys the EventBridge handler on Node.js 24, ARM64, traced', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Role: { 'Fn::GetAtt': [Match.stringLikeRegexp('^EventBridgeHandlerRole'), 'Arn'] },
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      MemorySize: 512,
      Timeout: 60,
      TracingConfig: { Mode: 'Active' },
    });
  });

  it('has the rule invoke the EventBridge handler directly, with the dead-letter queue on the target', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^EventBridgeHandlerFunction'), 'Arn'] },
          DeadLetterConfig: {
            Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ResumeRequestsRuleDeadLetterQueue'), 'Arn'] },
          },
        }),
      ],
    });
  });

  it("keeps the EventBridge handler's failed invocations, with their error, in a queue", () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: Match.stringLikeRegexp('^EventBridgeHandlerFunction') },
      MaximumRetryAttempts: 2,
      DestinationConfig: {
        OnFailure: {
          Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ResumeRequestsFailedInvocationsQueue'), 'Arn'] },
        },
      },
    });
  });

  it('lets the EventBridge handler complete the workflow task tokens', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyName: Match.stringLikeRegexp('^EventBridgeHandlerRoleDefaultPolicy'),
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Action: ['states:SendTaskFailure', 'states:SendTaskSuccess'],
            Effect: 'Allow',
            Resource: { Ref: Match.stringLikeRegexp('^ApprovalWorkflowStateMachine') },
          },
        ]),
      },
    });
  });

  it('encrypts the answer-link key with the customer key', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', { KmsKeyId: KEY_ARN });
  });

  it('lets the lifecycle stream function decrypt the key and the stream with that key', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyName: Match.stringLikeRegexp('^LifecycleHandlerRoleDefaultPolicy'),
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Action: Match.arrayWith(['kms:Decrypt']), Resource: KEY_ARN })]),
      },
    });
  });

  it('sends lifecycle events to the bus named by context, and creates none', () => {
    // The stack's one bus is the resume bus, which takes Resume Requested events.
    expect(Object.keys(template.findResources('AWS::Events::EventBus'))).toEqual([
      expect.stringMatching(/^ResumeRequestsBus/),
    ]);
    expect(functionProperties('LifecycleHandler')?.Environment.Variables.EVENT_BUS_NAME).toBe('handback-lifecycle');
  });

  it('may put lifecycle events on that bus only', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyName: Match.stringLikeRegexp('^LifecycleHandlerRoleDefaultPolicy'),
      PolicyDocument: {
        Statement: Match.arrayWith([
          { Action: 'events:PutEvents', Effect: 'Allow', Resource: busArn('handback-lifecycle') },
        ]),
      },
    });
  });

  it('puts the Pause Created rule on that bus', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: 'handback-lifecycle',
      EventPattern: { source: ['handback'], 'detail-type': ['Pause Created'] },
    });
  });

  it('subscribes the configured email address to the notification topic, with a dead-letter queue', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'approvers@example.org',
      TopicArn: { Ref: Match.stringLikeRegexp('^LifecyclePauseCreatedTopic') },
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^LifecycleEmailDeadLetterQueue'), 'Arn'] },
      },
    });
  });

  it('watches the depth of the email dead-letter queue', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^LifecycleEmailDeadLetterQueue'), 'QueueName'] },
        },
      ],
    });
  });

  it.each(['ApiHandler', 'LifecycleHandler'])('points the answer links of %s at the configured inbox', (prefix) => {
    expect(functionProperties(prefix)?.Environment.Variables.HANDBACK_INBOX_URL).toBe(
      'https://decide.example.org/inbox',
    );
  });

  it('gives the configured inbox as the InboxUrl output', () => {
    template.hasOutput('InboxUrl', { Value: 'https://decide.example.org/inbox' });
  });

  // §21
  it('gives every function the OTLP endpoint its spans go to', () => {
    const functions = Object.entries(template.findResources('AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(8);
    for (const [id, fn] of functions) {
      expect([id, fn.Properties.Environment?.Variables?.OTEL_EXPORTER_OTLP_ENDPOINT]).toEqual([id, OTLP_ENDPOINT]);
    }
  });

  // §21 escalation
  it('gives every function the default escalation ladder', () => {
    const functions = Object.entries(template.findResources('AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(8);
    for (const [id, fn] of functions) {
      expect([id, fn.Properties.Environment?.Variables?.HANDBACK_ESCALATION]).toEqual([id, ESCALATION]);
    }
  });

  it('still has no unacknowledged cdk-nag finding', () => {
    expect(violations).toEqual([]);
  });
});
