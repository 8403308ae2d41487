/**
 * Handback's vocabulary: every limit and every list of words the product uses, once, `as const`, with the
 * types derived from them. A leaf module — it imports nothing, and uses no Node or DOM type — so that the store, the
 * handlers, the stack, the OpenAPI document and the inbox page all read the same words from here.
 */

/** Seconds after `expiresAt` within which the sweep closes an expired pause (§10). */
const SWEEP_BOUND_SECONDS = 120;

/** The limits the store enforces; the HTTP edge, the triggers, the OpenAPI document and the page read them here. */
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
  /** Characters of a runId. */
  runIdChars: 128,
  /** Characters of a Step Functions task token (the API allows up to 1,024). */
  taskTokenChars: 1024,
  /** A durable function's callback id (`handback/durable`): the Lambda API takes up to 1,024 characters. */
  callbackIdChars: 1024,
  /** An `Idempotency-Key`: 1–255 visible ASCII characters. */
  idempotencyKey: /^[\x21-\x7e]{1,255}$/,
  /** Bytes of JSON a page of pauses holds at most: 100 pauses of 96 KB would pass a Lambda response's 6 MB. */
  pageBytes: 4 * 1024 * 1024,
  /** Default and largest `limit` of a page of pauses. */
  pageSize: { min: 1, max: 100, default: 20 },
  /** Bytes of a pause request's body (§5); a Lambda takes at most 6 MB. */
  pauseBodyBytes: 6 * 1024 * 1024,
  /** Bytes of a decision or cancel body read before parsing; the answers in it are then held to their own limits. */
  decisionBodyBytes: 1024 * 1024,
  /** Levels a request body may nest. */
  bodyDepth: 256,
  /** Entries of each approvers list, and characters of each entry (and of a principal's subject, email and name). */
  approvers: { entries: 50, chars: 256 },
  /** Groups a principal brings (a token's groups claim, a trigger's `by.groups`), each of `approvers.chars` at most. */
  principalGroups: 200,
  /** Characters of an email address Handback sends to (RFC 5321's path). */
  emailChars: 254,
  /** Characters of the `argsHash` a decision carries back (§16). */
  argsHashChars: 128,
  // §21 traces
  /** The longest `traceparent` read (version `00` is 55 characters; a later version's may be longer). */
  traceparentChars: 512,
  /** Distinct approvals an `approval` ask may require. */
  approvals: { min: 1, max: 5, default: 1 },
  /** Entries of a pause's `notify`. */
  notifyEntries: 10,
  /** Characters of a link recipient's `name` (§13; its `email` is an address of `emailChars`). */
  recipientChars: 256,
  /** Characters of a server-made id (an interruptId, a continuationId) a request may carry. */
  idChars: 256,
  /**
   * Seconds after `expiresAt` within which the sweep closes an expired pause (§10): a tick a minute, each sweep done
   * within the next.
   */
  sweepBoundSeconds: SWEEP_BOUND_SECONDS,
  /** Due pauses one sweep reads at a time; the sweep function takes batches until fewer than this are due. */
  sweepBatch: 100,
  /**
   * Due pauses the sweep acts on at once (§23), each one conditional write of its own pause, and the hand-offs of the
   * ones it closed: bounded, so one tick's burst stays within the function's connections and the table's write rate.
   */
  sweepParallel: 16,
  /**
   * Seconds a waiter (a durable function's callback, the reference workflow's task) waits past `expiresAt`: the
   * sweep's bound and three minutes for its hand-off, so that the sweep's closing, not the waiter's own timeout, ends
   * the wait.
   */
  expiryGraceSeconds: SWEEP_BOUND_SECONDS + 180,
  /** The tenant of a request that names none: the local service without auth, a trigger without `tenant`. */
  defaultTenant: 'default',
  /** Characters of a policy's `@id` (§17): it is recorded as the subject `policy:<id>`. */
  policyIdChars: 128,
  /**
   * Seconds an MCP tool call waits for people before it answers that the pause still waits (§18): by default under
   * MCP clients' common five-minute limit; over Streamable HTTP at most `http`, under API Gateway's 30 s.
   */
  mcpWaitSeconds: { default: 240, http: 25 },
  /** A hand-off claimant's name (§18: the one consumer a closed pause is handed to): 1–128 visible ASCII characters. */
  claimant: /^[\x21-\x7e]{1,128}$/,
  // §20: persons known to a directory.
  /**
   * A directory (§20): its people (a file's, or a tenant's kept in the table), a person's id (1–128 visible ASCII
   * characters), name, and the emails, issuer subjects and Slack users each may hold (their groups are a principal's,
   * `principalGroups`); a delegation's reason, in characters.
   */
  directory: { people: 20_000, idChars: 128, nameChars: 256, emails: 20, subjects: 20, slack: 20, reasonChars: 512 },
  // §19
  /**
   * Bytes of what an execution's end says (`detail`, UTF-8), and of a refused claim's reason as recorded: a short word
   * for the audit trail, not the tool's output — sixteen executions stay a few KB of the pause item.
   */
  executionDetailBytes: 512,
  /** Characters of a tool call id an execution names in a request (§19). */
  toolCallIdChars: 256,
  // §19: what the policies judge is bounded, so that judging one pause never holds the process.
  /** Bytes of an ask's declared arguments as Cedar sees them (canonical JSON, UTF-8); past it the evaluation errs. */
  policyArgsBytes: 64 * 1024,
  /** Elements of any one set or record of an ask's declared arguments; past it the evaluation errs. */
  policyArgsElements: 1000,
  /** A policy set's version as a deployment names it (`HANDBACK_POLICY_VERSION`): 1–64 visible ASCII characters. */
  policyVersion: /^[\x21-\x7e]{1,64}$/,
  // §21: how decisions are going.
  /** Days a `GET /stats` window spans at most. */
  statsWindowDays: 31,
  /** Pauses one `GET /stats` reads at most: a window holding more is refused (400), never answered from a sample. */
  statsPauses: 10_000,
  /** Open pauses the sweep's count of waiting asks (`PendingAsks`, `OldestPendingSeconds`) reads at most. */
  pendingCensusPauses: 10_000,
  /** Characters of a tool's name as a metric's `tool` dimension: CloudWatch takes at most 1,024. */
  metricToolChars: 256,
} as const;

