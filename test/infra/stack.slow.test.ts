import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { Keys } from '../../functions/checkpoints/dynamodb/keys.ts';
import { INDEXES, TABLE } from '../../functions/checkpoints/table.ts';
import { exampleAgentTenant } from '../../functions/settings.ts';
import { TABLE_ACTIONS } from '../../infra/handback-function.ts';
import { ROUTES } from '../../infra/http-api.ts';
import { defaultSynth, TEST_JWT } from './synth.ts';

const { template } = defaultSynth();

/** `{Fn::GetAtt: [<logical id starting with prefix>, attribute]}`. */
const getAtt = (prefix: string, attribute = 'Arn') => ({
  'Fn::GetAtt': [Match.stringLikeRegexp(`^${prefix}`), attribute],
});
/** `{Ref: <logical id starting with prefix>}`. */
const ref = (prefix: string) => ({ Ref: Match.stringLikeRegexp(`^${prefix}`) });

/** The table and each of its indexes by exact ARN, in the order IAM policy minimization sorts them. */
const TABLE_RESOURCES = [
  getAtt('CheckpointsTable'),
  ...INDEXES.map((index) => index.indexName)
    .sort()
    .map((name) => ({ 'Fn::Join': ['', [getAtt('CheckpointsTable'), `/index/${name}`]] })),
];
const XRAY = { Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], Effect: 'Allow', Resource: '*' };
const logs = (prefix: string) => ({
  Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
  Effect: 'Allow',
  Resource: getAtt(`${prefix}Logs`),
});
const TABLE_READ_WRITE = { Action: [...TABLE_ACTIONS.readWrite].sort(), Effect: 'Allow', Resource: TABLE_RESOURCES };
const TABLE_DECIDE = { Action: [...TABLE_ACTIONS.decide].sort(), Effect: 'Allow', Resource: TABLE_RESOURCES };
// §23: the transcript bucket's objects, and nothing else of S3.
const transcripts = (action: string | string[], prefix = '') => ({
  Action: action,
  Effect: 'Allow',
  Resource: { 'Fn::Join': ['', [getAtt('TranscriptsBucket'), `/${prefix}*`]] },
});
const TRANSCRIPTS_READ_WRITE = transcripts(['s3:DeleteObject', 's3:GetObject', 's3:PutObject']);
const TRANSCRIPTS_READ = transcripts('s3:GetObject');
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
const LINK_KEY_READ = { Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: ref('AnswerLinkKey') };

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

  it('defines the attributes of both keys and of every index key once, with their TABLE types', () => {
    const keys = [
      TABLE.partitionKey,
      TABLE.sortKey,
      ...INDEXES.flatMap((index) => [index.partitionKey, index.sortKey]),
    ];
    const unique = [...new Map(keys.map((key) => [key.name, key])).values()];
    template.hasResourceProperties(TABLE_TYPE, {
      AttributeDefinitions: unique.map((key) => ({ AttributeName: key.name, AttributeType: key.type })),
    });
  });

  it('keys the byDue index on a number, the due time in milliseconds', () => {
    template.hasResourceProperties(TABLE_TYPE, {
      AttributeDefinitions: Match.arrayWith([{ AttributeName: TABLE.byDue.sortKey.name, AttributeType: 'N' }]),
    });
  });

  it('has exactly the indexes of INDEXES, in order, each projecting keys only', () => {
    template.hasResourceProperties(TABLE_TYPE, {
      GlobalSecondaryIndexes: INDEXES.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      })),
    });
  });

  it('streams new and old images of every change', () => {
    template.hasResourceProperties(TABLE_TYPE, { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
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
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('is encrypted with an AWS owned key by default', () => {
    template.hasResourceProperties(TABLE_TYPE, { SSESpecification: { SSEEnabled: false } });
  });
});

describe('the IAM policies', () => {
  it.each([
    [
      'ApiHandler',
      [logs('ApiHandler'), XRAY, TABLE_READ_WRITE, TRANSCRIPTS_READ_WRITE, HANDOFF_SEND, LINK_KEY_READ, TASK_CALLBACKS],
    ],
    ['Sweeper', [logs('Sweeper'), XRAY, TABLE_DECIDE, TRANSCRIPTS_READ, HANDOFF_SEND, TASK_CALLBACKS]],
    [
      'LifecycleHandler',
      [
        logs('LifecycleHandler'),
        // Merged by policy minimization: the three actions that take no resource.
        {
          Action: ['dynamodb:ListStreams', 'xray:PutTelemetryRecords', 'xray:PutTraceSegments'],
          Effect: 'Allow',
          Resource: '*',
        },
        LINK_KEY_READ,
        { Action: 'events:PutEvents', Effect: 'Allow', Resource: getAtt('LifecycleBus') },
        transcripts(['s3:DeleteObject', 's3:PutObject']),
        // Closed transcripts moved to the bucket (§23): the pause and its parts read, the item updated, parts deleted.
        { Action: [...TABLE_ACTIONS.archive].sort(), Effect: 'Allow', Resource: TABLE_RESOURCES },
        {
          Action: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
          Effect: 'Allow',
          Resource: getAtt('LifecycleFailedRecords'),
        },
        {
          Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
          Effect: 'Allow',
          Resource: getAtt('CheckpointsTable', 'StreamArn'),
        },
      ],
    ],
    [
      'StepFunctionsHandler',
      [logs('StepFunctionsHandler'), XRAY, TABLE_DECIDE, TRANSCRIPTS_READ, HANDOFF_SEND, TASK_CALLBACKS],
    ],
    [
      'SqsHandler',
      [
        logs('SqsHandler'),
        XRAY,
        TABLE_DECIDE,
        TRANSCRIPTS_READ,
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
    [
      'ExampleAgent',
      [
        logs('ExampleAgent'),
        XRAY,
        TABLE_READ_WRITE,
        transcripts(TRANSCRIPTS_READ_WRITE.Action, Keys.objectsOf(exampleAgentTenant.default)),
      ],
    ],
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

  it('use "*" only for actions that take no resource (X-Ray, CloudWatch Logs delivery, listing streams)', () => {
    const resourceless =
      /^(dynamodb:ListStreams|xray:(PutTelemetryRecords|PutTraceSegments|GetSamplingRules|GetSamplingTargets)|logs:(CreateLogDelivery|DeleteLogDelivery|DescribeLogGroups|DescribeResourcePolicies|GetLogDelivery|ListLogDeliveries|PutResourcePolicy|UpdateLogDelivery))$/;
    const wildcardActions = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
      (policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
        .filter((statement) => JSON.stringify(statement.Resource).includes('"*"'))
        .flatMap((statement) => [statement.Action].flat()),
    );
    expect(wildcardActions.length).toBeGreaterThan(0);
    expect(wildcardActions.filter((action) => !resourceless.test(action))).toEqual([]);
  });

  it('let the API handler and the lifecycle stream function read the answer-link key, and no one else', () => {
    const readers = Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([, policy]) => JSON.stringify(policy.Properties.PolicyDocument).includes('secretsmanager:'))
      .map(([id]) => id.replace(/RoleDefaultPolicy.*$/, ''));
    expect(readers.sort()).toEqual(['ApiHandler', 'LifecycleHandler']);
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
    'POST /runs/{runId}/pauses/{interruptId}/cancel',
    'POST /runs/{runId}/resume',
    'GET /runs/{runId}/continuations/{continuationId}',
    'GET /pauses',
    'POST /runs/{runId}/pauses/{interruptId}/links',
    'POST /runs/{runId}/pauses/{interruptId}/claim',
    'GET /policies',
    'GET /policies/shadow',
    'GET /stats',
    'GET /people/me',
    'PUT /people/me/delegation',
    'DELETE /people/me/delegation',
    'POST /runs/{runId}/continuations/{continuationId}/executions',
    'PUT /runs/{runId}/continuations/{continuationId}/executions/{toolCallId}',
    'POST /mcp',
  ];
  const PUBLIC = [
    'GET /health',
    'GET /openapi.json',
    'GET /inbox',
    'GET /inbox/{file}',
    'GET /links/pause',
    'POST /links/resume',
    'POST /channels/slack/interactions',
  ];
  const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
    (route) => route.Properties as { RouteKey: string; AuthorizationType: string },
  );

  it('has the JWT authorizer with the issuer and audience of the props', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: { Issuer: TEST_JWT.issuer, Audience: [...TEST_JWT.audience] },
    });
  });

  it.each(AUTHORIZED.filter((routeKey) => routeKey !== 'POST /mcp'))(
    'routes %s to the API handler behind the JWT authorizer',
    (routeKey) => {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: routeKey,
        AuthorizationType: 'JWT',
        AuthorizerId: ref('HttpApiJwt'),
        Target: { 'Fn::Join': ['', ['integrations/', ref('HttpApiPOSTrunsrunIdpausesHandler')]] },
      });
    },
  );

  const INBOX = ['GET /inbox', 'GET /inbox/{file}'];

  it.each(PUBLIC.filter((routeKey) => !INBOX.includes(routeKey)))(
    'routes %s to the API handler without a token',
    (routeKey) => {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: routeKey,
        AuthorizationType: 'NONE',
        Target: { 'Fn::Join': ['', ['integrations/', ref('HttpApiPOSTrunsrunIdpausesHandler')]] },
      });
    },
  );

  it.each(INBOX)('routes %s to the inbox function without a token', (routeKey) => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: routeKey,
      AuthorizationType: 'NONE',
      Target: { 'Fn::Join': ['', ['integrations/', ref('HttpApiGETinboxInbox')]] },
    });
  });

  it('routes POST /mcp to the MCP function, behind the JWT authorizer', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'POST /mcp',
      AuthorizationType: 'JWT',
      AuthorizerId: ref('HttpApiJwt'),
      Target: { 'Fn::Join': ['', ['integrations/', ref('HttpApiPOSTmcpMcp')]] },
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      IntegrationUri: { 'Fn::GetAtt': [Match.stringLikeRegexp('^McpHandlerFunction'), 'Arn'] },
      PayloadFormatVersion: '2.0',
    });
  });

  it('gives the inbox integration the inbox function', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationUri: { 'Fn::GetAtt': [Match.stringLikeRegexp('^InboxHandlerFunction'), 'Arn'] },
    });
  });

  it('sends every other request to the API handler, which answers 404 or 405 problems', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: '$default',
      AuthorizationType: 'NONE',
      Target: { 'Fn::Join': ['', ['integrations/', ref('HttpApiPOSTrunsrunIdpausesHandler')]] },
    });
  });

  it('leaves exactly the public routes and $default without the authorizer', () => {
    const open = routes.filter((route) => route.AuthorizationType !== 'JWT').map((route) => route.RouteKey);
    expect(open.sort()).toEqual([...PUBLIC, '$default'].sort());
  });

  it.each(ROUTES.authorized.map((route) => `${route.method} ${route.path}`))(
    'leaves %s without AuthorizationScopes for an issuer of its own (no handback:requireScopes)',
    (routeKey) => {
      const route = routes.find((candidate) => candidate.RouteKey === routeKey) as Record<string, unknown> | undefined;
      expect(route?.AuthorizationScopes).toBeUndefined();
    },
  );

  it('puts the JWT authorizer on every other route', () => {
    const guarded = routes.filter((route) => route.AuthorizationType === 'JWT').map((route) => route.RouteKey);
    expect(guarded.sort()).toEqual([...AUTHORIZED].sort());
  });

  it('declares in ROUTES exactly the routes it makes', () => {
    const declared = [...ROUTES.authorized, ...ROUTES.public].map((route) => `${route.method} ${route.path}`);
    expect(declared.sort()).toEqual([...AUTHORIZED, ...PUBLIC].sort());
  });

  it('has no other route', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Route', AUTHORIZED.length + PUBLIC.length + 1);
  });

  it('integrates the API handler with payload format 2.0', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      IntegrationUri: getAtt('ApiHandlerFunction'),
      PayloadFormatVersion: '2.0',
    });
  });

  it('throttles the $default stage: 1,000 requests/s and a burst of 1,000 on each bearer route (§23)', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 1000 },
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

