import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../infra/settings.ts';
import { synthesize } from './synth.ts';

/**
 * The deployment's directory file at synthesis (§20), without bundling: context `handback:directory` read and checked
 * whole, as `npm start` checks it, and every function that decides or pauses told where its copy is.
 */

const PEOPLE = 'test/fixtures/directory/people.json';

const template = (context: Record<string, unknown>) => synthesize({}, { bundle: false, context }).template;

/** The environment of each function, by its construct id. */
function environments(context: Record<string, unknown>): Map<string, Record<string, unknown>> {
  const functions = template(context).findResources('AWS::Lambda::Function');
  return new Map(
    Object.entries(functions).map(([id, fn]) => [
      id.replace(/Function[0-9A-F]{8}$/, ''),
      (fn.Properties.Environment?.Variables ?? {}) as Record<string, unknown>,
    ]),
  );
}

describe('synthesis with a directory file', () => {
  // Both channels on: Slack's clicks decide, and the deliveries tell delegates and a level's groups (§20, §21).
  const byFunction = environments({
    'handback:directory': PEOPLE,
    'handback:slackSecretName': 'handback/slack',
    'handback:emailFrom': 'approvals@example.org',
  });

  it.each(['ApiHandler', 'McpHandler', 'StepFunctionsHandler', 'SqsHandler'])(
    'tells %s, which decides or pauses, where its bundled copy is',
    (name) => {
      expect(byFunction.get(name)).toMatchObject({ HANDBACK_DIRECTORY: 'directory/people.json' });
    },
  );

  it.each(['SlackInteractions', 'SlackEvents', 'EmailEvents'])(
    'tells the channel function %s, which decides or tells people, where its bundled copy is',
    (name) => {
      const found = [...byFunction].filter(([id]) => id.includes(name));
      expect(found).toHaveLength(1);
      expect(found[0]?.[1]).toMatchObject({ HANDBACK_DIRECTORY: 'directory/people.json' });
    },
  );
});

describe('synthesis without a directory file', () => {
  it('gives no function HANDBACK_DIRECTORY', () => {
    for (const [, environment] of environments({})) expect(environment).not.toHaveProperty('HANDBACK_DIRECTORY');
  });
});

describe('synthesis refuses a directory file', () => {
  const refusal = (context: Record<string, unknown>) => {
    try {
      template(context);
    } catch (error) {
      return error;
    }
    throw new Error('synthesis did not refuse');
  };

  it.each([
    [
      'that two persons share an email in',
      'test/fixtures/directory/shared-email.json',
      'Context handback:directory: The directory file test/fixtures/directory/shared-email.json at /people/1: the email "ANN@example.com" is already "ann"\'s.',
    ],
    [
      'that is not there',
      'nowhere.json',
      /^Context handback:directory: The directory file nowhere\.json cannot be read: ENOENT/,
    ],
  ])('%s, naming the key, the file and the entry', (_what, file, message) => {
    const error = refusal({ 'handback:directory': file });
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(message);
  });
});
