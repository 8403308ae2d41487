import type { Violation } from '../../errors.ts';
import * as z from '../../zod.ts';
import type { MessageFormat, NewResult, PausedRound, ToolCall } from './format.ts';
import { Rule } from './format.ts';
import { callId, duplicates, listIds, pausedRoundError, violation } from './shared.ts';

/**
 * Gemini `Content` (`@google/genai`): calls are `functionCall` parts of a `model` content, and all of a round's
 * results are `functionResponse` parts of ONE `user` content right after it. A call without an `id` is addressed by
 * its position in the round (`#0`, `#1`, …), and so is an id-less response: Gemini pairs those by position.
 */

const functionCall = z.looseObject({
  id: z.optional(callId),
  name: z.string(),
  args: z.optional(z.record(z.string(), z.unknown())),
});

const functionResponse = z.looseObject({
  id: z.optional(callId),
  name: z.string(),
  response: z.record(z.string(), z.unknown()),
});

// A part has no discriminator: it is whichever one of its data fields is set. Unknown fields are kept.
const part = z.looseObject({
  text: z.optional(z.string()),
  thought: z.optional(z.boolean()),
  thoughtSignature: z.optional(z.string()),
  functionCall: z.optional(functionCall),
  functionResponse: z.optional(functionResponse),
});

// Gemini defaults a missing role to `user`.
const message = z.looseObject({
  role: z.optional(z.enum(['user', 'model'])),
  parts: z.array(part),
});

/** One Gemini `Content`. */
export type GeminiContent = z.infer<typeof message>;
/** One part of a Gemini `Content`. */
export type GeminiPart = z.infer<typeof part>;

// Type aliases, not interfaces: only an alias is assignable to the schema's loose (index-signature) types.

/** The `functionResponse` part `appendResults` adds for one result: `output` for an answer, `error` when not dispatched. */
export type GeminiFunctionResponsePart = {
  functionResponse: {
    /** Only when the call had an id. */
    id?: string;
    name: string;
    response: { output: string } | { error: string };
  };
};

/** The content `appendResults` adds when the round has no response turn yet. */
export type GeminiResponseContent = {
  role: 'user';
  parts: GeminiFunctionResponsePart[];
};

/** The address of a call or response: its id, else its position among the turn's function parts (`#k`). */
function addressOf(id: string | undefined, position: number): string {
  return id ?? `#${position}`;
}

function isModel(content: GeminiContent): boolean {
  return content.role === 'model';
}

/** The calls of a content, in order, addressed by id or position. */
function callsOf(content: GeminiContent): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const p of content.parts) {
    if (p.functionCall !== undefined) {
      calls.push({
        id: addressOf(p.functionCall.id, calls.length),
        name: p.functionCall.name,
        args: p.functionCall.args ?? {},
      });
    }
  }
  return calls;
}

interface Response {
  address: string;
  /** Whether it carries an id (else it pairs by position). */
  named: boolean;
  name: string;
  /** Index of the part in its content. */
  part: number;
}

/** The function responses of a content, in order, addressed by id or position. */
function responsesOf(content: GeminiContent): Response[] {
  const responses: Response[] = [];
  content.parts.forEach((p, index) => {
    if (p.functionResponse !== undefined) {
      const { id, name } = p.functionResponse;
      responses.push({ address: addressOf(id, responses.length), named: id !== undefined, name, part: index });
    }
  });
  return responses;
}

/** How many parts at the start of `parts` are function responses: where new responses join an existing turn. */
function leadingResponses(parts: readonly GeminiPart[]): number {
  const first = parts.findIndex((p) => p.functionResponse === undefined);
  return first < 0 ? parts.length : first;
}

function responsePart(result: NewResult, idless: ReadonlySet<string>): GeminiFunctionResponsePart {
  const { call, text, notDispatched } = result;
  return {
    functionResponse: {
      ...(idless.has(call.id) ? {} : { id: call.id }),
      name: call.name,
      response: notDispatched ? { error: text } : { output: text },
    },
  };
}

