/**
 * The SQS trigger with nothing at init: its handler, and everything it imports, loaded by the first call. Init then
 * reads a few hundred bytes, far under any floor, and the first decision pays for all of it. The benchmark's
 * approve after a cold start (bench/first-decision.ts) holds it beside the trigger as the stack bundles it: what
 * moving code out of init does to a person who waits for a cold decision.
 */
type Handler = typeof import('../../functions/handlers/sqs.ts').handler;

export const handler = async (...args: Parameters<Handler>) =>
  (await import('../../functions/handlers/sqs.ts')).handler(...args);
