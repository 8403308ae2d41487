import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { TABLE } from '../../functions/checkpoints/table.ts';
import { TABLE_ACTIONS } from '../../infra/handback-function.ts';
import { defaultSynth, TEST_JWT } from './synth.ts';

const { template } = defaultSynth();

/** `{Fn::GetAtt: [<logical id starting with prefix>, attribute]}`. */
const getAtt = (prefix: string, attribute = 'Arn') => ({
  'Fn::GetAtt': [Match.stringLikeRegexp(`^${prefix}`), attribute],
});
/** `{Ref: <logical id starting with prefix>}`. */
const ref = (prefix: string) => ({ Ref: Match.stringLikeRegexp(`^${prefix}`) });

const TABLE_RESOURCES = [
  getAtt('CheckpointsTable'),
  { 'Fn::Join': ['', [getAtt('CheckpointsTable'), `/index/${TABLE.byTenant.indexName}`]] },
];
const XRAY = { Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], Effect: 'Allow', Resource: '*' };
const logs = (prefix: string) => ({
  Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
  Effect: 'Allow',
  Resource: getAtt(`${prefix}Logs`),
});
const TABLE_READ_WRITE = { Action: [...TABLE_ACTIONS.readWrite].sort(), Effect: 'Allow', Resource: TABLE_RESOURCES };
const HANDOFF_SEND = {
  Action: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
  Effect: 'Allow',
  Resource: getAtt('HandoffQueue'),
};
const TASK_CALLBACKS = {
  Action: ['states:SendTaskFailure', 'states:SendTaskSuccess'],
  Effect: 'Allow',
  Resource: ref('ApprovalWorkflowStateMachine'),
};

