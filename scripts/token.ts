import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { DEFAULT_GROUPS_CLAIM } from '../functions/handlers/principal.ts';
import { MIN_JWT_SECRET_BYTES } from '../functions/local/service.ts';
import { SCOPES } from '../functions/vocabulary.ts';

/**
 * `npm run -s token -- --sub ann --groups finance --scope handback/decide`: prints a bearer token for the local
 * service started with `HANDBACK_JWT_SECRET` (HS256, signed with that same variable), so a reader can try who decides
 * (§13) from the command line. The claims are the ones the service reads: `sub`, `email` (with `email_verified`),
 * `name`, the tenant (under `TENANT_CLAIM`, default `tenant`), the groups (under `HANDBACK_GROUPS_CLAIM`, default
 * `cognito:groups`), `scope`, `exp`, and `aud` (the first of `HANDBACK_JWT_AUDIENCE`, when set).
 * For development only: on AWS and with `HANDBACK_JWT_ISSUER`, tokens come from the issuer.
 */

/** Why a token could not be made, as the one line the script prints. */
export class TokenArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenArgumentError';
  }
}

const USAGE =
  'usage: npm run -s token -- --sub <subject> [--email <email>] [--name <name>] [--groups <a,b>] ' +
  `[--scope "${SCOPES.agent} | ${SCOPES.decide}"] [--tenant <tenant, default acme>] [--expires <1h>]`;

/** The token `args` ask for, signed with `env.HANDBACK_JWT_SECRET`. */
export async function mintToken(args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(args).values;
  } catch (error) {
    throw new TokenArgumentError(`${(error as Error).message}\n${USAGE}`);
  }
  const secret = env.HANDBACK_JWT_SECRET;
  if (secret === undefined || Buffer.byteLength(secret) < MIN_JWT_SECRET_BYTES) {
    throw new TokenArgumentError(
      `HANDBACK_JWT_SECRET must be set to the local service's key (at least ${MIN_JWT_SECRET_BYTES} bytes) in this shell too.`,
    );
  }
  if (values.sub === undefined || values.sub === '') throw new TokenArgumentError(`--sub is required\n${USAGE}`);
  const known = new Set<string>(Object.values(SCOPES));
  const scopes = (values.scope ?? '').split(/\s+/).filter(Boolean);
  const unknown = scopes.filter((scope) => !known.has(scope) && scope !== 'openid' && scope !== 'email');
  if (unknown.length > 0) {
    throw new TokenArgumentError(`--scope ${unknown.join(' ')}: Handback's scopes are ${[...known].join(' and ')}`);
  }
  const groups = (values.groups ?? '')
    .split(',')
    .map((group) => group.trim())
    .filter(Boolean);
  const claims: Record<string, unknown> = { [env.TENANT_CLAIM || 'tenant']: values.tenant ?? 'acme' };
  // The script stands in for the developer's identity provider, which vouches for the emails it issues (§16).
  if (values.email !== undefined) Object.assign(claims, { email: values.email, email_verified: true });
  // A service with HANDBACK_JWT_AUDIENCE takes only tokens for one of its audiences (§16).
  const audience = env.HANDBACK_JWT_AUDIENCE?.split(',')[0]?.trim();
  if (audience) claims.aud = audience;
  if (values.name !== undefined) claims.name = values.name;
  if (groups.length > 0) claims[env.HANDBACK_GROUPS_CLAIM || DEFAULT_GROUPS_CLAIM] = groups;
  // No --scope: an unscoped token, which opens every route unless the service requires scopes (§13).
  if (scopes.length > 0) claims.scope = scopes.join(' ');
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(values.sub)
    .setIssuedAt()
    .setExpirationTime(values.expires ?? '1h')
    .sign(new TextEncoder().encode(secret));
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      sub: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      groups: { type: 'string' },
      scope: { type: 'string' },
      tenant: { type: 'string' },
      expires: { type: 'string' },
    },
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  mintToken(process.argv.slice(2), process.env).then(
    (token) => console.log(token),
    (error: unknown) => {
      console.error(error instanceof TokenArgumentError ? error.message : error);
      process.exitCode = 1;
    },
  );
}
