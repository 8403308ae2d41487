import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoPath } from '../../infra/paths.ts';
import { PLACEHOLDER_ISSUER } from '../../infra/settings.ts';

const root = mkdtempSync(join(tmpdir(), 'handback-app-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** cdk.json's context, as the CDK CLI hands it to the app. */
const CDK_JSON_CONTEXT = (JSON.parse(readFileSync(repoPath('cdk.json'), 'utf8')) as { context: object }).context;

/**
 * Runs `infra/app.ts` as the CDK CLI does (`npx tsx infra/app.ts`, context in `CDK_CONTEXT_JSON`, output directory
 * in `CDK_OUTDIR`), with cdk.json's context and `overrides` on top, and no bundling.
 */
function runApp(overrides: Record<string, unknown>, options: { bundle?: boolean } = {}) {
  const context = { ...CDK_JSON_CONTEXT, ...overrides, ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }) };
  // An output directory per run, so that each run's template can be read after all have run.
  const outdir = mkdtempSync(join(root, 'out-'));
  const resources = () =>
    Object.values(
      (
        JSON.parse(readFileSync(join(outdir, 'Handback.template.json'), 'utf8')) as {
          Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
        }
      ).Resources,
    );
  const run = spawnSync(process.execPath, ['--import', 'tsx', repoPath('infra/app.ts')], {
    cwd: repoPath(''),
    env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify(context), CDK_OUTDIR: outdir },
    encoding: 'utf8',
  });
  return {
    ...run,
    /** The resource types of the stack this run wrote. */
    resourceTypes(): string[] {
      return resources().map((resource) => resource.Type);
    },
    /** The asset (S3 key) of each function of the stack this run wrote. */
    functionCode(): string[] {
      return resources()
        .filter((resource) => resource.Type === 'AWS::Lambda::Function')
        .map((resource) => String((resource.Properties?.Code as { S3Key?: unknown } | undefined)?.S3Key));
    },
  };
}

describe('the CDK app', () => {
  describe('with no auth context, as a first `npx cdk deploy` runs it', () => {
    const run = runApp({});

    it('synthesizes the stack and exits zero, cdk-nag clean', () => {
      expect([run.status, run.stderr]).toEqual([0, '']);
    });

    it('creates the user pool, with its two app clients', () => {
      const types = run.resourceTypes();
      expect(types.filter((type) => type === 'AWS::Cognito::UserPool')).toHaveLength(1);
      expect(types.filter((type) => type === 'AWS::Cognito::UserPoolClient')).toHaveLength(2);
    });
  });

  describe('bundling, as `cdk synth` and `cdk deploy` do, outside the test runner', () => {
    const run = runApp({}, { bundle: true });

    it("gives every function its own bundle, not the first function's", () => {
      expect(run.status).toBe(0);
      const code = run.functionCode();
      expect(code.length).toBeGreaterThan(5);
      expect(new Set(code).size).toBe(code.length);
    });
  });

  describe('with the placeholder issuer older cdk.json files carried', () => {
    const run = runApp({ 'handback:jwtIssuer': PLACEHOLDER_ISSUER, 'handback:jwtAudience': 'handback' });

    it('exits non-zero', () => {
      expect(run.status).toBe(1);
    });

    it('says in one line which context key to set or remove, without a stack trace', () => {
      expect(run.stderr.trim().split('\n')).toEqual([
        'Context handback:jwtIssuer is the placeholder https://issuer.example.com/: set -c handback:jwtIssuer=https://<your OIDC issuer> (e.g. https://cognito-idp.<region>.amazonaws.com/<pool id>, in cdk.json or on the command line), or remove handback:jwtIssuer and handback:jwtAudience to have the stack create a Cognito user pool.',
      ]);
    });
  });

  describe('with -c handback:jwtIssuer=not-a-url', () => {
    const run = runApp({ 'handback:jwtIssuer': 'not-a-url' });

    it('exits non-zero', () => {
      expect(run.status).toBe(1);
    });

    it('says in one line that the issuer must be an https URL, without a stack trace', () => {
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^Context handback:jwtIssuer must be an https URL, not "not-a-url": set -c /);
    });
  });

  describe('with a valid issuer', () => {
    const run = runApp({
      'handback:jwtIssuer': 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_example',
      'handback:jwtAudience': 'handback',
    });

    it('synthesizes the stack and exits zero, cdk-nag clean', () => {
      expect([run.status, run.stderr]).toEqual([0, '']);
    });

    it('trusts that issuer and creates no user pool', () => {
      const types = run.resourceTypes();
      expect(types.some((type) => type.startsWith('AWS::Cognito::'))).toBe(false);
      expect(types).toContain('AWS::ApiGatewayV2::Authorizer');
    });
  });
});
