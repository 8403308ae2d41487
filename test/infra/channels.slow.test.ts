import { App, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { LIFECYCLE_TYPES } from '../../functions/vocabulary.ts';
import { TABLE_ACTIONS } from '../../infra/handback-function.ts';
import { ConfigurationError, resolveChannelSettings } from '../../infra/settings.ts';
import { defaultSynth, synthesize } from './synth.ts';

const SLACK_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:handback/slack-AbCdEf';

/** Both channels on, as a deployment turns them on: the Slack secret by name, email from an address identity. */
const both = synthesize(
  {},
  {
    bundle: false,
    context: {
      'handback:slackSecretName': 'handback/slack',
      'handback:slackChannel': 'C0APPROVE1',
      'handback:emailFrom': 'approvals@example.org',
      'handback:emailTo': 'ops@example.org,lead@example.org',
    },
  },
);
/** Both again, otherwise: the secret by its full ARN, email in another region from a domain identity, its own inbox. */
const other = synthesize(
  {},
  {
    bundle: false,
    context: {
      'handback:slackSecretName': SLACK_ARN,
      'handback:emailFrom': 'approvals@mail.example.org',
      'handback:emailIdentity': 'mail.example.org',
      'handback:emailRegion': 'eu-central-1',
      'handback:inboxUrl': 'https://decide.example.org/inbox',
    },
  },
);

/** `{Fn::GetAtt: [<logical id starting with prefix>, attribute]}`, for `expect` (and `Match` for the template's own). */
const getAtt = (prefix: string, attribute = 'Arn') => ({
  'Fn::GetAtt': [expect.stringMatching(`^${prefix}`), attribute],
});
const ref = (prefix: string) => ({ Ref: expect.stringMatching(`^${prefix}`) });
const match = {
  getAtt: (prefix: string) => ({ 'Fn::GetAtt': [Match.stringLikeRegexp(`^${prefix}`), 'Arn'] }),
  ref: (prefix: string) => ({ Ref: Match.stringLikeRegexp(`^${prefix}`) }),
};

/** The one resource of `type` whose logical id starts with `prefix`: its logical id and properties. */
function resource(template: Template, type: string, prefix: string) {
  const found = Object.entries(template.findResources(type)).filter(([id]) => id.startsWith(prefix));
  expect(found.map(([id]) => id)).toHaveLength(1);
  const [id, value] = found[0] ?? ['', {}];
  return { id, properties: value.Properties };
}

/** The statements of a function's role's default policy. */
function statements(template: Template, prefix: string): Array<Record<string, unknown>> {
  return resource(template, 'AWS::IAM::Policy', `${prefix}RoleDefaultPolicy`).properties.PolicyDocument.Statement;
}

const secretByName = (name: string) => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':secretsmanager:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      `:secret:${name}-??????`,
    ],
  ],
});

describe.each([
  ['Slack', 'ChannelsSlack', [...LIFECYCLE_TYPES]],
  ['email', 'ChannelsEmail', ['Pause Created', 'Pause Reminder', 'Pause Escalated']],
])('the %s channel on AWS', (_name, prefix, types) => {
  const { template } = both;

  it('has a rule on the lifecycle bus matching the lifecycle events it delivers', () => {
    expect(resource(template, 'AWS::Events::Rule', `${prefix}Rule`).properties).toMatchObject({
      EventBusName: ref('LifecycleBus'),
      EventPattern: { source: ['handback'], 'detail-type': types },
    });
  });

  it("targets its own function, with the channel's dead-letter queue and bounded retries", () => {
    const rule = resource(template, 'AWS::Events::Rule', `${prefix}Rule`).properties;
    expect(rule.Targets).toEqual([
      expect.objectContaining({
        Arn: getAtt(`${prefix}EventsFunction`),
        DeadLetterConfig: { Arn: getAtt(`${prefix}DeadLetterQueue`) },
        RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
      }),
    ]);
  });

  it('keeps failed invocations in the same queue, with their error, after two retries', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: match.ref(`${prefix}EventsFunction`),
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: match.getAtt(`${prefix}DeadLetterQueue`) } },
    });
  });

  it('raises an alarm on anything in its dead-letter queue, and on its errors', () => {
    const queue = resource(template, 'AWS::SQS::Queue', `${prefix}DeadLetterQueue`).id;
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue, 'QueueName'] } }],
      Threshold: 1,
    });
    const fn = resource(template, 'AWS::Lambda::Function', `${prefix}EventsFunction`).id;
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
    });
  });

  it('reads pauses and writes its delivery log, and nothing more of the table', () => {
    const table = statements(template, `${prefix}Events`).find((s) => String(s.Action).includes('dynamodb:'));
    expect(table?.Action).toEqual([...TABLE_ACTIONS.deliver].sort());
  });

  it('is bundled for no hand-off and is given none', () => {
    const env = resource(template, 'AWS::Lambda::Function', `${prefix}EventsFunction`).properties.Environment.Variables;
    expect(env).not.toHaveProperty('HANDOFF_TARGET');
    expect(env).toMatchObject({ TABLE_NAME: ref('CheckpointsTable'), HANDBACK_INBOX_URL: expect.anything() });
    expect(JSON.stringify(statements(template, `${prefix}Events`))).not.toMatch(/HandoffQueue|states:/);
  });
});