/** A runId: 1–128 of `[A-Za-z0-9._:-]`. */
// `.` and `..` match the contract's character class but cannot travel in a URL path (they are dot segments, which
// clients and API Gateway normalise away), so no run may be named by them.
export const RUN_ID_PATTERN = /^(?!\.\.?$)[A-Za-z0-9._:-]{1,128}$/;
/** A Claude Code session's run (§22): `claude-<session id>`, the id a UUID — all of it that reaches a `claude` command line. */
export const CLAUDE_RUN_PATTERN = /^claude-(?<session>[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12})$/i;

// §21 traces
/**
 * A W3C `traceparent` (Trace Context, version `00`): trace id and parent span id in lowercase hex, neither all
 * zeros, then the flags. A later version (not `ff`) is read by the same four fields, as the recommendation says.
 */
export const TRACEPARENT_PATTERN =
  /^(?!ff)([0-9a-f]{2})-(?!0{32})([0-9a-f]{32})-(?!0{16})([0-9a-f]{16})-([0-9a-f]{2})(-[!-~]*)?$/;

/** The statuses a pause may show, in the order the API lists them. */
export const PAUSE_STATUSES = ['paused', 'resumed', 'expired', 'cancelled'] as const;
/** A pause's status. */
export type PauseStatus = (typeof PAUSE_STATUSES)[number];
/** The statuses by name, for code that tests one. `expired` is stored once the sweep closes a pause. */
export const Status = {
  Paused: 'paused',
  Resumed: 'resumed',
  Expired: 'expired',
  Cancelled: 'cancelled',
} as const satisfies Record<string, PauseStatus>;

/** How a continuation came about (§10). */
export const OUTCOMES = ['resumed', 'expired', 'cancelled'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The ask kinds (§9): an `answer` is the call's result; an `approval` lets a real tool run. */
export const ASK_KINDS = ['answer', 'approval'] as const;
export type AskKind = (typeof ASK_KINDS)[number];

/**
 * What a person may do with an `approval` ask (§9); an `answer` ask takes an answer. A kind added here fails to
 * compile wherever one must be handled (docs/architecture.md, "A decision kind").
 */
export const DECISION_KINDS = ['approve', 'edit', 'reject'] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];

