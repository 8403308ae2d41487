import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { synthesize } from './synth.ts';

/**
 * What §16 needs of the stack: the recipient domains reach every function that pauses or sends; the API trusts the
 * emails of its own pool's access tokens (whose trigger adds only verified ones), and nobody else's; with email on,
 * the API may mail the links asked for with `deliver: true`, by the email channel's identity alone.
 */

const withPool = synthesize(
  { jwtIssuer: undefined, jwtAudience: undefined },
  {
    bundle: false,
    context: {
      'handback:recipientDomains': 'example.com,ops.example.org',
      'handback:emailFrom': 'approvals@example.org',
    },
  },
);
const withIssuer = synthesize({}, { bundle: false });

/** The environment of the one function whose logical id starts with `prefix`. */
function environmentOf(template: Template, prefix: string): Record<string, unknown> {
  const found = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([id]) => id.startsWith(prefix));
  expect(found.map(([id]) => id)).toHaveLength(1);
  return (found[0]?.[1].Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
}

describe('the stack and one person at every door (§16)', () => {
  it.each(['ApiHandler', 'StepFunctionsHandler', 'SqsHandler', 'ChannelsEmailEvents'])(
    'gives %s the recipient domains',
    (prefix) => {
      expect(environmentOf(withPool.template, prefix).HANDBACK_RECIPIENT_DOMAINS).toBe('example.com,ops.example.org');
    },
  );

  it('sets no recipient domains where the deployment names none', () => {
    expect(environmentOf(withIssuer.template, 'ApiHandler')).not.toHaveProperty('HANDBACK_RECIPIENT_DOMAINS');
  });

  it("tells the API its own pool's issuer, and no issuer when it trusts another's tokens", () => {
    expect(environmentOf(withPool.template, 'ApiHandler').OWN_USER_POOL_ISSUER).toEqual(expect.anything());
    expect(environmentOf(withIssuer.template, 'ApiHandler')).not.toHaveProperty('OWN_USER_POOL_ISSUER');
  });

  it('lets the API mail delivered links from the email identity, and from nothing else', () => {
    expect(environmentOf(withPool.template, 'ApiHandler').HANDBACK_EMAIL_FROM).toBe('approvals@example.org');
    withPool.template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyName: Match.stringLikeRegexp('^ApiHandlerRoleDefaultPolicy'),
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'ses:SendEmail',
            Resource: Match.objectLike({
              'Fn::Join': Match.arrayWith([Match.arrayWith([':identity/approvals@example.org'])]),
            }),
          }),
        ]),
      },
    });
  });

  it('passes cdk-nag with all of it on', () => {
    expect(withPool.violations).toEqual([]);
  });
});
