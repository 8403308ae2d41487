/** The part of s3rver 3 (an S3-compatible server on the local file system; it ships no types) that Handback uses. */
declare module 's3rver' {
  import type { Server } from 'node:http';
  import type { AddressInfo } from 'node:net';

  /** s3rver's options. */
  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    /** Where buckets and objects are kept, one file each. */
    directory: string;
    resetOnClose?: boolean;
    configureBuckets?: ReadonlyArray<{ name: string; configs?: ReadonlyArray<string | Buffer> }>;
  }

  /** A Koa application serving S3's REST API; `run` listens, `close` stops. */
  class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
    /** The listening server, once `run` resolved. */
    httpServer?: Server;
  }
  export default S3rver;
}
