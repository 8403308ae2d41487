import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../infra/settings.ts';
import { evaluate, resolve, sesArn } from './iam.ts';
import { synthesize } from './synth.ts';

/**
 * What each function's role lets it do, tested against the request the service authorizes: SES's `SendEmail` in and
 * out of the sandbox.
 */

const FROM = 'approvals@example.org';
const RECIPIENT = 'ann@example.net';

const email = (context: Record<string, unknown> = {}) =>
  synthesize({}, { bundle: false, context: { 'handback:emailFrom': FROM, ...context } }).template;

/** Every statement of the policies attached to the role of the function whose logical id starts with `prefix`. */
function roleStatements(template: Template, prefix: string): Array<Record<string, unknown>> {
  const policies = Object.entries(template.findResources('AWS::IAM::Policy')).filter(([id]) =>
    id.startsWith(`${prefix}Role`),
  );
  expect(policies.length).toBeGreaterThan(0);
  return policies.flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement);
}

/**
 * SES v2 SendEmail as SES authorizes it (its IAM guide): the sender's identity, in the sandbox each recipient's
 * identity too, and the configuration set when one is used, with `ses:FromAddress` the sender.
 */
function sendEmail(template: Template, resource: string, from = FROM) {
  return evaluate(roleStatements(template, 'ChannelsEmailEvents'), {
    action: 'ses:SendEmail',
    resource,
    context: { 'ses:FromAddress': from },
  });
}

describe('the email function’s SES grant', () => {
  const sandboxed = email();

  it('allows SendEmail on the sender’s identity', () => {
    expect(sendEmail(sandboxed, sesArn(`identity/${FROM}`))).toBe('allow');
  });

  it('allows SendEmail on a recipient’s identity, as the sandbox checks, by default', () => {
    expect(sendEmail(sandboxed, sesArn(`identity/${RECIPIENT}`))).toBe('allow');
    expect(sendEmail(sandboxed, sesArn('identity/example.net'))).toBe('allow');
  });

  it('allows a recipient’s identity only for mail from the configured sender (ses:FromAddress)', () => {
    expect(sendEmail(sandboxed, sesArn(`identity/${RECIPIENT}`), 'mallory@example.org')).toBe('implicit');
  });

  it('grants no recipient identity once handback:emailSandbox=false says the account left the sandbox', () => {
    const production = email({ 'handback:emailSandbox': 'false' });
    expect(sendEmail(production, sesArn(`identity/${RECIPIENT}`))).toBe('implicit');
    expect(sendEmail(production, sesArn(`identity/${FROM}`))).toBe('allow');
  });

  it('allows the configuration set handback:emailConfigurationSet names, and no other', () => {
    const configured = email({ 'handback:emailConfigurationSet': 'handback-mail' });
    expect(sendEmail(configured, sesArn('configuration-set/handback-mail'))).toBe('allow');
    expect(sendEmail(configured, sesArn('configuration-set/another'))).toBe('implicit');
  });

  it('tells the function the configuration set to send with', () => {
    const configured = email({ 'handback:emailConfigurationSet': 'handback-mail' });
    const functions = configured.findResources('AWS::Lambda::Function');
    const [fn] = Object.entries(functions).filter(([id]) => id.startsWith('ChannelsEmailEventsFunction'));
    expect(fn?.[1].Properties.Environment.Variables).toMatchObject({ SES_CONFIGURATION_SET: 'handback-mail' });
  });

  it('refuses a configuration set name SES would refuse', () => {
    expect(() => email({ 'handback:emailConfigurationSet': 'not a name' })).toThrow(ConfigurationError);
  });
});

describe('the stacks these grants come from', () => {
  it('pass cdk-nag’s AWS Solutions and Serverless packs, each acknowledgement with its reason', () => {
    const { violations } = synthesize(
      {},
      { bundle: false, context: { 'handback:emailFrom': FROM, 'handback:emailConfigurationSet': 'handback-mail' } },
    );
    expect(violations).toEqual([]);
  });
});