describe('the checkpoint table', () => {
  const TABLE_TYPE = 'AWS::DynamoDB::Table';

  it('is the one table of the stack', () => {
    template.resourceCountIs(TABLE_TYPE, 1);
  });

  it('takes its key schema from TABLE', () => {
    template.hasResourceProperties(TABLE_TYPE, {
      KeySchema: [
        { AttributeName: TABLE.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey.name, KeyType: 'RANGE' },
      ],
    });
  });

  it('defines the attributes of both keys and of the index keys, with their TABLE types', () => {
    template.hasResourceProperties(TABLE_TYPE, {
      AttributeDefinitions: [
        { AttributeName: TABLE.partitionKey.name, AttributeType: TABLE.partitionKey.type },
        { AttributeName: TABLE.sortKey.name, AttributeType: TABLE.sortKey.type },
        { AttributeName: TABLE.byTenant.partitionKey.name, AttributeType: TABLE.byTenant.partitionKey.type },
        { AttributeName: TABLE.byTenant.sortKey.name, AttributeType: TABLE.byTenant.sortKey.type },
      ],
    });
  });

  it('has the byTenant index of TABLE, projecting every attribute', () => {
    template.hasResourceProperties(TABLE_TYPE, {
      GlobalSecondaryIndexes: [
        {
          IndexName: TABLE.byTenant.indexName,
          KeySchema: [
            { AttributeName: TABLE.byTenant.partitionKey.name, KeyType: 'HASH' },
            { AttributeName: TABLE.byTenant.sortKey.name, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
  });

  it('lets DynamoDB expire items on the TTL attribute of TABLE', () => {
    template.hasResourceProperties(TABLE_TYPE, {
      TimeToLiveSpecification: { AttributeName: TABLE.timeToLiveAttribute, Enabled: true },
    });
  });

  it('is billed on demand', () => {
    template.hasResourceProperties(TABLE_TYPE, { BillingMode: 'PAY_PER_REQUEST' });
  });

  it('has point-in-time recovery', () => {
    template.hasResourceProperties(TABLE_TYPE, {
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('has deletion protection and is retained when it leaves the stack', () => {
    template.hasResource(TABLE_TYPE, {
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('is encrypted with an AWS owned key by default', () => {
    template.hasResourceProperties(TABLE_TYPE, { SSESpecification: { SSEEnabled: false } });
  });
});

describe('the IAM policies', () => {
  it.each([
    ['ApiHandler', [logs('ApiHandler'), XRAY, TABLE_READ_WRITE, HANDOFF_SEND, TASK_CALLBACKS]],
    ['StepFunctionsHandler', [logs('StepFunctionsHandler'), XRAY, TABLE_READ_WRITE, HANDOFF_SEND, TASK_CALLBACKS]],
    [
      'SqsHandler',
      [
        logs('SqsHandler'),
        XRAY,
        TABLE_READ_WRITE,
        HANDOFF_SEND,
        TASK_CALLBACKS,
        {
          Action: [
            'sqs:ChangeMessageVisibility',
            'sqs:DeleteMessage',
            'sqs:GetQueueAttributes',
            'sqs:GetQueueUrl',
            'sqs:ReceiveMessage',
          ],
          Effect: 'Allow',
          Resource: getAtt('ResumeRequestsQueue'),
        },
      ],
    ],
    ['ExampleAgent', [logs('ExampleAgent'), XRAY, TABLE_READ_WRITE]],
  ])('give the %s exactly its statements', (name, statements) => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyName: Match.stringLikeRegexp(`^${name}RoleDefaultPolicy`),
      PolicyDocument: { Statement: statements },
    });
  });

  it('grant the reference workflow the invoke of its agent alone, besides log delivery and tracing', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyName: Match.stringLikeRegexp('^ApprovalWorkflowStateMachineRoleDefaultPolicy'),
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Action: 'lambda:InvokeFunction',
            Effect: 'Allow',
            Resource: [getAtt('ExampleAgentFunction'), { 'Fn::Join': ['', [getAtt('ExampleAgentFunction'), ':*']] }],
          },
        ]),
      },
    });
  });

  it('use "*" only for actions that take no resource (X-Ray, CloudWatch Logs delivery)', () => {
    const resourceless =
      /^(xray:(PutTelemetryRecords|PutTraceSegments|GetSamplingRules|GetSamplingTargets)|logs:(CreateLogDelivery|DeleteLogDelivery|DescribeLogGroups|DescribeResourcePolicies|GetLogDelivery|ListLogDeliveries|PutResourcePolicy|UpdateLogDelivery))$/;
    const wildcardActions = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
        .filter((statement) => JSON.stringify(statement.Resource).includes('"*"'))
        .flatMap((statement) => [statement.Action].flat()),
    );
    expect(wildcardActions.length).toBeGreaterThan(0);
    expect(wildcardActions.filter((action) => !resourceless.test(action))).toEqual([]);
  });

  it('give no role a managed policy', () => {
    const roles = Object.values(template.findResources('AWS::IAM::Role'));
    expect(roles.filter((role) => role.Properties.ManagedPolicyArns !== undefined)).toEqual([]);
  });
});

describe('the HTTP API', () => {
  const AUTHORIZED = [
    'POST /runs/{runId}/pauses',
    'GET /runs/{runId}/pauses/{interruptId}',
    'POST /runs/{runId}/resume',
    'GET /runs/{runId}/continuations/{continuationId}',
    'GET /pauses',
  ];

  it('has the JWT authorizer with the issuer and audience of the props', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: { Issuer: TEST_JWT.issuer, Audience: [...TEST_JWT.audience] },
    });
  });

  it.each(AUTHORIZED)('routes %s to the API handler behind the JWT authorizer', (routeKey) => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: routeKey,
      AuthorizationType: 'JWT',
      AuthorizerId: ref('HttpApiJwt'),
      Target: { 'Fn::Join': ['', ['integrations/', ref('HttpApiPOSTrunsrunIdpausesHandler')]] },
    });
  });

  it.each(['GET /health', 'GET /openapi.json'])('routes %s to the API handler without a token', (routeKey) => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: routeKey,
      AuthorizationType: 'NONE',
      Target: { 'Fn::Join': ['', ['integrations/', ref('HttpApiPOSTrunsrunIdpausesHandler')]] },
    });
  });

  it('sends every other request to the API handler, which answers 404 or 405 problems', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: '$default',
      AuthorizationType: 'NONE',
      Target: { 'Fn::Join': ['', ['integrations/', ref('HttpApiPOSTrunsrunIdpausesHandler')]] },
    });
  });

  it('has no other route', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Route', AUTHORIZED.length + 3);
  });

  it('integrates the API handler with payload format 2.0', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      IntegrationUri: getAtt('ApiHandlerFunction'),
      PayloadFormatVersion: '2.0',
    });
  });

  it('throttles the $default stage', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
    });
  });

  it('writes JSON access logs with the request id to their log group', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      AccessLogSettings: {
        DestinationArn: getAtt('HttpAccessLogs'),
        Format: Match.serializedJson(Match.objectLike({ requestId: '$context.requestId', status: '$context.status' })),
      },
    });
  });
});

