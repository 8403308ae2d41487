import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { storageError } from '../sdk-errors.ts';
import type { TranscriptObjects } from '../transcript-objects.ts';

/**
 * Transcript objects in an S3 bucket (or an S3-compatible server: `endpoint` in the client's settings), through
 * `@aws-sdk/client-s3` exactly as on AWS. The SDK is loaded, and the client made, on the first transcript that needs
 * them: a function whose requests never meet a large transcript never loads it (its cold start is the table's alone).
 *
 * Each put carries the bytes' SHA-256 (`x-amz-checksum-sha256`), so S3 refuses bytes that changed on the way, and
 * each get asks for the stored checksum back (`ChecksumMode: ENABLED`), which the SDK checks where the server returns
 * one; neither is relied on: the pause item holds the length and SHA-256 the reader checks itself, and s3rver, the
 * local stand-in, checks neither (test/checkpoints/s3-objects.store.test.ts pins what it does).
 */

/**
 * Settings of an S3 client (`S3ClientConfig` of `@aws-sdk/client-s3`), typed loosely on purpose: the declarations of
 * `handback/dynamodb` name no S3 SDK type, so a consumer that keeps every transcript in the table (and checks its
 * libraries' types) needs no `@aws-sdk/client-s3`.
 */
export type S3Settings = object;

/** How S3 transcript objects are reached. */
export interface S3TranscriptObjectsOptions {
  /** The bucket (the stack's `TranscriptBucket`). */
  bucket: string;
  /** A client to send with (an `S3Client` of `@aws-sdk/client-s3`); else one is made on first use from `clientConfig`. */
  client?: object;
  /** Settings of the client made on first use (`s3ClientConfig`'s by default). */
  clientConfig?: S3Settings;
  /** Called with the `S3Client` made on first use, answering the client to use (the Lambda functions trace it). */
  capture?: (client: never) => unknown;
}

type S3Sdk = typeof import('./s3-commands.ts');

let loading: Promise<S3Sdk> | undefined;

/** The S3 SDK, loaded once per process; its absence is an error naming what to install. */
async function s3Sdk(): Promise<S3Sdk> {
  loading ??= import('./s3-commands.ts');
  try {
    return await loading;
  } catch (error) {
    loading = undefined;
    throw new Error('Transcripts in S3 need the AWS SDK for S3: npm install @aws-sdk/client-s3', { cause: error });
  }
}

/**
 * The client settings transcripts are read and written with: a connection timeout and a request timeout long enough
 * for a 16 MB object, and bounded retries, so a bucket that does not answer becomes a `StorageUnavailableError` well
 * inside a handler's time.
 */
export function s3ClientConfig(overrides: S3Settings = {}): S3Settings {
  return {
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 10_000, throwOnRequestTimeout: true },
    ...overrides,
  };
}

/**
 * The client settings for an S3-compatible server at `endpoint` (s3rver, MinIO): path-style addressing, a region, and
 * s3rver's own credentials unless the environment names others (s3rver checks signatures with its fixed keys).
 */
export function s3EndpointConfig(endpoint: string, env: Readonly<Record<string, string | undefined>>): S3Settings {
  const config: S3ClientConfig = {
    endpoint,
    forcePathStyle: true,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
  };
  if (!env.AWS_ACCESS_KEY_ID && !env.AWS_PROFILE) {
    config.credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  }
  return config;
}

/** Transcript objects in one bucket. */
export class S3TranscriptObjects implements TranscriptObjects {
  readonly #bucket: string;
  readonly #client: () => Promise<S3Client>;

  constructor(options: S3TranscriptObjectsOptions) {
    this.#bucket = options.bucket;
    const given = options.client as S3Client | undefined;
    const capture = options.capture as ((client: S3Client) => S3Client) | undefined;
    let made: Promise<S3Client> | undefined;
    this.#client = () => {
      if (given !== undefined) return Promise.resolve(given);
      made ??= s3Sdk().then((sdk) => {
        const client = new sdk.S3Client((options.clientConfig ?? s3ClientConfig()) as S3ClientConfig);
        return capture === undefined ? client : capture(client);
      });
      return made;
    };
  }

  async put(key: string, bytes: Uint8Array, sha256: string): Promise<void> {
    const [{ PutObjectCommand }, client] = await Promise.all([s3Sdk(), this.#client()]);
    await this.#call(key, () =>
      client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: key,
          Body: bytes,
          ContentLength: bytes.length,
          ContentType: 'application/octet-stream',
          ChecksumSHA256: Buffer.from(sha256, 'base64url').toString('base64'),
        }),
      ),
    );
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const [{ GetObjectCommand }, client] = await Promise.all([s3Sdk(), this.#client()]);
    try {
      const output = await client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: key, ChecksumMode: 'ENABLED' }),
      );
      return output.Body === undefined ? new Uint8Array() : await output.Body.transformToByteArray();
    } catch (error) {
      if ((error as { name?: unknown } | null)?.name === 'NoSuchKey') return undefined;
      throw storageError(error, unavailable(key));
    }
  }

  async delete(key: string): Promise<void> {
    const [{ DeleteObjectCommand }, client] = await Promise.all([s3Sdk(), this.#client()]);
    await this.#call(key, () => client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key })));
  }

  async #call<T>(key: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw storageError(error, unavailable(key));
    }
  }
}

function unavailable(key: string): string {
  return `The transcript bucket did not answer in time for ${key}. What was asked may or may not have happened; retry the same request, which is safe.`;
}
