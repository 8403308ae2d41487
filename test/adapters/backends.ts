import type { ExecutionClaims, ExecutionClaimsScope } from '../../functions/adapters/claimed-executions.ts';
import type { HandbackOption, HandbackStore } from '../../functions/adapters/shared.ts';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { createHandbackClient } from '../../functions/client/index.ts';
import { startLocalStore } from '../../functions/local/public.ts';
import { startLocalService } from '../../functions/local/service.ts';
import type { Decision } from '../../functions/wire.ts';
import { freePort } from '../black-box/service.ts';

/**
 * The two ways an adapter reaches Handback (§15), behind one shape for the adapter tests: the library's DynamoDB store
 * on `handback/local`'s embedded server, and the HTTP API of the local service (what `npm start` runs) through
 * `handback/client`. People decide, cancel and the sweep expires through the same backend.
 */
export interface Backend {
  name: string;
  tenant: string;
  store: HandbackStore;
  /** What an adapter is given: the store with its tenant, or the client. */
  handback: HandbackOption;
  /** Where an execution log claims approved calls (§19): the store with its tenant, or the client. */
  claims: ExecutionClaims | ExecutionClaimsScope;
  /** Records decisions; the continuation id when they closed the pause. */
  decide(runId: string, interruptId: string, decisions: Decision[]): Promise<string | undefined>;
  cancel(runId: string, interruptId: string, reason: string): Promise<string>;
  /** Waits until the sweep has closed an `onExpiry: "reject"` pause whose expiry is due; its continuation id. */
  expire(runId: string, interruptId: string): Promise<string>;
  close(): Promise<void>;
}

/** The library's store on the embedded DynamoDB-compatible server; the sweep runs with a clock past the expiry. */
export async function localStoreBackend(): Promise<Backend> {
  const local = await startLocalStore();
  const tenant = 'acme';
  const storeAt = (clock?: () => Date) =>
    createDynamoDBCheckpointStore({ client: local.client, tableName: local.tableName, ...(clock && { clock }) });
  const store = storeAt();
  return {
    name: 'the local store',
    tenant,
    store,
    handback: { store, tenant },
    claims: { store, tenant },
    async decide(runId, interruptId, decisions) {
      const result = await store.decide({ tenant, runId, interruptId, decisions });
      return result.kind === 'closed' ? result.continuationId : undefined;
    },
    async cancel(runId, interruptId, reason) {
      return (await store.cancel({ tenant, runId, interruptId, reason })).continuationId;
    },
    async expire(runId, interruptId) {
      const { expiresAt } = await store.getPause({ tenant, runId, interruptId });
      const later = new Date(Date.parse(expiresAt) + 60_000);
      const { closed } = await storeAt(() => later).closeDue();
      const mine = closed.find((c) => c.interruptId === interruptId);
      if (mine === undefined) throw new Error(`The sweep did not close ${interruptId}.`);
      return mine.continuationId;
    },
    close: () => local.close(),
  };
}

/**
 * The local service's HTTP API (what `npm start` runs), started in this process on a free port, reached through
 * `handback/client` as an agent elsewhere reaches it; its own sweep runs every 200 ms. The service runs with auth
 * off, so its one tenant is `default` and the client sends no token.
 */
export async function httpBackend(): Promise<Backend> {
  const port = await freePort();
  const service = await startLocalService({
    PORT: String(port),
    LOG_LEVEL: 'ERROR',
    HANDBACK_SWEEP_INTERVAL_MS: '200',
  });
  const client = createHandbackClient({ baseUrl: service.url });
  return {
    name: 'handback/client against the local service',
    tenant: 'default',
    store: client,
    handback: client,
    claims: client,
    async decide(runId, interruptId, decisions) {
      const result = await client.decide({ runId, interruptId, decisions });
      return result.kind === 'closed' ? result.continuationId : undefined;
    },
    async cancel(runId, interruptId, reason) {
      return (await client.cancel({ runId, interruptId, reason })).continuationId;
    },
    async expire(runId, interruptId) {
      for (let tries = 0; tries < 100; tries++) {
        const view = await client.getPause({ runId, interruptId });
        if (view.continuationId !== undefined) return view.continuationId;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`The service's sweep did not close ${interruptId}.`);
    },
    close: () => service.close(),
  };
}
