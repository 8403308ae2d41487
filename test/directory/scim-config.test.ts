import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../functions/handlers/config.ts';
import { localSettings } from '../../functions/local/config.ts';

const SECRET = 'a-scim-secret-of-at-least-thirty-two-bytes';

describe('SCIM’s settings (§20): one directory source at a time', () => {
  it('serves SCIM for its tenant (the default tenant unless set) with a secret of 32 bytes or more', () => {
    expect(localSettings({ HANDBACK_SCIM_TOKEN: SECRET }).scim).toEqual({ token: SECRET, tenant: 'default' });
    expect(localSettings({ HANDBACK_SCIM_TOKEN: SECRET, HANDBACK_SCIM_TENANT: 'acme' }).scim?.tenant).toBe('acme');
    expect(localSettings({}).scim).toBeUndefined();
    expect(() => localSettings({ HANDBACK_SCIM_TOKEN: 'short' })).toThrow(/HANDBACK_SCIM_TOKEN is 5 bytes/);
  });

  it('refuses a directory file and SCIM together, locally and on Lambda', () => {
    expect(() => localSettings({ HANDBACK_SCIM_TOKEN: SECRET, HANDBACK_DIRECTORY: 'people.json' })).toThrow(
      /HANDBACK_DIRECTORY and HANDBACK_SCIM_TOKEN are both set/,
    );
    const lambda = { TABLE_NAME: 'handback', SCIM_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:1:secret:scim' };
    expect(loadConfig(lambda).scim).toEqual({ secretArn: lambda.SCIM_SECRET_ARN, tenant: 'default' });
    expect(() => loadConfig({ ...lambda, HANDBACK_DIRECTORY: 'people.json' })).toThrow(/both set/);
  });
});
