import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../infra/settings.ts';
import { synthesize } from './synth.ts';

/**
 * The deployment's Cedar policies at synthesis (§17, §19), without bundling: context `handback:policies` (and its
 * siblings) validated with the real Cedar, and the functions that pause or judge a person's edits — and only those —
 * told where their files are. `policies.slow.test.ts` bundles them and runs the API function's bundle.
 */

const POLICIES = 'test/fixtures/policies/policies.cedar';
const SCHEMA = 'test/fixtures/policies/args.cedarschema';

const template = (context: Record<string, unknown>) => synthesize({}, { bundle: false, context }).template;

/** The environment of each function, by the logical id's prefix (its construct id). */
function environments(context: Record<string, unknown>): Map<string, Record<string, unknown>> {
  const functions = template(context).findResources('AWS::Lambda::Function');
  return new Map(
    Object.entries(functions).map(([id, fn]) => [
      id.replace(/Function[0-9A-F]{8}$/, ''),
      (fn.Properties.Environment?.Variables ?? {}) as Record<string, unknown>,
    ]),
  );
}

/** The functions that pause or take a person's decisions (an edit among them), each with its door. */
const JUDGES = [
  'ApiHandler',
  'McpHandler',
  'StepFunctionsHandler',
  'SqsHandler',
  'EventBridgeHandler',
  'ChannelsSlackInteractions',
];

describe('synthesis with a policy file', () => {
  const byFunction = environments({
    'handback:policies': POLICIES,
    'handback:policySchema': SCHEMA,
    'handback:policyMode': 'shadow',
    'handback:policyDefault': 'reject',
    'handback:policyTimeZone': 'Europe/Paris',
    'handback:policyVersion': 'release-7',
    'handback:resumeRequestsVia': 'function',
    'handback:slackSecretName': 'handback/slack',
  });

  it.each(JUDGES)('tells %s, which pauses or judges edits, where its bundled files are and how they apply', (name) => {
    expect(byFunction.get(name)).toMatchObject({
      HANDBACK_POLICIES: 'policies/policies.cedar',
      HANDBACK_POLICY_SCHEMA: 'policies/args.cedarschema',
      HANDBACK_POLICY_MODE: 'shadow',
      HANDBACK_POLICY_DEFAULT: 'reject',
      HANDBACK_POLICY_TIMEZONE: 'Europe/Paris',
      HANDBACK_POLICY_VERSION: 'release-7',
      HANDBACK_CEDAR_SCHEMA: 'policies/handback.cedarschema',
      HANDBACK_CEDAR_WASM: 'policies/cedar_wasm_bg.wasm',
    });
  });

  it('gives no policy to a function that neither pauses nor takes decisions (the sweep among them)', () => {
    expect(byFunction.has('Sweeper')).toBe(true);
    const others = [...byFunction].filter(([name]) => !JUDGES.includes(name));
    expect(others.length).toBeGreaterThan(3);
    for (const [, environment] of others) {
      expect(Object.keys(environment).filter((key) => key.includes('POLICY') || key.includes('CEDAR'))).toEqual([]);
    }
  });

  it('defaults to enforce and ask', () => {
    expect(
      environments({ 'handback:policies': POLICIES, 'handback:policySchema': SCHEMA }).get('ApiHandler'),
    ).toMatchObject({
      HANDBACK_POLICY_MODE: 'enforce',
      HANDBACK_POLICY_DEFAULT: 'ask',
      HANDBACK_POLICY_TIMEZONE: 'UTC',
    });
  });
});

describe('synthesis without a policy file', () => {
  it('gives no function a policy variable', () => {
    for (const [, environment] of environments({})) {
      expect(Object.keys(environment).filter((key) => key.includes('POLICY') || key.includes('CEDAR'))).toEqual([]);
    }
  });
});

describe('synthesis refuses', () => {
  const refusal = (context: Record<string, unknown>) => {
    try {
      template(context);
    } catch (error) {
      return error;
    }
    throw new Error('synthesis did not refuse');
  };

  it("a file that does not parse, naming the key, the file, the line and column, and Cedar's words", () => {
    const error = refusal({ 'handback:policies': 'test/fixtures/policies/bad.cedar' });
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe(
      'Context handback:policies: test/fixtures/policies/bad.cedar:3:58: failed to parse policies from string: unexpected token `}`',
    );
  });

  it('a policy that reads an argument its schema does not declare', () => {
    const error = refusal({ 'handback:policies': POLICIES });
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(
      /^Context handback:policies: test\/fixtures\/policies\/policies\.cedar:\d+:\d+: /,
    );
  });

  it('a file that is not there, a mode or a default that is not a word, a schema without policies, a bad zone', () => {
    for (const [context, message] of [
      [
        { 'handback:policies': 'nowhere.cedar' },
        /^Context handback:policies names nowhere\.cedar, which cannot be read/,
      ],
      [
        { 'handback:policies': POLICIES, 'handback:policyMode': 'audit' },
        /^Context handback:policyMode must be enforce or shadow, not "audit"\.$/,
      ],
      [
        { 'handback:policies': POLICIES, 'handback:policyDefault': 'approve' },
        /^Context handback:policyDefault must be ask or reject/,
      ],
      [{ 'handback:policySchema': SCHEMA }, /^Context handback:policySchema is set without Context handback:policies/],
      [
        { 'handback:policies': POLICIES, 'handback:policyTimeZone': 'Europe/Atlantis' },
        /^Context handback:policyTimeZone must be an IANA time zone such as UTC or Europe\/Paris, not "Europe\/Atlantis"\.$/,
      ],
    ] as const) {
      const error = refusal(context);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(message);
    }
  });
});
