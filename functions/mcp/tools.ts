import { ElicitRequestFormParamsSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { onceSync } from '../once.ts';
import { LIMITS, type McpTool } from '../vocabulary.ts';
import * as z from '../zod.ts';
import { TOOL_USE_ID } from './permission.ts';

/**
 * The tools of Handback's MCP server (§18), declared once: their inputs as zod schemas (what a call is checked
 * against) and, made from those same schemas, the JSON Schemas `tools/list` shows — inputs and outputs.
 */

const prompt = z.defer(() =>
  z.optional(
    z
      .string()
      .check(
        z.minLength(1),
        z.maxLength(LIMITS.promptChars),
        z.describe('Shown to the person who decides, with the call: why it needs them, what to look at.'),
      ),
  ),
);

/** `request_permission`'s input: Claude Code's permission-prompt tool contract, and a prompt. */
export const requestPermissionInput = z.defer(() =>
  z.object({
    tool_name: z.string().check(z.minLength(1), z.describe('The tool the agent wants to run (Write, Bash, …).')),
    input: z.record(z.string(), z.unknown()).check(z.describe("The call's input, as the model made it.")),
    tool_use_id: z.optional(
      z
        .string()
        .check(
          z.regex(TOOL_USE_ID, 'must be 1–120 letters, digits, _ or -'),
          z.describe(
            'The call id. Asking again with the same id meets the same pause: it waits for it, or answers at once once decided.',
          ),
        ),
    ),
    prompt,
  }),
);

/** `request_permission`'s answer: Claude Code's `PermissionResult`. */
export const requestPermissionOutput = z.defer(() =>
  z.object({
    behavior: z.enum(['allow', 'deny']),
    updatedInput: z.optional(
      z
        .record(z.string(), z.unknown())
        .check(z.describe('allow: the input to run with (edited by the person, or not).')),
    ),
    message: z.optional(z.string().check(z.describe('deny: why, and where the pause waits when it still does.'))),
    interrupt: z.optional(
      z.boolean().check(z.describe('deny past the wait: no one has decided yet; ask again with the same tool_use_id.')),
    ),
  }),
);

/** MCP elicitation's `requestedSchema`, as the SDK declares it: a flat object of strings, numbers, booleans, enums. */
const requestedSchema = ElicitRequestFormParamsSchema.shape.requestedSchema;

/** `ask_person`'s input: a question, an elicitation-style answer schema, a prompt. */
export const askPersonInput = z.defer(() =>
  z.object({
    question: z
      .string()
      .check(z.minLength(1), z.maxLength(LIMITS.promptChars), z.describe('What the person is asked.')),
    schema: z.optional(
      requestedSchema.check(
        z.describe(
          "The answer's shape, as MCP elicitation's requestedSchema: an object of strings, numbers, booleans and enums. Without it, any JSON (free text).",
        ),
      ),
    ),
    prompt,
    ask_id: z.optional(
      z
        .string()
        .check(
          z.regex(TOOL_USE_ID, 'must be 1–120 letters, digits, _ or -'),
          z.describe('Names the question: asking again with the same id meets the same pause and its answer.'),
        ),
    ),
  }),
);

/** `ask_person`'s answer. */
export const askPersonOutput = z.defer(() =>
  z.object({
    answer: z.unknown().check(z.describe("The person's answer: an object of the schema's fields, or any JSON.")),
  }),
);

/** A JSON Schema for `tools/list`: the root of an object schema, without the `$schema` line. */
function listed(schema: z.ZodMiniType): { type: 'object'; [key: string]: unknown } {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return json as { type: 'object' };
}

/** The tools as `tools/list` lists them: their JSON Schemas made by the first list, not at import. */
export const tools = onceSync(
  () =>
    [
      {
        name: 'request_permission',
        title: 'Ask a person for permission',
        description:
          "Asks a person, through Handback (its inbox, Slack or email), whether a tool call may run, and with which input: Claude Code's permission prompt (--permission-prompt-tool). Answers {behavior: 'allow', updatedInput} when the person approves or edits the call, {behavior: 'deny', message} when they reject it or it is cancelled or expires; past the server's wait, deny with interrupt: true while the pause stays open: call again with the same tool_use_id to get the decision.",
        inputSchema: listed(requestPermissionInput),
        // No `outputSchema`: a client that has one reads `structuredContent`, and Claude Code takes a permission prompt's
        // answer only as one text block. The text's JSON Schema is listed here instead.
        _meta: { 'handback/textSchema': listed(requestPermissionOutput) },
        annotations: { title: 'Ask a person for permission', readOnlyHint: false, openWorldHint: true },
        // §22: a client that takes tasks may call it as one and poll; any other waits in the call.
        execution: { taskSupport: 'optional' },
      },
      {
        name: 'ask_person',
        title: 'Ask a person',
        description:
          "Asks a person a question through Handback (its inbox, Slack or email) and waits for their answer, hours later if need be: a person other than the one at the keyboard. Answers the person's answer as JSON; past the server's wait, an error naming the pause, which stays open: call again with the same ask_id to get the answer.",
        inputSchema: listed(askPersonInput),
        outputSchema: listed(askPersonOutput),
        annotations: { title: 'Ask a person', readOnlyHint: false, openWorldHint: true },
        execution: { taskSupport: 'optional' },
      },
    ] as const satisfies ReadonlyArray<Tool & { name: McpTool }>,
);