export const gemini: MessageFormat<GeminiContent> = {
  message,
  resultOrder: 'call-order',

  findRound(messages): PausedRound {
    const start = messages.findLastIndex(isModel);
    const model = messages[start];
    const calls = model === undefined ? [] : callsOf(model);
    if (calls.length === 0) {
      throw pausedRoundError(
        Math.max(start, messages.length - 1),
        start < 0
          ? 'The transcript has no model content, so there is no paused round.'
          : `The last model content (messages[${start}]) made no function calls, so there is no paused round.`,
      );
    }
    if (messages.length > start + 2) {
      throw pausedRoundError(
        start + 2,
        `messages[${start + 2}] follows the paused round (messages[${start}]) and its function response turn; only one user content with the round's function responses may follow it.`,
      );
    }
    const answered = new Set<string>();
    const next = messages[start + 1];
    if (next !== undefined) {
      const addresses = new Set(calls.map((call) => call.id));
      const responses = responsesOf(next);
      if (responses.length === 0) {
        throw pausedRoundError(
          start + 1,
          `messages[${start + 1}] follows the paused round (messages[${start}]) but holds no function responses; only the round's function response turn may follow it.`,
        );
      }
      for (const response of responses) {
        if (!addresses.has(response.address)) {
          throw pausedRoundError(
            start + 1,
            `messages[${start + 1}].parts[${response.part}] is a function response for ${response.address}, which is not a function call of the paused round (messages[${start}]).`,
          );
        }
        answered.add(response.address);
      }
    }
    return { start, calls, answered };
  },

  appendResults(messages, round, results) {
    const model = messages[round.start] as GeminiContent;
    const idless = new Set<string>();
    let position = 0;
    for (const p of model.parts) {
      if (p.functionCall === undefined) continue;
      if (p.functionCall.id === undefined) idless.add(`#${position}`);
      position++;
    }
    const parts = results.map((result) => responsePart(result, idless));
    const next = messages[round.start + 1];
    if (next === undefined) {
      const content: GeminiResponseContent = { role: 'user', parts };
      return [...messages, content];
    }
    const lead = leadingResponses(next.parts);
    const joined: GeminiContent = {
      ...next,
      parts: [...next.parts.slice(0, lead), ...parts, ...next.parts.slice(lead)],
    };
    return [...messages.slice(0, round.start + 1), joined, ...messages.slice(round.start + 2)];
  },

  check(messages) {
    const violations: Violation[] = [];
    // The index of the content that answers the call turn before it, so its responses are not orphans.
    let responseTurn = -1;
    messages.forEach((content, index) => {
      const calls = callsOf(content);
      const responses = responsesOf(content);
      if (calls.length > 0 && responses.length > 0) {
        violations.push(
          violation(
            Rule.MixedFunctionParts,
            index,
            `messages[${index}] mixes function call parts and function response parts in one turn; a function call turn holds calls only and the next user turn holds their responses.`,
          ),
        );
      }
      if (responses.length > 0 && (index !== responseTurn || isModel(content))) {
        violations.push(
          violation(
            Rule.OrphanResult,
            index,
            `Please ensure that function response turn comes immediately after a function call turn. messages[${index}] holds function responses (${listIds(responses.map((r) => r.address))}) but does not follow a function call turn.`,
          ),
        );
      }
      if (calls.length === 0 || !isModel(content)) return;

      const previous = messages[index - 1];
      if (previous === undefined || isModel(previous)) {
        violations.push(
          violation(
            Rule.RoleOrder,
            index,
            `Please ensure that function call turn comes immediately after a user turn or after a function response turn. messages[${index}] ${previous === undefined ? 'is the first content' : `follows the model content messages[${index - 1}]`}.`,
          ),
        );
      }
      for (const id of duplicates(calls.map((call) => call.id))) {
        violations.push(
          violation(Rule.DuplicateCallId, index, `Duplicate function call id ${id} in messages[${index}].`),
        );
      }
      checkResponseTurn(messages, index, calls, violations);
      responseTurn = index + 1;
    });
    return violations;
  },
};

/** The function response turn of the call turn `messages[index]`: one response per call, responses first. */
function checkResponseTurn(
  messages: readonly GeminiContent[],
  index: number,
  calls: readonly ToolCall[],
  violations: Violation[],
): void {
  const next = messages[index + 1];
  const responses = next === undefined || isModel(next) ? [] : responsesOf(next);
  const byAddress = new Map(calls.map((call) => [call.id, call]));
  const pending = new Set(byAddress.keys());
  if (next !== undefined && responses.length > 0) {
    const lead = leadingResponses(next.parts);
    const late = responses.find((response) => response.part >= lead);
    if (late !== undefined) {
      violations.push(
        violation(
          Rule.ResultPlacement,
          index + 1,
          `messages[${index + 1}].parts[${late.part}] is a function response after other parts; function response parts must come first in the function response turn.`,
        ),
      );
    }
  }
  for (const response of responses) {
    const call = byAddress.get(response.address);
    if (call === undefined || !pending.delete(response.address)) {
      violations.push(
        violation(
          Rule.OrphanResult,
          index + 1,
          `Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn. The function response ${response.address} in messages[${index + 1}] answers no open function call of messages[${index}].`,
        ),
      );
    } else if (!response.named && response.name !== call.name) {
      violations.push(
        violation(
          Rule.OrphanResult,
          index + 1,
          `The function response ${response.address} in messages[${index + 1}] is named ${response.name}, but function call ${call.id} of messages[${index}] is ${call.name}; responses without an id pair with calls by position and name.`,
        ),
      );
    }
  }
  if (pending.size > 0) {
    violations.push(
      violation(
        Rule.MissingResult,
        index,
        `Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn. messages[${index}] has ${calls.length} function call parts and ${next === undefined || isModel(next) ? 'no function response turn follows it' : `messages[${index + 1}] has ${responses.length} function response parts`}; no response for: ${listIds(pending)}`,
      ),
    );
  }
}