describe('the resume requests', () => {
  it('go through a queue that redrives to its dead-letter queue after 5 receives', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: getAtt('ResumeRequestsDeadLetterQueue'), maxReceiveCount: 5 },
    });
  });

  it('feed the SQS handler with partial batch responses', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: getAtt('ResumeRequestsQueue'),
      FunctionName: ref('SqsHandlerFunction'),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 10,
    });
  });

  it('stay invisible for six handler timeouts while one is processed', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: Match.objectLike({ deadLetterTargetArn: getAtt('ResumeRequestsDeadLetterQueue') }),
      VisibilityTimeout: 360,
    });
  });

  it('come from the EventBridge rule for detail-type Resume Requested from source handback', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['handback'], 'detail-type': ['Resume Requested'] },
    });
  });

  it("buffer each event's detail in the queue, with a dead-letter queue on the target", () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      Targets: [
        Match.objectLike({
          Arn: getAtt('ResumeRequestsQueue'),
          InputPath: '$.detail',
          DeadLetterConfig: { Arn: getAtt('ResumeRequestsRuleDeadLetterQueue') },
        }),
      ],
    });
  });

  it('let only EventBridge, for that rule, send to the queue', () => {
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [ref('ResumeRequestsQueue')],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
            Principal: { Service: 'events.amazonaws.com' },
            Condition: { ArnEquals: { 'aws:SourceArn': getAtt('ResumeRequestsResumeRequested') } },
          }),
        ]),
      },
    });
  });
});

describe('the queues', () => {
  const queues = template.findResources('AWS::SQS::Queue');
  const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));

  it.each(Object.keys(queues))('refuse requests without TLS: %s', (logicalId) => {
    const policy = policies.find((p) => JSON.stringify(p.Properties.Queues) === JSON.stringify([{ Ref: logicalId }]));
    expect(policy?.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 'sqs:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });

  it.each(Object.keys(queues))('are encrypted with SQS-managed keys: %s', (logicalId) => {
    expect(queues[logicalId]?.Properties.SqsManagedSseEnabled).toBe(true);
  });

  it('include the hand-off queue the stack creates by default, with its own dead-letter queue', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: getAtt('HandoffDeadLetterQueue'), maxReceiveCount: 5 },
    });
  });
});

describe('the alarms', () => {
  it.each(['ResumeRequestsDeadLetterQueue', 'ResumeRequestsRuleDeadLetterQueue', 'HandoffDeadLetterQueue'])(
    'watch the depth of %s',
    (queue) => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: getAtt(queue, 'QueueName') }],
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    },
  );

  it.each([
    ['ApiHandlerFunction', 'Errors'],
    ['ApiHandlerFunction', 'Throttles'],
    ['StepFunctionsHandlerFunction', 'Errors'],
    ['StepFunctionsHandlerFunction', 'Throttles'],
    ['SqsHandlerFunction', 'Errors'],
    ['SqsHandlerFunction', 'Throttles'],
    ['ExampleAgentFunction', 'Errors'],
    ['ExampleAgentFunction', 'Throttles'],
  ])('watch %s %s', (fn, metric) => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: metric,
      Dimensions: [{ Name: 'FunctionName', Value: ref(fn) }],
      Threshold: 1,
    });
  });

  it('watch the 5xx answers of the API', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: '5xx',
      Dimensions: [{ Name: 'ApiId', Value: ref('HttpApi') }],
      Threshold: 1,
    });
  });

  it('have no action without an alarm topic', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.filter((alarm) => alarm.Properties.AlarmActions !== undefined)).toEqual([]);
  });
});

describe('cdk-nag', () => {
  it('reports no unacknowledged AwsSolutions or Serverless finding, error or warning', () => {
    expect(defaultSynth().violations).toEqual([]);
  });
});
