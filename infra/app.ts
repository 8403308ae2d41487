/**
 * The CDK app: one Handback stack, configured by context (`cdk.json` or `-c handback:…=…`, see `infra/settings.ts`),
 * checked by cdk-nag's AWS Solutions and Serverless packs at every synthesis.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { HandbackStack } from './handback-stack.ts';

const app = new App();
const stackName = (app.node.tryGetContext('handback:stackName') as string | undefined) ?? 'Handback';
new HandbackStack(app, stackName, {
  description: 'Handback: pause and resume LLM agent turns for a person on Lambda and DynamoDB',
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
app.synth();
