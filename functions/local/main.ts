import { startLocalService } from './service.ts';

/**
 * `npm start`: the local service on 127.0.0.1:${PORT:-3000}. Prints its URL once ready; stops cleanly on SIGTERM
 * and SIGINT (the listener, then the embedded store, so a data dir is left closed and consistent).
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

const service = await starting;
if (!stopping) console.log(`Handback listening on ${service.url}`);
