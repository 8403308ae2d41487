import { actor, approvers, format, jsonObject, jsonSchema, notifyList, tenant, traceparent } from './fields.ts';
import { idempotencyKey, nonEmpty, runId } from './inputs.ts';
import { jsonBytes, jsonProblem } from './json.ts';
import { ASK_KINDS, CLAUDE_RUN_PATTERN, LIMITS, ON_EXPIRY } from './vocabulary.ts';
import * as z from './zod.ts';

/**
 * What a new pause is made of (§5, §9, §10, §13, §14): its asks, messages and fields, checked once, for the HTTP body
 * (`pauseBody`) and the store's input (`pauseInput`) alike; the rules between its fields with them. The ids, the
 * other inputs and `parseInput` are `inputs.ts`'s.
 */

/**
 * A new pause's run id (§22): a Claude Code run's id reaches a `claude --resume` command line, so `claude-…` must be
 * `claude-<session id>`, a UUID.
 */
const pausedRunId = z.defer(() =>
  runId.check(
    z.refine(
      (id) => !id.startsWith('claude-') || CLAUDE_RUN_PATTERN.test(id),
      'a run id beginning with claude- must be claude-<session id, a UUID>',
    ),
  ),
);

/** What an ask may say to the person deciding. */
const prompt = z.defer(() =>
  z.string().check(z.maxLength(LIMITS.promptChars), z.describe('What the person is asked.')),
);

/** One ask of a pause (§9, §13); what belongs to the other kind is refused, naming the field. */
export const askBody = z.defer(() =>
  z
    .object({
      toolCallId: nonEmpty.check(z.describe('A reserved call of the paused round.')),
      kind: z.optional(
        z
          .enum(ASK_KINDS)
          .check(
            z.meta({ default: ASK_KINDS[0], description: 'What the person does: answer the call, or approve it.' }),
          ),
      ),
      prompt: z.optional(prompt),
      answerSchema: z.optional(jsonSchema.check(z.describe("An answer ask's answer: JSON Schema 2020-12."))),
      argsSchema: z.optional(jsonSchema.check(z.describe("An approval ask's edited arguments: JSON Schema 2020-12."))),
      editable: z.optional(
        z
          .boolean()
          .check(z.meta({ default: true, description: 'An approval ask may be approved with edited arguments.' })),
      ),
      approvers: z.optional(approvers),
      approvals: z.optional(
        z.number().check(
          z.int(),
          z.minimum(LIMITS.approvals.min),
          z.maximum(LIMITS.approvals.max),
          z.meta({
            default: LIMITS.approvals.default,
            description: 'Distinct people who must approve the same arguments (§13).',
          }),
        ),
      ),
    })
    .check(
      z.superRefine((ask, ctx) => {
        const misplaced = (field: string, message: string) =>
          ctx.addIssue({ code: 'custom', message, path: [field], input: ask });
        if (ask.kind === 'approval') {
          if (ask.answerSchema !== undefined) misplaced('answerSchema', 'answerSchema belongs to answer asks');
          return;
        }
        if (ask.argsSchema !== undefined) misplaced('argsSchema', 'argsSchema belongs to approval asks');
        if (ask.editable !== undefined) misplaced('editable', 'editable belongs to approval asks');
        if (ask.approvals !== undefined) misplaced('approvals', 'approvals belongs to approval asks');
      }),
    ),
);

/** The asks of a pause: 1 to `LIMITS.asks.max`, each a distinct reserved call of the paused round (§9). */
export const askList = z.defer(() =>
  z.array(askBody).check(
    z.minLength(LIMITS.asks.min),
    z.maxLength(LIMITS.asks.max),
    z.superRefine((asks, ctx) => {
      const seen = new Set<string>();
      asks.forEach((ask, index) => {
        if (seen.has(ask.toolCallId)) {
          const message = `toolCallId ${JSON.stringify(ask.toolCallId)} is asked twice; asks are distinct calls`;
          ctx.addIssue({ code: 'custom', message, path: [index, 'toolCallId'], input: ask });
        }
        seen.add(ask.toolCallId);
      });
    }),
    z.describe('The asks, each a distinct reserved call of the paused round (§9).'),
  ),
);

/** The messages of a pause: JSON, at least one, nested no deeper than a body may be (`LIMITS.bodyDepth`). */
const messages = z.defer(() =>
  z.array(z.unknown()).check(
    z.minLength(1),
    z.superRefine((list, ctx) => {
      const problem = jsonProblem(list);
      if (problem === undefined) return;
      // Stored as JSON, so kept "as it was" only if it is JSON: a Date, NaN or an array hole would come back changed.
      ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path.split('/').slice(1), input: list });
    }),
    z.describe('The transcript in its format, ending with the paused round; checked by the strict check (§4).'),
  ),
);

/** A field only the deployment sets (§21's ladders): named in a body, it is refused. */
const notTheAgents = z.defer(() =>
  z
    .never({
      error:
        "escalation is the deployment's (§21: a policy's @escalate, or HANDBACK_ESCALATION): a pause cannot set it",
    })
    .check(z.describe("Never the agent's: escalation ladders are the deployment's (§21); naming one is 400.")),
);

