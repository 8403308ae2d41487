import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import type { ResponseFunctionToolCall, ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  OpenAIChatMessage,
  OpenAIChatToolResultMessage as OpenAIChatResultMessage,
} from '../../../functions/rehydrate/formats/openai-chat.ts';
import type {
  OpenAIResponsesItem,
  ResponsesFunctionCallItem,
  ResponsesResultItem,
} from '../../../functions/rehydrate/formats/openai-responses.ts';

/**
 * What `appendResults` produces, against the `openai` SDK's request types. A rebuilt transcript is the caller's own
 * items, unchanged, followed by the items Handback adds; so the proof is on the precise types of what is added.
 * The modules' loose schema types are deliberately wider than the SDK's (content parts and item types of any
 * `type` are let through and kept), and the tests say so.
 */
describe('openai-responses rebuilt items are ResponseInputItem', () => {
  it('adds function_call_output items that are ResponseInputItem.FunctionCallOutput', () => {
    expectTypeOf<ResponsesResultItem>().toExtend<ResponseInputItem.FunctionCallOutput>();
    expectTypeOf<ResponsesResultItem[]>().toExtend<ResponseInputItem[]>();
  });

  it('rebuilds a whole transcript typed as ResponseInputItem[] when the input is ResponseInputItem[]', () => {
    type Rebuilt = (ResponseInputItem | ResponsesResultItem)[];
    expectTypeOf<Rebuilt>().toExtend<ResponseInputItem[]>();
  });

  it("adds items of the module's own item type", () => {
    expectTypeOf<ResponsesResultItem>().toExtend<OpenAIResponsesItem>();
  });

  it('reads calls of the SDK shape', () => {
    expectTypeOf<ResponsesFunctionCallItem>().toExtend<ResponseInputItem>();
  });

  it('is honest that the loose item type is wider than ResponseInputItem (any item and part type is let through)', () => {
    expectTypeOf<OpenAIResponsesItem>().not.toExtend<ResponseInputItem>();
  });
});

describe('openai-chat rebuilt messages are ChatCompletionMessageParam', () => {
  it('adds tool messages that are ChatCompletionToolMessageParam', () => {
    expectTypeOf<OpenAIChatResultMessage>().toExtend<ChatCompletionToolMessageParam>();
    expectTypeOf<OpenAIChatResultMessage[]>().toExtend<ChatCompletionMessageParam[]>();
  });

  it('rebuilds a whole transcript typed as ChatCompletionMessageParam[] when the input is one', () => {
    type Rebuilt = (ChatCompletionMessageParam | OpenAIChatResultMessage)[];
    expectTypeOf<Rebuilt>().toExtend<ChatCompletionMessageParam[]>();
  });

  it("adds messages of the module's own message type", () => {
    expectTypeOf<OpenAIChatResultMessage>().toExtend<OpenAIChatMessage>();
  });

  it('is honest that the loose message type is wider than ChatCompletionMessageParam (content parts of any type)', () => {
    expectTypeOf<OpenAIChatMessage>().not.toExtend<ChatCompletionMessageParam>();
    expectTypeOf<Extract<OpenAIChatMessage, { role: 'tool' }>>().not.toExtend<ChatCompletionToolMessageParam>();
  });
});

describe('edited calls stay the openai SDK types (§9: arguments as JSON text, every other field kept)', () => {
  it('keeps a Chat Completions tool call a ChatCompletionMessageToolCall', () => {
    type Edited = Omit<ChatCompletionMessageFunctionToolCall, 'function'> & {
      function: Omit<ChatCompletionMessageFunctionToolCall.Function, 'arguments'> & { arguments: string };
    };
    expectTypeOf<Edited>().toExtend<ChatCompletionMessageToolCall>();
  });

  it('keeps a Responses function_call item a ResponseInputItem', () => {
    type Edited = Omit<ResponseFunctionToolCall, 'arguments'> & { arguments: string };
    expectTypeOf<Edited>().toExtend<ResponseInputItem>();
  });
});
