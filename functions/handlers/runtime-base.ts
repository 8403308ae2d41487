import { CheckpointService } from '../checkpoints/checkpoint-service.ts';
import type { CheckpointChecks } from '../checkpoints/checks.ts';
import { DynamoDBPersistence } from '../checkpoints/dynamodb/dynamodb-persistence.ts';
import { escalationsOf } from '../checkpoints/escalation.ts';
import { deploymentDirectory } from '../directory/deployment.ts';
import { createDynamoDBHandoffClaims } from '../handoff/claims.ts';
import { createHandoff, createHandoffClients, type TargetModule } from '../handoff/handoff.ts';
import { once } from '../once.ts';
import type { PolicySettings } from '../policies/config.ts';
import type { PolicyEngine } from '../policies/engine.ts';
import type { UseCaseDeps } from '../resume/resume.ts';
import { type BundleDefines, directory as DIRECTORY, policies as POLICIES } from '../settings.ts';
import { tracesOf } from '../traces/traces.ts';
import { loadConfig } from './config.ts';
import { tracedDocumentClient } from './document-client.ts';
import { logger, metrics } from './observability.ts';
import type { EntryTelemetry } from './telemetry.ts';
import { traceAwsClient } from './tracing.ts';
import { tracedTranscriptObjects } from './transcript-bucket.ts';

/**
 * The Lambda wiring of the entry points that read and write pauses, evaluated once per container at cold start:
 * configuration read through one helper that fails fast, the AWS clients (traced: X-Ray shows every DynamoDB, SQS,
 * EventBridge, Lambda and Step Functions call), the hand-off, the logger and the metrics — all but the choice of when
 * the hand-off target's client is read, which `runtime.ts` makes for most entry points (at init) and the Slack
 * interactions function makes itself (on the first hand-off). A module of its own because that choice is a static
 * import or its absence: a module that imported `target.ts` statically, used or not, would put it in every init.
 */

export { logger, metrics };

/** The configuration, read once. */
export const config = loadConfig();

// A function bundled without policies (`HANDBACK_BUNDLED_POLICIES`, an esbuild `define` of the stack's) carries no
// engine: policies named in its environment anyway would be silently ignored, so its cold start refuses them.
if ((globalThis as BundleDefines).HANDBACK_BUNDLED_POLICIES === 'false' && config.policies !== undefined) {
  throw new Error(
    `${POLICIES.env} is set, but this function was bundled without policies: set context ${POLICIES.context} (the stack bundles the files and sets the variables), and synthesize and deploy again.`,
  );
}

/** §20 delegation: why a person cannot set their own delegation with a bundled directory file. */
const READ_ONLY_FILE = `this deployment's directory is the file ${DIRECTORY.context} bundled with its functions, which each instance reads on its own: a delegation is its entry's "delegation" (deploy again to change it), or is kept by a directory in the table (SCIM)`;

/** The document client every entry point of this wiring shares (the Slack interactions function's delivery log too). */
export const dynamodb = tracedDocumentClient(config.dynamodbEndpoint);

/**
 * The directory (§20): with SCIM, the table-kept one (§20 SCIM: read on every request, nothing cached, its code
 * loaded by its first call); else the file
 * bundled with this function, read and checked by its first call (synthesis checked it) — a file's people change only
 * with a deploy, so keeping them for the container outlives no change.
 */
const deployment = deploymentDirectory(dynamodb, config.tableName, {
  scim: config.scim !== undefined,
  file: config.directory,
});
/** The table-kept directory SCIM provisions, when SCIM is on: the `/scim/v2` route's keep. */
export const scimDirectory = deployment.table;
const { directory } = deployment;

/** The spans of this container's requests (§21), when an OTLP endpoint is configured; flushed as each invocation ends. */
const traces = tracesOf(config.otlpEndpoint, { log: logger, escalationsOf });
/** The transcript bucket (§23), its SDK loaded on the first transcript that needs it. */
const objects = tracedTranscriptObjects(config.transcriptBucket, config.s3Endpoint);

/** What the entry points of the Lambda wiring run on: the use cases' dependencies and how tokens are read. */
export type LambdaUseCaseDeps = UseCaseDeps &
  EntryTelemetry & { tenantClaim: string; groupsClaim: string; verifiedEmailIssuer?: string };

/**
 * The use cases' dependencies: the store on the configured table, with the `checks` this entry point runs (each
 * loaded on first use), and the configured hand-off, whose target's client comes from `targetModule` (`target.ts`
 * itself: made now; a loader of it: made on the first hand-off). Each client is traced (`traceAwsClient`) as it is
 * made; the task token's and the durable callback's are made on first use. An entry point calls it once, at cold
 * start: each call makes its own clients.
 */
export function useCaseDepsWith(
  checks: CheckpointChecks,
  targetModule: TargetModule | (() => Promise<TargetModule>),
): LambdaUseCaseDeps {
  const clients = createHandoffClients(config.handoff.target, {
    capture: traceAwsClient,
    targetModule,
  });
  const policies = config.policies === undefined ? undefined : policiesOnFirstUse(config.policies);
  return {
    // The service itself, not `createDynamoDBCheckpointStore`, whose default (every check) would bundle them all.
    store: new CheckpointService({
      persistence: new DynamoDBPersistence({
        client: dynamodb,
        tableName: config.tableName,
        objects,
        ...(config.retentionSeconds === undefined ? {} : { retentionSeconds: config.retentionSeconds }),
      }),
      checks,
      recipientDomains: config.recipientDomains,
      ...(directory === undefined ? {} : { directory }),
      ...(policies === undefined ? {} : { policies }),
      ...(config.escalation === undefined ? {} : { escalation: config.escalation }),
    }),
    ...(policies === undefined ? {} : { policies }),
    // §20 delegation: each instance reads the bundled file on its own, so none can keep a person's own delegation.
    ...(directory === undefined
      ? {}
      : {
          people:
            scimDirectory === undefined
              ? { directory, whyReadOnly: READ_ONLY_FILE }
              : { directory, writer: scimDirectory },
        }),
    handoff: createHandoff(config.handoff, clients, logger),
    claims: createDynamoDBHandoffClaims({ client: dynamodb, tableName: config.tableName }),
    logger,
    metrics,
    tenantClaim: config.tenantClaim,
    groupsClaim: config.groupsClaim,
    ...(config.verifiedEmailIssuer === undefined ? {} : { verifiedEmailIssuer: config.verifiedEmailIssuer }),
    ...(config.inboxUrl === undefined ? {} : { inboxUrl: config.inboxUrl }),
    ...(traces === undefined ? {} : { traces }),
  };
}

/**
 * The deployment's Cedar policies (§17), loaded on the first pause with an `approval` ask and kept for the container:
 * Cedar, its WebAssembly and the files bundled beside the function (`infra/handback-function.ts`) are a chunk read
 * then, never at init. A file that cannot load (synthesis checked it) fails that pause, and the next one tries again.
 */
function policiesOnFirstUse(settings: PolicySettings): () => Promise<PolicyEngine> {
  return once(async () => {
    // Bundled without policies (the cold start refused them above), the `import()` is dead code, and no chunk of it.
    if ((globalThis as BundleDefines).HANDBACK_BUNDLED_POLICIES !== 'false') {
      return (await import('../policies/engine-files.ts')).loadLoggedPolicyEngine(settings, logger, config.policyFiles);
    }
    throw new Error('This function was bundled without policies.');
  });
}
