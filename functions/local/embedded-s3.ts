import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { s3EndpointConfig } from '../checkpoints/s3/s3-objects.ts';

/**
 * The embedded S3-compatible server (s3rver) beside the embedded store: where `npm start` and the tests keep the
 * transcripts over 64 KB (§23), reached with `@aws-sdk/client-s3` as on AWS. It serves PutObject, GetObject,
 * HeadObject and DeleteObject; it checks neither a put's checksum nor `If-None-Match`, and returns no checksum, which
 * Handback does not rely on (the pause item holds each object's length and SHA-256, checked on every read).
 */

/** How to start the embedded S3 server. */
export interface EmbeddedS3Options {
  /** The bucket to create (kept when it exists, as on disk after a restart). */
  bucket: string;
  /** Keep the objects on disk in this directory; a temporary one, removed on close, when unset. */
  path?: string;
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
}

/** A running embedded S3 server. */
export interface EmbeddedS3 {
  /** `http://<host>:<port>`, for an `S3Client`'s `endpoint`. */
  endpoint: string;
  /** The bucket, created. */
  bucket: string;
  /** The settings of a client of this server (path-style, its credentials). */
  clientConfig: S3ClientConfig;
  /** Stops the server (and removes its temporary directory). */
  close(): Promise<void>;
}

/** Starts s3rver on a free port (or `port`) with the bucket; undefined when s3rver is not installed. */
export async function startEmbeddedS3(options: EmbeddedS3Options): Promise<EmbeddedS3 | undefined> {
  const S3rver = await loadS3rver();
  if (S3rver === undefined) return undefined;
  const temporary = options.path === undefined;
  const directory = options.path ?? mkdtempSync(join(tmpdir(), 'handback-s3-'));
  mkdirSync(directory, { recursive: true });
  const host = options.host ?? '127.0.0.1';
  const server = new S3rver({
    address: host,
    port: options.port ?? 0,
    silent: true,
    directory,
    configureBuckets: [{ name: options.bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://${host}:${port}`;
  return {
    endpoint,
    bucket: options.bucket,
    clientConfig: s3EndpointConfig(endpoint, {}),
    async close() {
      // Keep-alive sockets of SDK clients would hold the close open until they idle out.
      server.httpServer?.closeAllConnections();
      await server.close();
      if (temporary) rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * s3rver, loaded when a server starts: it is an optional peer of the published package (only `npm start` and the
 * tests run it), and without it the local service keeps every transcript in the table.
 */
async function loadS3rver(): Promise<typeof import('s3rver').default | undefined> {
  try {
    return (await import('s3rver')).default;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String(message).includes("'s3rver'")) throw error;
    return undefined;
  }
}
