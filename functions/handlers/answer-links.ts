import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type AnswerLinks, createAnswerLinks } from '../links/answer-links.ts';
import { tracer } from './observability.ts';

/**
 * Answer links, when the deployment keeps a link key in Secrets Manager (`LINK_SECRET_ARN`): the key is read once,
 * at cold start, by the entry points that sign or verify links (the API and the lifecycle stream) — the only ones
 * that import this module, and with it the Secrets Manager client and jose (statically: a client imported with
 * `import()` keeps every command of its package in the bundle).
 */
export async function loadAnswerLinks(linkSecretArn: string | undefined): Promise<AnswerLinks | undefined> {
  if (linkSecretArn === undefined) return undefined;
  const client = tracer.captureAWSv3Client(new SecretsManagerClient({}));
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: linkSecretArn }));
  if (SecretString === undefined || SecretString.length === 0) {
    throw new Error(`The secret ${linkSecretArn} (LINK_SECRET_ARN) holds no string: store the link key there.`);
  }
  return createAnswerLinks(new TextEncoder().encode(SecretString));
}