/** What a pause does when it expires undecided (§10). */
export const ON_EXPIRY = ['fail', 'reject'] as const;
export type OnExpiry = (typeof ON_EXPIRY)[number];

/** The message formats (§2), in the contract's order; `rehydrate/formats/index.ts` holds one module for each. */
export const FORMAT_NAMES = [
  'langchain',
  'openai-chat',
  'openai-responses',
  'anthropic',
  'bedrock-converse',
  'gemini',
  'ai-sdk',
] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];

/** Where a closed pause's continuation pointer goes (§6). */
export const HANDOFF_TARGETS = ['sqs', 'eventbridge', 'lambda', 'none'] as const;
export type HandoffTarget = (typeof HANDOFF_TARGETS)[number];

/** Who a principal is. */
export const PRINCIPAL_KINDS = ['person', 'agent', 'link', 'service'] as const;
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];

/**
 * The doors: the way a principal reached Handback (its `via`), also the name of each entry point in logs. A door added
 * here fails to compile wherever one must be handled (docs/architecture.md, "A door").
 */
export const VIAS = [
  'api',
  'link',
  'slack',
  'step-functions',
  'sqs',
  'eventbridge',
  'sweep',
  'library',
  'policy',
] as const;
export type Via = (typeof VIAS)[number];

/**
 * The triggers: the doors that take a resume request as data (§6) — a Step Functions task's input, an SQS message, an
 * EventBridge event's detail — each through its own Lambda function (docs/architecture.md, "A trigger").
 */
export const TRIGGER_VIAS = ['step-functions', 'sqs', 'eventbridge'] as const satisfies readonly Via[];
export type TriggerVia = (typeof TRIGGER_VIAS)[number];

/** The OAuth scopes that open routes. */
export const SCOPES = { agent: 'handback/agent', decide: 'handback/decide' } as const;
export type Scope = (typeof SCOPES)[keyof typeof SCOPES];

/**
 * The built-in channels that take a pause to people where they work. A channel added here fails to compile wherever
 * one must be handled (docs/architecture.md, "A channel").
 */
export const CHANNEL_NAMES = ['slack', 'email'] as const;
export type ChannelName = (typeof CHANNEL_NAMES)[number];

/**
 * The framework adapters, each a subpath of the package (`handback/<name>`, `functions/adapters/<name>.ts`) with its
 * framework an optional peer. An adapter added here fails to compile wherever one must be handled
 * (docs/architecture.md, "An adapter").
 */
export const ADAPTER_NAMES = ['ai-sdk', 'openai-agents', 'langgraph', 'strands', 'durable'] as const;
export type AdapterName = (typeof ADAPTER_NAMES)[number];

/** The lifecycle events' detail-types (§11), on the bus with source `LIFECYCLE_SOURCE`. */
export const LIFECYCLE_TYPES = [
  'Pause Created',
  'Pause Decided',
  'Pause Resumed',
  'Pause Expired',
  'Pause Cancelled',
  'Pause Reminder',
  // §19
  'Execution Claimed',
  'Execution Finished',
  // §21 escalation
  'Pause Escalated',
] as const;
export type LifecycleType = (typeof LIFECYCLE_TYPES)[number];
/** The lifecycle events by name. */
export const LifecycleType = {
  Created: 'Pause Created',
  Decided: 'Pause Decided',
  Resumed: 'Pause Resumed',
  Expired: 'Pause Expired',
  Cancelled: 'Pause Cancelled',
  Reminder: 'Pause Reminder',
  // §19
  ExecutionClaimed: 'Execution Claimed',
  ExecutionFinished: 'Execution Finished',
  Escalated: 'Pause Escalated',
} as const satisfies Record<string, LifecycleType>;

/** The `source` of lifecycle events and hand-off events on EventBridge. */
export const LIFECYCLE_SOURCE = 'handback';

/** The tools of Handback's MCP server (§18). */
export const MCP_TOOLS = ['request_permission', 'ask_person'] as const;
export type McpTool = (typeof MCP_TOOLS)[number];

/** The header that carries an answer link's token to the `/links/*` routes (§11). */
export const LINK_HEADER = 'x-handback-link';

