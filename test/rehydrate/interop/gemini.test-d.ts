import type { Content, FunctionCall, FunctionResponse, Part } from '@google/genai';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  GeminiContent,
  GeminiFunctionResponsePart,
  GeminiPart,
  GeminiResponseContent,
} from '../../../functions/rehydrate/formats/gemini.ts';

/**
 * What `appendResults` produces, against `@google/genai`'s request types. The proof that matters is on the precise
 * types of what Handback adds: the `functionResponse` part and the response content. Every other content of a
 * rebuilt transcript is the caller's own, unchanged; the one joined content is the caller's user content with
 * `GeminiFunctionResponsePart`s spliced into its `parts`.
 *
 * The module's loose schema type (`GeminiContent`) is assignable too, but only because TypeScript does not check a
 * `[key: string]: unknown` index signature against a target's optional properties: that half of the proof is about
 * the fields the schema names (`role`, `parts`, `text`, `thought`, `functionCall`, `functionResponse`, …), not the
 * unknown fields it lets through.
 */
describe('gemini rebuilt contents are @google/genai Content', () => {
  it('adds functionResponse parts that are Part, with a FunctionResponse inside', () => {
    expectTypeOf<GeminiFunctionResponsePart>().toExtend<Part>();
    expectTypeOf<GeminiFunctionResponsePart['functionResponse']>().toExtend<FunctionResponse>();
  });

  it('adds a response content that is a Content', () => {
    expectTypeOf<GeminiResponseContent>().toExtend<Content>();
    expectTypeOf<GeminiResponseContent[]>().toExtend<Content[]>();
  });

  it('joins responses into a user content of the SDK type and keeps it a Content', () => {
    type Joined = { role: 'user'; parts: (Part | GeminiFunctionResponsePart)[] };
    expectTypeOf<Joined>().toExtend<Content>();
  });

  it('rebuilds a whole transcript typed as Content[] when the input is Content[]', () => {
    type Rebuilt = [...Content[], GeminiResponseContent];
    expectTypeOf<Rebuilt>().toExtend<Content[]>();
  });

  it("adds parts and contents of the module's own message type", () => {
    expectTypeOf<GeminiFunctionResponsePart>().toExtend<GeminiPart>();
    expectTypeOf<GeminiResponseContent>().toExtend<GeminiContent>();
  });

  it('accepts the loose schema type as Content[] for the fields it names', () => {
    expectTypeOf<GeminiContent[]>().toExtend<Content[]>();
    expectTypeOf<GeminiPart>().toExtend<Part>();
  });
});

describe('gemini edited calls and addressed responses stay @google/genai types (§9)', () => {
  it('keeps a functionCall part with edited args a Part', () => {
    type Edited = {
      functionCall: Omit<FunctionCall, 'args'> & { args: Record<string, unknown> };
      thoughtSignature?: string;
    };
    expectTypeOf<Edited>().toExtend<Part>();
  });

  it('keeps a response that carries its call’s address as id (while an earlier call waits) a FunctionResponse', () => {
    type Addressed = GeminiFunctionResponsePart['functionResponse'] & { id: `#${number}` };
    expectTypeOf<Addressed>().toExtend<FunctionResponse>();
  });
});
