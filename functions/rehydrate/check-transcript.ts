import type { Violation } from '../errors.ts';
import type * as z from '../zod.ts';
import type { MessageFormat } from './formats/format.ts';
import { Rule } from './formats/format.ts';
import { formatOf } from './formats/index.ts';

/**
 * The strict transcript check (§4): `[]` when the format's provider would accept `messages` as the next request,
 * else one violation per broken rule, each naming the message index. Messages that do not have the format's shape
 * are reported as `message-shape` violations. Throws only for an unknown format (`InvalidTranscriptError`).
 */
export function checkTranscript(format: string, messages: unknown): Violation[] {
  const module = formatOf(format);
  const shape = shapeViolations(module, messages);
  return shape.length > 0 ? shape : module.check(messages as unknown[]);
}

/** The shape violations of `messages` for `format`: one per message that fails the schema, naming the field. */
export function shapeViolations(format: MessageFormat, messages: unknown): Violation[] {
  if (!Array.isArray(messages)) {
    return [{ rule: Rule.MessageShape, index: -1, message: `messages must be an array, got ${describe(messages)}.` }];
  }
  const violations: Violation[] = [];
  // An index loop, not forEach: a hole in the array is a message too (an ill-shaped one), never skipped.
  for (let index = 0; index < messages.length; index++) {
    const result = format.message.safeParse(messages[index]);
    if (!result.success) {
      violations.push({ rule: Rule.MessageShape, index, message: describeIssues(index, result.error) });
    }
  }
  return violations;
}

function describeIssues(index: number, error: z.core.$ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
      return `messages[${index}]${path}: ${issue.message}`;
    })
    .join('; ');
}

function describe(value: unknown): string {
  return value === null ? 'null' : typeof value;
}
