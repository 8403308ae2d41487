import { jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { mintToken, TokenArgumentError } from '../../scripts/token.ts';

/** `npm run token` (scripts/token.ts): the development tokens the README's walkthrough signs people in with. */

const SECRET = 'a-local-token-key-of-at-least-32-bytes';
const env = { HANDBACK_JWT_SECRET: SECRET };

describe('npm run token', () => {
  it('signs HS256 with HANDBACK_JWT_SECRET the claims the service reads', async () => {
    const token = await mintToken(
      [
        '--sub',
        'ann',
        '--email',
        'ann@example.com',
        '--name',
        'Ann',
        '--groups',
        'finance, ops',
        '--scope',
        'handback/decide',
      ],
      env,
    );
    const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode(SECRET));
    expect(protectedHeader.alg).toBe('HS256');
    expect(payload).toMatchObject({
      sub: 'ann',
      email: 'ann@example.com',
      name: 'Ann',
      tenant: 'acme',
      'cognito:groups': ['finance', 'ops'],
      scope: 'handback/decide',
    });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
  });

  it('names the tenant and groups under the claims the service is told to read', async () => {
    const token = await mintToken(['--sub', 'bob', '--groups', 'finance', '--tenant', 'globex'], {
      ...env,
      TENANT_CLAIM: 'custom:tenant',
      HANDBACK_GROUPS_CLAIM: 'groups',
    });
    const { payload } = await jwtVerify(token, new TextEncoder().encode(SECRET));
    expect(payload).toMatchObject({ 'custom:tenant': 'globex', groups: ['finance'] });
    expect(payload).not.toHaveProperty('scope');
  });

  it.each([
    ['no key', [], {}, /HANDBACK_JWT_SECRET must be set/],
    ['a short key', ['--sub', 'ann'], { HANDBACK_JWT_SECRET: 'short' }, /at least 32 bytes/],
    ['no subject', [], env, /--sub is required/],
    ['an unknown scope', ['--sub', 'ann', '--scope', 'handback/admin'], env, /--scope handback\/admin/],
    ['an unknown option', ['--sub', 'ann', '--role', 'admin'], env, /--role/],
  ])('refuses %s with a line saying what to do', async (_, args, given, message) => {
    await expect(mintToken(args, given)).rejects.toThrow(TokenArgumentError);
    await expect(mintToken(args, given)).rejects.toThrow(message);
  });
});
