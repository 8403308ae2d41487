import type { HandbackStore } from '../../functions/adapters/shared.ts';
import { createDynamoDBCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { startLocalStore } from '../../functions/local/public.ts';
import { startLocalService } from '../../functions/local/service.ts';
import type { Decision } from '../../functions/wire.ts';
import { freePort } from '../black-box/service.ts';

/**
 * The two ways an adapter reaches Handback (§15), behind one shape for the adapter tests: the library's DynamoDB store
 * on `handback/local`'s embedded server, and the HTTP API of the local service (what `npm start` runs) through a
 * small fetch-based client of the adapters' `HandbackStore`, as `handback/client` is. People decide, cancel and the
 * sweep expires through the same backend.
 */
export interface Backend {
  name: string;
  tenant: string;
  store: HandbackStore;
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

/** The local service's HTTP API, started in this process on a free port; its own sweep runs every 200 ms. */
export async function httpBackend(): Promise<Backend> {
  const port = await freePort();
  const service = await startLocalService({
    PORT: String(port),
    LOG_LEVEL: 'ERROR',
    HANDBACK_SWEEP_INTERVAL_MS: '200',
  });
  const client = httpStore(service.url);
  return {
    name: 'HTTP against the local service',
    tenant: 'default',
    store: client,
    async decide(runId, interruptId, decisions) {
      const body = await call(service.url, 'POST', `/runs/${runId}/resume`, { interruptId, decisions });
      return (body as { continuationId?: string }).continuationId;
    },
    async cancel(runId, interruptId, reason) {
      const body = await call(service.url, 'POST', `/runs/${runId}/pauses/${interruptId}/cancel`, { reason });
      return (body as { continuationId: string }).continuationId;
    },
    async expire(runId, interruptId) {
      for (let tries = 0; tries < 100; tries++) {
        const view = await client.getPause({ tenant: 'default', runId, interruptId });
        if (view.continuationId !== undefined) return view.continuationId;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`The service's sweep did not close ${interruptId}.`);
    },
    close: () => service.close(),
  };
}

/** A fetch-based `HandbackStore` on the HTTP API (the tenant is the token's, here the service's one tenant). */
export function httpStore(baseUrl: string): HandbackStore {
  return {
    async pause({ tenant: _, runId, idempotencyKey, by: __, ...body }) {
      const headers = idempotencyKey === undefined ? undefined : { 'idempotency-key': idempotencyKey };
      return call(baseUrl, 'POST', `/runs/${runId}/pauses`, body, headers) as never;
    },
    async getPause({ runId, interruptId }, options) {
      const query = options?.includeMessages ? '?include=messages' : '';
      return call(baseUrl, 'GET', `/runs/${runId}/pauses/${interruptId}${query}`) as never;
    },
    async getContinuation({ runId, continuationId }) {
      return call(baseUrl, 'GET', `/runs/${runId}/continuations/${continuationId}`) as never;
    },
  };
}

/** One JSON request; a problem is thrown as an error carrying its `code`. */
async function call(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed = (await response.json()) as { code?: string; detail?: string };
  if (!response.ok) {
    const message = `${method} ${path}: ${response.status} ${parsed.code}: ${parsed.detail}`;
    throw Object.assign(new Error(message), { code: parsed.code });
  }
  return parsed;
}