describe('the Slack channel on AWS', () => {
  const { template } = both;

  it.each(['SlackEvents', 'SlackInteractions'])('lets %s read the named secret, and only its value', (name) => {
    expect(statements(template, `Channels${name}`)).toContainEqual({
      Action: 'secretsmanager:GetSecretValue',
      Effect: 'Allow',
      Resource: secretByName('handback/slack'),
    });
    expect(
      resource(template, 'AWS::Lambda::Function', `Channels${name}Function`).properties.Environment.Variables,
    ).toMatchObject({ SLACK_SECRET_ID: 'handback/slack', HANDBACK_SLACK_CHANNEL: 'C0APPROVE1' });
  });

  it('grants a secret named by its full ARN exactly', () => {
    expect(statements(other.template, 'ChannelsSlackEvents')).toContainEqual({
      Action: 'secretsmanager:GetSecretValue',
      Effect: 'Allow',
      Resource: SLACK_ARN,
    });
  });

  it('creates no secret: the operator makes and fills it', () => {
    const secrets = Object.keys(template.findResources('AWS::SecretsManager::Secret'));
    expect(secrets).toEqual([expect.stringMatching(/^AnswerLinkKey/)]);
  });

  it('serves POST /channels/slack/interactions without an authorizer, on the interactions function', () => {
    const route = resource(template, 'AWS::ApiGatewayV2::Route', 'HttpApiPOSTchannelsslackinteractions').properties;
    expect(route).toMatchObject({ RouteKey: 'POST /channels/slack/interactions', AuthorizationType: 'NONE' });
    expect(route).not.toHaveProperty('AuthorizerId');
    const integrationId = (route.Target['Fn::Join'][1] as unknown[])[1] as { Ref: string };
    const integration = template.toJSON().Resources[integrationId.Ref].Properties;
    expect(integration.IntegrationUri).toEqual(getAtt('ChannelsSlackInteractionsFunction'));
    expect(integration.PayloadFormatVersion).toBe('2.0');
  });

  it('keeps the interactions function small and quick: its own entry, a short timeout, the hand-off it needs', () => {
    const fn = resource(template, 'AWS::Lambda::Function', 'ChannelsSlackInteractionsFunction').properties;
    expect(fn).toMatchObject({ Timeout: 10, Description: expect.stringMatching('Slack interactions') });
    expect(fn.Environment.Variables).toMatchObject({ HANDOFF_TARGET: 'sqs', TABLE_NAME: ref('CheckpointsTable') });
    // The API's own URL would make the function depend on the API that integrates it.
    expect(fn.Environment.Variables).not.toHaveProperty('HANDBACK_INBOX_URL');
    expect(statements(template, 'ChannelsSlackInteractions')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Action: [...TABLE_ACTIONS.click].sort() }),
        expect.objectContaining({ Action: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'] }),
        expect.objectContaining({ Action: ['states:SendTaskFailure', 'states:SendTaskSuccess'] }),
      ]),
    );
  });

  it('gives the interactions function a custom inbox URL when the deployment has one', () => {
    const fn = resource(other.template, 'AWS::Lambda::Function', 'ChannelsSlackInteractionsFunction').properties;
    expect(fn.Environment.Variables).toMatchObject({ HANDBACK_INBOX_URL: 'https://decide.example.org/inbox' });
  });

  it('raises an alarm on the interactions function’s errors', () => {
    const fn = resource(template, 'AWS::Lambda::Function', 'ChannelsSlackInteractionsFunction').id;
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
    });
  });
});

