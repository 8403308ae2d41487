import { serveLocal } from './serve.ts';

/**
 * `npm start`: the local service on ${HOST:-127.0.0.1}:${PORT:-3000}, with the settings of this process's
 * environment (docs/local.md). Prints its URL once ready; stops cleanly on SIGTERM and SIGINT (the listener, then the
 * embedded store, so a data dir is left closed and consistent). A start that cannot succeed as configured (a port in
 * use, a short JWT secret) prints one line saying what to change and exits 1.
 */
await serveLocal();
