import type { TestProject } from 'vitest/node';
import { startEmbeddedDynamoDB } from '../../functions/local/embedded-dynamodb.ts';

/**
 * vitest global setup of the `store` and `slow` projects: starts the embedded DynamoDB-compatible server (dynalite, in
 * memory, on a free port) once for the project's run and hands its endpoint to the tests (`inject('dynamodbEndpoint')`,
 * see `dynamodb.ts`). With `DYNAMODB_ENDPOINT` set, the tests use that endpoint (DynamoDB Local, or AWS) and nothing
 * is started.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
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
