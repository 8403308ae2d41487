import type { Violation } from '../errors.ts';
import { shapeViolations } from './core.ts';
import { formatOf } from './formats/index.ts';

export { shapeViolations } from './core.ts';

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
