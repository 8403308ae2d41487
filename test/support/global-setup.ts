import type { TestProject } from 'vitest/node';
import { buildInbox } from '../../functions/inbox/build.ts';
import { startEmbeddedDynamoDB } from '../../functions/local/embedded-dynamodb.ts';

/**
 * vitest global setup: starts the embedded DynamoDB-compatible server (dynalite, in memory, on a free port) once
 * for the whole run and hands its endpoint to the tests (`inject('dynamodbEndpoint')`, see `dynamodb.ts`). With
 * `DYNAMODB_ENDPOINT` set, the tests use that endpoint (DynamoDB Local, or AWS) and nothing is started. First it
 * builds the inbox page (`npm run build:inbox`), so every test serves the page as the code is now.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildInbox();
  const configured = process.env.DYNAMODB_ENDPOINT;
  if (configured) {
    project.provide('dynamodbEndpoint', configured);
    project.provide('dynamodbEmbedded', false);
    return async () => {};
  }
  const embedded = await startEmbeddedDynamoDB();
  project.provide('dynamodbEndpoint', embedded.endpoint);
  project.provide('dynamodbEmbedded', true);
  return () => embedded.close();
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The endpoint of the DynamoDB-compatible server the tests run on. */
    dynamodbEndpoint: string;
    /** True when it is the embedded dynalite started by this setup. */
    dynamodbEmbedded: boolean;
  }
}
