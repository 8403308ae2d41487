/**
 * The CDK app: one Handback stack, configured by context (`cdk.json` or `-c handback:…=…`, see `infra/settings.ts`),
 * checked by cdk-nag's AWS Solutions and Serverless packs at every synthesis. A setting that cannot work stops
 * synthesis with its one-line message and a non-zero exit, without a stack trace to bury it.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { buildInbox } from '../functions/inbox/build.ts';
import { stackName as STACK_NAME } from '../functions/settings.ts';
import { HandbackStack } from './handback-stack.ts';
import { ConfigurationError } from './settings.ts';

// The API function serves the inbox page from its generated module (gitignored, not built by `npm ci`): built here
// as the page is now, so a deploy from a fresh clone, or after an edit of the page, ships the current page.
await buildInbox();
const app = new App();
const stackName = (app.node.tryGetContext(STACK_NAME.context) as string | undefined) ?? STACK_NAME.default;
try {
  new HandbackStack(app, stackName, {
    description: 'Handback: pause and resume LLM agent turns for a person on Lambda and DynamoDB',
  });
} catch (error) {
  if (!(error instanceof ConfigurationError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
// cdk-nag's AwsSolutions-EVB1 reads CfnEventBusPolicy's deprecated `principal` (the stack sets only `statement`), and
// aws-cdk-lib prints a deprecation warning for the read on every synthesis; the checks run quiet unless asked otherwise.
process.env.JSII_DEPRECATED ??= 'quiet';
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
app.synth();