describe('the email channel on AWS', () => {
  it('may send with SES v2 SendEmail from the one identity, in the stack’s region', () => {
    expect(statements(both.template, 'ChannelsEmailEvents')).toContainEqual({
      Action: 'ses:SendEmail',
      Effect: 'Allow',
      Resource: {
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':ses:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            ':identity/approvals@example.org',
          ],
        ],
      },
    });
  });

  it('may send from a domain identity in another region when told', () => {
    expect(statements(other.template, 'ChannelsEmailEvents')).toContainEqual({
      Action: 'ses:SendEmail',
      Effect: 'Allow',
      Resource: {
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':ses:eu-central-1:',
            { Ref: 'AWS::AccountId' },
            ':identity/mail.example.org',
          ],
        ],
      },
    });
    expect(
      resource(other.template, 'AWS::Lambda::Function', 'ChannelsEmailEventsFunction').properties.Environment.Variables,
    ).toMatchObject({ SES_REGION: 'eu-central-1', HANDBACK_EMAIL_FROM: 'approvals@mail.example.org' });
  });

  it('reads the answer-link key, for each recipient’s own link, and knows the sender and the defaults', () => {
    expect(statements(both.template, 'ChannelsEmailEvents')).toContainEqual({
      Action: 'secretsmanager:GetSecretValue',
      Effect: 'Allow',
      Resource: ref('AnswerLinkKey'),
    });
    expect(
      resource(both.template, 'AWS::Lambda::Function', 'ChannelsEmailEventsFunction').properties.Environment.Variables,
    ).toMatchObject({
      LINK_SECRET_ARN: ref('AnswerLinkKey'),
      HANDBACK_EMAIL_FROM: 'approvals@example.org',
      HANDBACK_EMAIL_TO: 'ops@example.org,lead@example.org',
    });
  });
});

describe('channels and the API', () => {
  it('tells the API which channels a pause may name', () => {
    const api = resource(both.template, 'AWS::Lambda::Function', 'ApiHandlerFunction').properties;
    expect(api.Environment.Variables).toMatchObject({ HANDBACK_CHANNELS: 'slack,email' });
  });

  it('passes cdk-nag with both channels on, however they are configured', () => {
    expect(both.violations).toEqual([]);
    expect(other.violations).toEqual([]);
  });
});

describe('a stack without channels', () => {
  const { template } = defaultSynth();

  it('creates no channel function, rule or queue', () => {
    const ids = Object.keys(template.toJSON().Resources).filter((id) => id.startsWith('Channels'));
    expect(ids).toEqual([]);
  });

  it('tells the API of no channel, and leaves the Slack route on the API function (which answers 404)', () => {
    const api = resource(template, 'AWS::Lambda::Function', 'ApiHandlerFunction').properties;
    expect(api.Environment.Variables).not.toHaveProperty('HANDBACK_CHANNELS');
    const route = resource(template, 'AWS::ApiGatewayV2::Route', 'HttpApiPOSTchannelsslackinteractions').properties;
    const integrationId = (route.Target['Fn::Join'][1] as unknown[])[1] as { Ref: string };
    expect(template.toJSON().Resources[integrationId.Ref].Properties.IntegrationUri).toEqual(
      getAtt('ApiHandlerFunction'),
    );
  });
});

describe('resolveChannelSettings', () => {
  const settingsOf = (context: Record<string, unknown>) =>
    resolveChannelSettings(new Stack(new App({ context }), 'Settings'));

  it('turns on nothing without its keys', () => {
    expect(settingsOf({})).toEqual({});
  });

  it('takes the defaults as comma-separated lists and the sender as its own identity', () => {
    expect(
      settingsOf({
        'handback:slackSecretName': 'handback/slack',
        'handback:slackChannel': 'C0APPROVE1, C0APPROVE2',
        'handback:emailFrom': 'approvals@example.org',
      }),
    ).toEqual({
      slack: { secretName: 'handback/slack', defaultChannels: ['C0APPROVE1', 'C0APPROVE2'] },
      email: {
        from: 'approvals@example.org',
        address: 'approvals@example.org',
        identity: 'approvals@example.org',
        defaultRecipients: [],
        sandbox: true,
      },
    });
  });

  it.each([
    [{ 'handback:slackChannel': 'C0APPROVE1' }, 'handback:slackChannel needs handback:slackSecretName'],
    [{ 'handback:slackSecretName': 's', 'handback:slackChannel': '#approvals' }, 'handback:slackChannel'],
    [{ 'handback:emailTo': 'ops@example.org' }, 'handback:emailTo needs handback:emailFrom'],
    [{ 'handback:emailRegion': 'eu-west-1' }, 'handback:emailRegion needs handback:emailFrom'],
    [{ 'handback:emailFrom': 'approvals' }, 'handback:emailFrom must be an email address'],
    [{ 'handback:emailFrom': 'a@example.org', 'handback:emailTo': 'not an address' }, 'handback:emailTo'],
    [{ 'handback:emailFrom': 'a@example.org', 'handback:emailRegion': 'Frankfurt' }, 'must be an AWS region'],
  ])('refuses %j naming the key', (context, message) => {
    expect(() => settingsOf(context)).toThrow(ConfigurationError);
    expect(() => settingsOf(context)).toThrow(message);
  });
});
