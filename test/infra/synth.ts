import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { HandbackStack, type HandbackStackProps } from '../../infra/handback-stack.ts';
import { repoPath } from '../../infra/paths.ts';

/** One violation of the validation report, as `validation-report.json` writes it. */
export interface ReportedViolation {
  plugin: string;
  rule: string;
  severity: string;
  paths: string[];
}

/** A synthesized Handback stack: its template, its cloud assembly, and what the validation plugins reported. */
export interface Synthesized {
  stack: HandbackStack;
  template: Template;
  assembly: CloudAssembly;
  violations: ReportedViolation[];
}

/** The issuer and audience every test stack trusts. */
export const TEST_JWT = { issuer: 'https://issuer.test/', audience: ['handback-test'] } as const;

/** The context `cdk synth` uses: cdk.json's, so the tests see the feature flags the CLI sees. */
function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(repoPath('cdk.json'), 'utf8')) as { context: Record<string, unknown> };
  return cdkJson.context;
}

interface PluginReport {
  summary?: { pluginName?: string };
  pluginName?: string;
  violations?: {
    ruleName: string;
    severity?: string;
    violatingResources?: { constructPath?: string }[];
    violatingConstructs?: { constructPath?: string }[];
  }[];
}

/** Every unacknowledged violation in the assembly's validation report (none when no report was written). */
function readViolations(assembly: CloudAssembly): ReportedViolation[] {
  let text: string;
  try {
    text = readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8');
  } catch {
    return [];
  }
  const report = JSON.parse(text) as { pluginReports?: PluginReport[] };
  return (report.pluginReports ?? []).flatMap((plugin) =>
    (plugin.violations ?? []).map((violation) => ({
      plugin: plugin.summary?.pluginName ?? plugin.pluginName ?? 'unknown',
      rule: violation.ruleName,
      severity: violation.severity ?? 'unknown',
      paths: (violation.violatingResources ?? violation.violatingConstructs ?? []).map((r) => r.constructPath ?? '?'),
    })),
  );
}

/**
 * Synthesizes a Handback stack with cdk-nag's packs, as `infra/app.ts` does. `bundle: false` skips esbuild (CDK's
 * `aws:cdk:bundling-stacks` context) for tests that only read the template.
 */
export function synthesize(
  props: HandbackStackProps = {},
  options: { bundle?: boolean; context?: Record<string, unknown> } = {},
): Synthesized {
  const context: Record<string, unknown> = { ...cdkJsonContext(), ...options.context };
  if (options.bundle === false) context['aws:cdk:bundling-stacks'] = [];
  const app = new App({ context });
  const stack = new HandbackStack(app, 'Handback', {
    jwtIssuer: TEST_JWT.issuer,
    jwtAudience: [...TEST_JWT.audience],
    ...props,
  });
  const { assembly, violations } = synthesizeWithChecks(app);
  const template = Template.fromJSON(assembly.getStackByName(stack.stackName).template as Record<string, unknown>);
  return { stack, template, assembly, violations };
}

/** Adds cdk-nag's AWS Solutions and Serverless packs, as `infra/app.ts` does, synthesizes, and reads the report. */
export function synthesizeWithChecks(app: App): { assembly: CloudAssembly; violations: ReportedViolation[] } {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  const assembly = app.synth();
  return { assembly, violations: readViolations(assembly) };
}

const memo = new Map<string, Synthesized>();

/**
 * The default stack, synthesized once per test file (each file runs in its own worker): `bundled` runs esbuild for
 * every function, which only the tests of the bundles need.
 */
export function defaultSynth(options: { bundled?: boolean } = {}): Synthesized {
  const key = options.bundled ? 'bundled' : 'template';
  let synthesized = memo.get(key);
  if (!synthesized) {
    synthesized = synthesize({}, { bundle: options.bundled === true });
    memo.set(key, synthesized);
  }
  return synthesized;
}