describe('the answer-link key', () => {
  it('is a generated secret of 64 letters and digits, safe in a header or URL, at least the 32 bytes HS256 wants', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true, IncludeSpace: false },
    });
  });

  it('is encrypted with the AWS managed Secrets Manager key by default', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', { KmsKeyId: Match.absent() });
  });

  it('is not rotated, since rotation would void every open answer link', () => {
    template.resourceCountIs('AWS::SecretsManager::RotationSchedule', 0);
  });

  it('is retained when it leaves the stack, like the table whose pauses its links open', () => {
    template.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'RetainExceptOnCreate' });
  });
});

describe('the sweep', () => {
  it('runs every minute from a scheduled rule', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: getAtt('SweeperFunction') })],
    });
  });

  it('drops a tick older than a minute instead of retrying it', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ RetryPolicy: { MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 2 } })],
    });
  });

  it('lets only that rule invoke the sweep function', () => {
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: getAtt('SweeperFunction'),
      Principal: 'events.amazonaws.com',
      SourceArn: getAtt('SweepEveryMinute'),
    });
  });

  it('does not retry a failed sweep, since the next tick redoes its work', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: ref('SweeperFunction'),
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
  });

  it('ends each sweep within the minute, before the next tick', () => {
    template.hasResourceProperties('AWS::Lambda::Function', { Role: getAtt('SweeperRole'), Timeout: 60 });
  });
});

