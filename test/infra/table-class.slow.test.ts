import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { CONTEXT, resolveSettings } from '../../infra/settings.ts';
import { defaultSynth, synthesize } from './synth.ts';

/**
 * The checkpoint table's class (§23, `handback:tableClass`): Standard-Infrequent Access unless context asks for
 * Standard — a year of audit trail makes storage most of a decided pause's cost (`npm run bench -- cost`).
 */

const JWT = { jwtIssuer: 'https://issuer.test/', jwtAudience: ['handback'] };

describe('the checkpoint table class', () => {
  it('is Standard-Infrequent Access by default', () => {
    defaultSynth().template.hasResourceProperties('AWS::DynamoDB::Table', {
      TableClass: 'STANDARD_INFREQUENT_ACCESS',
    });
  });

  it('is Standard when handback:tableClass says standard', () => {
    const { template } = synthesize({}, { bundle: false, context: { [CONTEXT.tableClass]: 'standard' } });
    template.hasResourceProperties('AWS::DynamoDB::Table', { TableClass: 'STANDARD' });
  });

  it('refuses a class it does not know, naming the key and the classes', () => {
    const stack = new Stack(new App({ context: { [CONTEXT.tableClass]: 'glacier' } }), 'Settings');
    expect(() => resolveSettings(stack, JWT)).toThrow(
      'Context handback:tableClass must be standard-ia or standard, not glacier.',
    );
  });
});