describe('the table grants', () => {
  const withChannels = synthesize(
    {},
    {
      bundle: false,
      context: {
        'handback:slackSecretName': 'handback/slack',
        'handback:emailFrom': FROM,
        'handback:exampleAgent': 'durable',
      },
    },
  ).template;

  /** Each role's DynamoDB actions, by the role's logical id. */
  function tableActions(template: Template): Map<string, string[]> {
    const byRole = new Map<string, string[]>();
    for (const [id, policy] of Object.entries(template.findResources('AWS::IAM::Policy'))) {
      const actions = (policy.Properties.PolicyDocument.Statement as Array<{ Action: string | string[] }>)
        .flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]))
        .filter((action) => action.startsWith('dynamodb:') && action !== 'dynamodb:ListStreams');
      if (actions.length > 0) byRole.set(id, [...(byRole.get(id) ?? []), ...actions]);
    }
    return byRole;
  }
  const rolesWith = (action: string) =>
    [...tableActions(withChannels)]
      .filter(([, actions]) => actions.includes(action))
      .map(([id]) => id.replace(/RoleDefaultPolicy.*$/, ''))
      .sort();

  it('give no function BatchWriteItem or ConditionCheckItem, which nothing sends', () => {
    expect(rolesWith('dynamodb:BatchWriteItem')).toEqual([]);
    expect(rolesWith('dynamodb:ConditionCheckItem')).toEqual([]);
  });

  it('give DeleteItem only to what deletes: the functions that pause, the channels giving a claim back, and the lifecycle stream deleting a closed transcript’s parts once moved to the bucket', () => {
    expect(rolesWith('dynamodb:DeleteItem')).toEqual([
      'ApiHandler',
      'ChannelsEmailEvents',
      'ChannelsSlackEvents',
      'DurableExampleAgent',
      'ExampleAgent',
      'LifecycleHandler',
      'McpHandler',
    ]);
  });

  it('give PutItem only to what writes items: the pausers, and the channels’ delivery log', () => {
    expect(rolesWith('dynamodb:PutItem')).toEqual([
      'ApiHandler',
      'ChannelsEmailEvents',
      'ChannelsSlackEvents',
      'ChannelsSlackInteractions',
      'DurableExampleAgent',
      'ExampleAgent',
      'McpHandler',
    ]);
  });

  it('let the resumers that only decide update, not put or delete', () => {
    const actions = tableActions(withChannels);
    for (const name of ['StepFunctionsHandler', 'SqsHandler', 'Sweeper']) {
      const [, granted] = [...actions].find(([id]) => id.startsWith(`${name}Role`)) ?? ['', []];
      expect(granted.sort()).toEqual([
        'dynamodb:BatchGetItem',
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ]);
    }
  });

  it.each(['ExampleAgent', 'DurableExampleAgent'])(
    'let %s read and write its own tenant’s runs only (dynamodb:LeadingKeys)',
    (name) => {
      const statements = roleStatements(withChannels, name);
      const table = resolve(
        (
          statements.find((statement) => JSON.stringify(statement.Action).includes('dynamodb:PutItem'))?.Resource as
            | unknown[]
            | undefined
        )?.[0],
      );
      const put = (pk: string) =>
        evaluate(statements, {
          action: 'dynamodb:PutItem',
          resource: table,
          context: { 'dynamodb:LeadingKeys': [pk] },
        });
      expect(put('T#default#R#demo-1')).toBe('allow');
      expect(put('T#acme#R#demo-1')).toBe('implicit');
    },
  );

  it('scope the example agent to the tenant handback:exampleAgentTenant names', () => {
    const acme = synthesize({}, { bundle: false, context: { 'handback:exampleAgentTenant': 'acme' } }).template;
    const statements = roleStatements(acme, 'ExampleAgent');
    const table = resolve(
      (
        statements.find((statement) => JSON.stringify(statement.Action).includes('dynamodb:PutItem'))?.Resource as
          | unknown[]
          | undefined
      )?.[0],
    );
    expect(
      evaluate(statements, {
        action: 'dynamodb:GetItem',
        resource: table,
        context: { 'dynamodb:LeadingKeys': ['T#acme#R#demo-1'] },
      }),
    ).toBe('allow');
  });
});
