import { createMemoryCheckpointStore } from '../../functions/checkpoints/dynamodb-store.ts';
import { type ApiEvent, createApiHandler } from '../../functions/handlers/http-api.ts';
import { INBOX_ROUTES } from '../../functions/handlers/inbox-http.ts';
import { httpEvent, lambdaContext } from '../handlers/events.ts';
import { testTelemetry } from '../handlers/telemetry.ts';

/**
 * The API handler in-process, on the in-memory store, with a hand-off that delivers nowhere, and the inbox page's
 * routes as the local service adds them: for tests of what the API serves and refuses, where the storage is not what
 * is tested.
 */
export function inProcessApi() {
  const handler = createApiHandler(
    {
      store: createMemoryCheckpointStore(),
      handoff: { deliver: async () => {} },
      ...testTelemetry(),
    },
    { routes: INBOX_ROUTES },
  );
  const call = async (event: ApiEvent) => {
    const result = await handler(event, lambdaContext());
    return { status: result.statusCode ?? 0, headers: result.headers ?? {}, body: String(result.body ?? '') };
  };
  return {
    call,
    /** The handler's own result, unparsed (to read base64 bodies and their encoding). */
    raw: (event: ApiEvent) => handler(event, lambdaContext()),
    /** A JSON request as the default tenant; the body parsed. */
    async json(method: string, path: string, body?: unknown) {
      const response = await call(httpEvent(method, path, body === undefined ? {} : { body }));
      // biome-ignore lint/suspicious/noExplicitAny: responses are read as loose JSON in the tests
      return { status: response.status, body: JSON.parse(response.body) as Record<string, any> };
    },
  };
}