describe('the lifecycle events', () => {
  const MAPPING = 'AWS::Lambda::EventSourceMapping';

  it('come from the table stream into the lifecycle function, from the latest record', () => {
    template.hasResourceProperties(MAPPING, {
      EventSourceArn: getAtt('CheckpointsTable', 'StreamArn'),
      FunctionName: ref('LifecycleHandlerFunction'),
      StartingPosition: 'LATEST',
    });
  });

  it('wake the function for pause items only, and for the pause items TTL removes with an object', () => {
    template.hasResourceProperties(MAPPING, {
      FunctionName: ref('LifecycleHandlerFunction'),
      FilterCriteria: {
        Filters: [
          { Pattern: JSON.stringify({ dynamodb: { NewImage: { kind: { S: ['pause'] } } } }) },
          // §23: a pause item TTL removed, whose transcript object the function deletes.
          {
            Pattern: JSON.stringify({
              eventName: ['REMOVE'],
              userIdentity: { type: ['Service'], principalId: ['dynamodb.amazonaws.com'] },
              dynamodb: { OldImage: { kind: { S: ['pause'] }, objectKey: { S: [{ exists: true }] } } },
            }),
          },
        ],
      },
    });
  });

  it('report partial batch failures, halve a failing batch and retry it a bounded number of times', () => {
    template.hasResourceProperties(MAPPING, {
      FunctionName: ref('LifecycleHandlerFunction'),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 100,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 3600,
    });
  });

  it('send what could not be delivered to an encrypted queue', () => {
    template.hasResourceProperties(MAPPING, {
      FunctionName: ref('LifecycleHandlerFunction'),
      DestinationConfig: { OnFailure: { Destination: getAtt('LifecycleFailedRecords') } },
    });
  });

  it('go to a bus of the stack own by default', () => {
    const buses = Object.keys(template.findResources('AWS::Events::EventBus'));
    expect(buses.filter((id) => id.startsWith('LifecycleBus'))).toHaveLength(1);
  });

  it('reach the notification topic for Pause Created from source handback, on that bus', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: ref('LifecycleBus'),
      EventPattern: { source: ['handback'], 'detail-type': ['Pause Created'] },
      Targets: [Match.objectLike({ Arn: ref('LifecyclePauseCreatedTopic') })],
    });
  });

  it('keep notifications the rule could not publish in a dead-letter queue', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['handback'], 'detail-type': ['Pause Created'] },
      Targets: [Match.objectLike({ DeadLetterConfig: { Arn: getAtt('LifecycleRuleDeadLetterQueue') } })],
    });
  });

  /** The Pause Created rule's input transformer. */
  const transformer = () => {
    const rules = Object.values(template.findResources('AWS::Events::Rule')).filter(
      (rule) => rule.Properties.EventPattern?.['detail-type']?.[0] === 'Pause Created',
    );
    expect(rules).toHaveLength(1);
    return rules[0]?.Properties.Targets[0].InputTransformer as {
      InputPathsMap: Record<string, string>;
      InputTemplate: string;
    };
  };

  it('take the answer link, the run, the expiry and the prompts and names of the asks from the event', () => {
    expect(Object.values(transformer().InputPathsMap).sort()).toEqual([
      '$.detail.answerUrl',
      '$.detail.asks[*].name',
      '$.detail.asks[*].prompt',
      '$.detail.expiresAt',
      '$.detail.runId',
    ]);
  });

  it('notify in a JSON message whose every value EventBridge inserts as JSON, so no prompt can break it', () => {
    const { InputPathsMap, InputTemplate } = transformer();
    // Inserted unquoted, each value arrives as its JSON text (a string quoted and escaped, an array as an array).
    const filled = InputTemplate.replace(/<([\w-]+)>/g, (_, name: string) =>
      JSON.stringify(name in InputPathsMap ? [`a "quoted" ${name}`] : null),
    );
    expect(Object.keys(JSON.parse(filled))).toEqual([
      'message',
      'runId',
      'asked',
      'tools',
      'decideBefore',
      'answerUrl',
    ]);
  });

  it('publish to a topic that refuses publishers without TLS', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [ref('LifecyclePauseCreatedTopic')],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sns:Publish',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('subscribe no one to the topic unless an email address is given', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });
});

