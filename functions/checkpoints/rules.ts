/**
 * The shared rules of what may be stored, in one place: the store checks them, the HTTP edge and the triggers read
 * them (never restate them), the OpenAPI document is tested against them.
 */

/** The limits the store enforces. */
export const LIMITS = {
  expiresInSeconds: { min: 1, max: 31_536_000, default: 604_800 },
  /** Bytes of `metadata` as JSON (UTF-8). */
  metadataBytes: 4 * 1024,
  /** Bytes of one answer as JSON (UTF-8); every answer and edit of one pause together stay under `decisionsBytes`. */
  answerBytes: 256 * 1024,
  /**
   * Bytes of all decisions of one pause together, as stored (a 256 KB answer and its bookkeeping fit): with the
   * pause's own fields, under DynamoDB's 400 KB item.
   */
  decisionsBytes: 264 * 1024,
  /** Bytes of a rejection's or a cancel's `reason` (UTF-8). */
  reasonBytes: 2 * 1024,
  /** Bytes of the transcript as JSON (UTF-8). */
  transcriptBytes: 16 * 1024 * 1024,
  /**
   * Bytes of what the pause record holds besides the transcript and decisions (asks with their prompts, schemas and
   * args, metadata, context, task token), so that it plus every decision stays under DynamoDB's 400 KB item limit.
   */
  pauseItemBytes: 96 * 1024,
  /** Bytes of the asks' args the record keeps; args past it are read from the transcript when a pause is shown. */
  askArgsBytes: 64 * 1024,
  /** Asks of one pause. */
  asks: { min: 1, max: 16 },
  /** Characters of a prompt. */
  promptChars: 4096,
  /** Characters of each piece of turn context kept for the person deciding. */
  contextChars: 2000,
  /** Characters of a tenant. */
  tenantChars: 256,
  /** Characters of a Step Functions task token (the API allows up to 1,024). */
  taskTokenChars: 1024,
  /** An `Idempotency-Key`: 1–255 visible ASCII characters. */
  idempotencyKey: /^[\x21-\x7e]{1,255}$/,
  /** Bytes of JSON a page of pauses holds at most: 100 pauses of 96 KB would pass a Lambda response's 6 MB. */
  pageBytes: 4 * 1024 * 1024,
  /** Default and largest `limit` of a page of pauses. */
  pageSize: { min: 1, max: 100, default: 20 },
} as const;

/** A runId: 1–128 of `[A-Za-z0-9._:-]`. */
// `.` and `..` match the contract's character class but cannot travel in a URL path (they are dot segments, which
// clients and API Gateway normalise away), so no run may be named by them.
export const RUN_ID_PATTERN = /^(?!\.\.?$)[A-Za-z0-9._:-]{1,128}$/;

/** The statuses a pause may show, in the order the API lists them. */
export const PAUSE_STATUSES = ['paused', 'resumed', 'expired', 'cancelled'] as const;

/** The ask kinds (§9). */
export const ASK_KINDS = ['answer', 'approval'] as const;

/** What a pause may do when it expires undecided (§10). */
export const ON_EXPIRY = ['fail', 'reject'] as const;