/** The inbox page's query naming one pause: `<inbox>?run=<runId>&pause=<interruptId>` opens that pause. */
export const INBOX_PAUSE_QUERY = { runId: 'run', interruptId: 'pause' } as const;
/** What the deployment's policies make of an `approval` ask at pause time (§17). */
export const POLICY_OUTCOMES = ['approve', 'reject', 'ask'] as const;
export type PolicyOutcome = (typeof POLICY_OUTCOMES)[number];

/** Whether policies decide (`enforce`) or are only watched (`shadow`: recorded, people asked as if none existed). */
export const POLICY_MODES = ['enforce', 'shadow'] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];

/** What an `approval` ask no policy applies to gets (`HANDBACK_POLICY_DEFAULT`): it waits, or it is rejected. */
export const POLICY_DEFAULTS = ['ask', 'reject'] as const;
export type PolicyDefault = (typeof POLICY_DEFAULTS)[number];

/**
 * Why the policies' outcome is what it is, when no policy of the file determined it: the default applied, or an
 * evaluation failed (fail closed). Each is also the id in the subject `policy:<id>`, so no policy may take them.
 */
export const POLICY_BASES = ['default', 'error'] as const;
export type PolicyBasis = (typeof POLICY_BASES)[number];

// §19
/** What people did with an ask the policies judged in shadow mode (`GET /policies/shadow`). */
export const SHADOW_PEOPLE = ['approved', 'edited', 'rejected', 'waiting', 'expired', 'cancelled'] as const;
export type ShadowPeople = (typeof SHADOW_PEOPLE)[number];

/** The Cedar names Handback's requests use (`handback.cedarschema`). */
export const CEDAR_NAMES = {
  namespace: 'Handback',
  agent: 'Handback::Agent',
  person: 'Handback::Person',
  group: 'Handback::Group',
  tool: 'Handback::Tool',
  action: 'Handback::Action',
  call: 'call',
  callWithoutApproval: 'callWithoutApproval',
  args: 'Args',
} as const;

/** The policy annotations Handback reads (§17); others are the policy author's own. */
export const POLICY_ANNOTATIONS = {
  id: 'id',
  reason: 'reason',
  approvers: 'approvers',
  approvals: 'approvals',
  fourEyes: 'fourEyes',
  // §19
  validFor: 'validFor',
  // §21 escalation
  escalate: 'escalate',
} as const;

// §19
/**
 * Where a dispatched call's execution stands (§19): approved and waiting for the agent to claim it, claimed (running),
 * ended as the claimant said, or refused at run time (the policies in force, or its approval's validity).
 */
export const EXECUTION_STATUSES = ['waiting', 'claimed', 'succeeded', 'failed', 'refused'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
/** How the claimant says a claimed execution ended (§19, `PUT …/executions/{toolCallId}`). */
export const EXECUTION_ENDS = ['succeeded', 'failed'] as const;
export type ExecutionEnd = (typeof EXECUTION_ENDS)[number];

/**
 * The end of a `switch` over one of the lists above: where a case is missing, `value` is not `never` and the switch
 * fails to compile; a word that slips past the types at run time throws, naming it.
 */
export function unhandled(value: never, what: string): never {
  throw new Error(`No case for the ${what} ${JSON.stringify(value)}.`);
}

/** Whether `value` is one of `list`'s words: a type guard for any of the lists above. */
export function isOneOf<const T extends readonly string[]>(list: T, value: unknown): value is T[number] {
  return typeof value === 'string' && (list as readonly string[]).includes(value);
}

// §21: how decisions are going.

/**
 * What became of an ask (§21), as `GET /stats` counts it and the `TimeToDecision` and `Decisions` metrics name it: a
 * person's decision (`approve`, `edit`, `reject`; an `answer` ask's answer counts as `approve`), the pause's expiry or
 * cancel while it waited, or the deployment's policies at pause time.
 */
export const ASK_OUTCOMES = ['approve', 'edit', 'reject', 'expired', 'cancelled', 'policy'] as const;
export type AskOutcome = (typeof ASK_OUTCOMES)[number];
/** The outcomes a person decided: the ones a time to decision is people's time for. */
export const PEOPLE_OUTCOMES = ['approve', 'edit', 'reject'] as const satisfies readonly AskOutcome[];