describe('the alarms', () => {
  it.each([
    'ResumeRequestsDeadLetterQueue',
    'ResumeRequestsRuleDeadLetterQueue',
    'HandoffDeadLetterQueue',
    'LifecycleFailedRecords',
    'LifecycleRuleDeadLetterQueue',
  ])('watch the depth of %s', (queue) => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: getAtt(queue, 'QueueName') }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it.each([
    ['ApiHandlerFunction', 'Errors'],
    ['ApiHandlerFunction', 'Throttles'],
    ['StepFunctionsHandlerFunction', 'Errors'],
    ['StepFunctionsHandlerFunction', 'Throttles'],
    ['SqsHandlerFunction', 'Errors'],
    ['SqsHandlerFunction', 'Throttles'],
    ['ExampleAgentFunction', 'Errors'],
    ['ExampleAgentFunction', 'Throttles'],
    ['SweeperFunction', 'Errors'],
    ['SweeperFunction', 'Throttles'],
    ['LifecycleHandlerFunction', 'Errors'],
    ['LifecycleHandlerFunction', 'Throttles'],
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

  it.each([
    ['lifecycle events that could not be delivered', 'EventEmitFailures'],
    ['closed transcripts that could not move to the bucket', 'ArchiveFailures'],
  ])('watch %s, as Powertools counts them (%s)', (_, metric) => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Handback',
      MetricName: metric,
      Dimensions: [{ Name: 'service', Value: 'handback' }],
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('watch sweep ticks the schedule could not deliver', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Events',
      MetricName: 'FailedInvocations',
      Dimensions: [{ Name: 'RuleName', Value: ref('SweepEveryMinute') }],
      Threshold: 1,
    });
  });

  it('have no action without an alarm topic', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.filter((alarm) => alarm.Properties.AlarmActions !== undefined)).toEqual([]);
  });
});

describe('the outputs', () => {
  it('give the inbox page at the HTTP API /inbox', () => {
    template.hasOutput('InboxUrl', { Value: { 'Fn::Join': ['', [getAtt('HttpApi', 'ApiEndpoint'), '/inbox']] } });
  });

  it('give the lifecycle bus name', () => {
    template.hasOutput('LifecycleEventBusName', { Value: ref('LifecycleBus') });
  });

  it('give the notification topic ARN', () => {
    template.hasOutput('PauseCreatedTopicArn', { Value: ref('LifecyclePauseCreatedTopic') });
  });
});

describe('cdk-nag', () => {
  it('reports no unacknowledged AwsSolutions or Serverless finding, error or warning', () => {
    expect(defaultSynth().violations).toEqual([]);
  });
});
