import { StartError, startLocalService } from './service.ts';

/**
 * `npm start`: the local service on ${HOST:-127.0.0.1}:${PORT:-3000}. Prints its URL once ready; stops cleanly on
 * SIGTERM and SIGINT (the listener, then the embedded store, so a data dir is left closed and consistent). A start
 * that cannot succeed as configured (a port in use, a short JWT secret) prints one line saying what to change and
 * exits 1.
 */
const starting = startLocalService(process.env);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`Handback stopping (${signal})`);
  starting
    .then((service) => service.close())
    .then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
};
// Registered before the URL is printed: a supervisor may signal as soon as it reads that line.
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));

const service = await starting.catch((error: unknown) => {
  console.error(error instanceof StartError ? error.message : error);
  process.exit(1);
});
if (!stopping) console.log(`Handback listening on ${service.url}`);
