import type { Violation } from '../../errors.ts';
import * as z from '../../zod.ts';
import type { MessageFormat, NewResult, PausedRound, ToolCall } from './format.ts';
import { Rule } from './format.ts';
import {
  callId,
  callIndexes,
  duplicates,
  insertionSlots,
  interleave,
  joinTexts,
  lastUserText,
  listIds,
  pausedRoundError,
  violation,
  withMessage,
} from './shared.ts';

/**
 * Gemini `Content` (`@google/genai`): calls are `functionCall` parts of a `model` content, and all of a round's
 * results are `functionResponse` parts of ONE `user` content right after it. A call without an `id` is addressed by
 * its position in the round (`#0`, `#1`, …), and so is an id-less response: Gemini pairs those by position.
 *
 * While some calls of a round still wait for their result (an approved call the agent has yet to run, §9), a response
 * to an id-less call that stands after the gap cannot be at its call's position; until the gap is filled it carries
 * its call's address as its `id` (`"#2"`), so that the transcript still says which call it answers. `appendResults`
 * takes the address off again as soon as the response stands at its position; a complete turn carries none.
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

/** The `functionResponse` part `appendResults` adds for one result: `output` for an answer, `error` for a failure. */
export type GeminiFunctionResponsePart = {
  functionResponse: {
    /** Only when the call had an id (or, while an earlier call waits for its result, the call's address `#k`). */
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

/** For each call of a content, in order, whether it has no id (its response then pairs by position). */
function idlessCalls(content: GeminiContent): boolean[] {
  const idless: boolean[] = [];
  for (const p of content.parts) if (p.functionCall !== undefined) idless.push(p.functionCall.id === undefined);
  return idless;
}

/** The call position an address `#k` names, or -1 for any other id. */
function positionOf(address: string): number {
  return /^#(0|[1-9][0-9]*)$/.test(address) ? Number(address.slice(1)) : -1;
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

/** The response part of a new result; `id` is the call's id, its address (`#k`), or none (see appendResults). */
function responsePart(result: NewResult, id: string | undefined): GeminiFunctionResponsePart {
  const { call, text, failed } = result;
  const response = failed ? { error: text } : { output: text };
  return { functionResponse: id === undefined ? { name: call.name, response } : { id, name: call.name, response } };
}

/** The function response of a part known to hold one. */
function responseOf(part: GeminiPart): NonNullable<GeminiPart['functionResponse']> {
  return part.functionResponse as NonNullable<GeminiPart['functionResponse']>;
}

/** A copy of a response part with `id` set, or left out when `undefined`. */
function withResponseId(part: GeminiPart, id: string | undefined): GeminiPart {
  const { id: _old, ...rest } = responseOf(part);
  return { ...part, functionResponse: id === undefined ? rest : { ...rest, id } };
}

/** The text parts of a content, thoughts left out. */
function textOf(content: GeminiContent): string | undefined {
  return joinTexts(content.parts.map((p) => (p.thought === true ? undefined : p.text)));
}

export const gemini: MessageFormat<GeminiContent> = {
  message,

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
    const idless = idlessCalls(messages[round.start] as GeminiContent);
    const indexOf = callIndexes(round);
    const next = messages[round.start + 1];
    const parts = next?.parts ?? [];
    const lead = leadingResponses(parts);
    // findRound let through only responses of the round's calls, addressed by id, address or position.
    const leading = parts.slice(0, lead);
    const existing = leading.map((p, position) => indexOf(responseOf(p).id ?? `#${position}`));
    const fresh = results.map((result) => indexOf(result.call.id));
    const slots = insertionSlots(existing, fresh);
    const order = interleave(existing, slots, fresh);
    const added = interleave<NewResult | undefined>(
      leading.map(() => undefined),
      slots,
      results,
    );
    // Each response to an id-less call pairs by position: at its call's position it carries no id, elsewhere (after
    // a call still waiting for its result) its call's address.
    const merged: GeminiPart[] = [];
    let from = 0;
    order.forEach((k, position) => {
      const result = added[position];
      const id = idless[k] === true ? (k === position ? undefined : `#${k}`) : result?.call.id;
      if (result !== undefined) {
        merged.push(responsePart(result, id));
        return;
      }
      const part = leading[from++] as GeminiPart;
      merged.push(idless[k] !== true || responseOf(part).id === id ? part : withResponseId(part, id));
    });
    if (next === undefined) {
      const content: GeminiResponseContent = { role: 'user', parts: merged as GeminiFunctionResponsePart[] };
      return [...messages, content];
    }
    return withMessage(messages, round.start + 1, { ...next, parts: merged.concat(parts.slice(lead)) });
  },

  withArgs(messages, round, edits) {
    const model = messages[round.start] as GeminiContent;
    let position = 0;
    const parts = model.parts.map((p) => {
      if (p.functionCall === undefined) return p;
      const args = edits.get(p.functionCall.id ?? `#${position}`);
      position++;
      return args === undefined ? p : { ...p, functionCall: { ...p.functionCall, args } };
    });
    return withMessage(messages, round.start, { ...model, parts });
  },

  context: (messages, round) => ({
    user: lastUserText(messages, round.start, (m) => (isModel(m) ? undefined : textOf(m))),
    assistant: textOf(messages[round.start] as GeminiContent),
  }),

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
  if (pending.size === 0) {
    // A complete turn pairs id-less calls by position alone: an address left on a response (see appendResults) means
    // it stands where Gemini would pair it with another call.
    const idless = idlessCalls(messages[index] as GeminiContent);
    for (const response of responses) {
      if (!response.named || idless[positionOf(response.address)] !== true) continue;
      violations.push(
        violation(
          Rule.ResultPlacement,
          index + 1,
          `messages[${index + 1}].parts[${response.part}] answers function call ${response.address}, which has no id, by its address; function responses to calls without an id carry no id and pair with them by position, so every call before it must be answered before it.`,
        ),
      );
    }
  } else {
    violations.push(
      violation(
        Rule.MissingResult,
        index,
        `Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn. messages[${index}] has ${calls.length} function call parts and ${next === undefined || isModel(next) ? 'no function response turn follows it' : `messages[${index + 1}] has ${responses.length} function response parts`}; no response for: ${listIds(pending)}`,
      ),
    );
  }
}
