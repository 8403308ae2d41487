import type { Environment } from './config.ts';
import { StartError, startLocalService } from './service.ts';

/**
 * The local service as a process runs it (`npm start`, `handback start`): started with the settings of `env`
 * (the process's environment when not given), its URL printed once it listens, stopped cleanly on SIGTERM and SIGINT (the
 * listener, then the embedded store); a start that cannot succeed prints its one line and exits 1.
 */
export async function serveLocal(env?: Environment): Promise<void> {
  const starting = startLocalService(env);
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
  if (stopping) return;
  if (service.s3Endpoint !== undefined) console.log(`S3 on ${service.s3Endpoint}`);
  console.log(`Handback listening on ${service.url}`);
}