/** What a pause records (§5, §9, §10, §13, §14), whichever door it came through. */
const pauseFields = z.fields(() => ({
  format,
  messages,
  toolCallId: z.optional(nonEmpty.check(z.describe("Part one's form: the one answer ask. Not with asks."))),
  prompt: z.optional(prompt),
  answerSchema: z.optional(jsonSchema.check(z.describe("Part one's answer: JSON Schema 2020-12."))),
  asks: z.optional(askList),
  expiresInSeconds: z.optional(
    z
      .number()
      .check(
        z.int(),
        z.minimum(LIMITS.expiresInSeconds.min),
        z.maximum(LIMITS.expiresInSeconds.max),
        z.meta({ default: LIMITS.expiresInSeconds.default, description: 'Seconds until it expires undecided.' }),
      ),
  ),
  onExpiry: z.optional(
    z.enum(ON_EXPIRY).check(z.meta({ default: ON_EXPIRY[0], description: 'What expiry does: fail, or reject (§10).' })),
  ),
  remindBeforeSeconds: z.optional(
    z
      .number()
      .check(
        z.int(),
        z.minimum(1),
        z.describe('Emit Pause Reminder this long before expiresAt; less than expiresInSeconds.'),
      ),
  ),
  taskToken: z.optional(
    nonEmpty.check(
      z.maxLength(LIMITS.taskTokenChars),
      z.describe('A Step Functions task token, completed when the pause closes.'),
    ),
  ),
  callbackId: z.optional(
    nonEmpty.check(
      z.maxLength(LIMITS.callbackIdChars),
      z.describe("A Lambda durable function's callback id, completed when the pause closes."),
    ),
  ),
  metadata: z.optional(
    jsonObject.check(
      z.superRefine((value, ctx) => {
        // Returned as given only if it is JSON, nested no deeper than a body may be.
        const problem = jsonProblem(value);
        if (problem !== undefined) {
          const path = problem.path.split('/').slice(1);
          ctx.addIssue({ code: 'custom', message: problem.message, path, input: value });
          return;
        }
        const bytes = jsonBytes(value) ?? 0;
        if (bytes <= LIMITS.metadataBytes) return;
        const message = `is ${bytes} bytes as JSON, over the limit of ${LIMITS.metadataBytes}`;
        ctx.addIssue({ code: 'custom', message, input: value });
      }),
      z.describe(`A JSON object of at most ${LIMITS.metadataBytes / 1024} KB, returned as given.`),
    ),
  ),
  notify: z.optional(notifyList),
  fourEyes: z.optional(z.boolean().check(z.describe('The principal that paused it may not decide it (§13).'))),
  // §21 escalation: the deployment's, never the agent's.
  escalation: z.optional(notTheAgents),
  escalate: z.optional(notTheAgents),
}));

/** The rules between a pause's fields: one form of asks, and a reminder before the expiry. */
const pauseRules = z.superRefine(
  (pause: { toolCallId?: string; prompt?: string; answerSchema?: unknown; asks?: unknown[] } & Timing, ctx) => {
    const partOne = pause.toolCallId !== undefined || pause.prompt !== undefined || pause.answerSchema !== undefined;
    const fail = (path: string, message: string) =>
      ctx.addIssue({ code: 'custom', message, path: [path], input: pause });
    if (pause.asks !== undefined && partOne) {
      fail('asks', 'give either toolCallId (with prompt and answerSchema) or asks, not both');
    } else if (pause.asks === undefined && pause.toolCallId === undefined) {
      fail('toolCallId', 'give toolCallId (or asks)');
    }
    const expires = pause.expiresInSeconds ?? LIMITS.expiresInSeconds.default;
    if (pause.remindBeforeSeconds !== undefined && pause.remindBeforeSeconds >= expires) {
      fail('remindBeforeSeconds', `must be less than expiresInSeconds (${expires})`);
    }
  },
);
type Timing = { expiresInSeconds?: number; remindBeforeSeconds?: number };

/** A pause body over HTTP (§5, §9, §10): the tenant, run and principal are the request's. */
export const pauseBody = z.defer(() => z.object(pauseFields()).check(pauseRules));

/** A pause as the store takes it (`CheckpointStore.pause`). */
export const pauseInput = z.defer(() =>
  z
    .object({
      tenant,
      runId: pausedRunId,
      ...pauseFields(),
      /** The request's `Idempotency-Key`: the same key with the same body returns the first pause again. */
      idempotencyKey: z.optional(idempotencyKey),
      /** The principal pausing (§13). @default the library's */
      by: z.optional(actor),
      // §21 traces
      /**
       * The W3C `traceparent` of the request (§21: over HTTP its header), kept with the pause and carried back on its
       * continuation; a malformed one is ignored.
       */
      traceparent: z.optional(traceparent),
    })
    .check(pauseRules),
);
export type PauseInput = z.input<typeof pauseInput>;
/** A pause input that passed its schema. */
export type ParsedPause = z.output<typeof pauseInput>;
/** One ask of a pause input. */
export type AskInput = z.input<typeof askBody>;
