import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in of the Anthropic Messages API (`POST /v1/messages`), for the real Claude Code CLI run offline
 * (`ANTHROPIC_BASE_URL`). It answers as the API does: a streamed request gets server-sent events in the API's order
 * (`message_start`, per block `content_block_start` / `content_block_delta` / `content_block_stop`, `message_delta`
 * with the stop reason, `message_stop`), a tool call's input as `input_json_delta` fragments; an unstreamed one the
 * message as JSON. What the model says is a script: a function of the request (the turn so far), so a test decides
 * when the model calls a tool and what it says once the tool's result is in. It refuses what the API refuses here: a
 * request without `x-api-key`, a body that is not JSON, no `messages`.
 */

/** A block the scripted model answers with. */
export type ScriptedBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** A Messages API request as Claude Code sends it (the fields the scripts read). */
export interface MessagesRequest {
  model: string;
  stream?: boolean;
  system?: unknown;
  tools?: Array<{ name: string }>;
  messages: Array<{ role: 'user' | 'assistant'; content: string | Array<Record<string, unknown>> }>;
}

/** What the model says next, given the request. */
export type Script = (request: MessagesRequest) => ScriptedBlock[];

/** A running stand-in. */
export interface MessagesStandIn {
  /** `ANTHROPIC_BASE_URL` for the CLI. */
  url: string;
  /** Every `/v1/messages` request received, in order. */
  requests: MessagesRequest[];
  /** Replaces the script (for the next requests). */
  setScript(script: Script): void;
  close(): Promise<void>;
}

/** Starts the stand-in on a free port of 127.0.0.1. */
export async function startMessagesStandIn(script: Script): Promise<MessagesStandIn> {
  let current = script;
  const requests: MessagesRequest[] = [];
  let messageCount = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (req.method !== 'POST' || !path.startsWith('/v1/messages')) {
        return send(res, 404, { type: 'error', error: { type: 'not_found_error', message: `No route ${path}` } });
      }
      if (!req.headers['x-api-key'] && !req.headers.authorization) {
        return send(res, 401, {
          type: 'error',
          error: { type: 'authentication_error', message: 'x-api-key header is required' },
        });
      }
      let parsed: MessagesRequest;
      try {
        parsed = JSON.parse(body) as MessagesRequest;
      } catch {
        return send(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'not JSON' } });
      }
      if (!Array.isArray(parsed.messages)) {
        return send(res, 400, {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'messages: Field required' },
        });
      }
      if (path === '/v1/messages/count_tokens') return send(res, 200, { input_tokens: 100 });
      requests.push(parsed);
      const blocks = current(parsed);
      const id = `msg_standin_${++messageCount}`;
      const stopReason = blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
      const message = {
        id,
        type: 'message',
        role: 'assistant',
        model: parsed.model,
        stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      };
      if (parsed.stream !== true) return send(res, 200, { ...message, content: blocks, stop_reason: stopReason });
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      const event = (type: string, data: Record<string, unknown>) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      event('message_start', {
        message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } },
      });
      blocks.forEach((block, index) => {
        if (block.type === 'text') {
          event('content_block_start', { index, content_block: { type: 'text', text: '' } });
          event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
        } else {
          event('content_block_start', {
            index,
            content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
          });
          // The input in two fragments, as the API streams it: a client must join them before parsing.
          const json = JSON.stringify(block.input);
          const half = Math.floor(json.length / 2);
          for (const partial of [json.slice(0, half), json.slice(half)]) {
            event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partial } });
          }
        }
        event('content_block_stop', { index });
      });
      event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 20 } });
      event('message_stop', {});
      res.end();
    })().catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setScript(script) {
      current = script;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

function send(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_standin_${Date.now()}` });
  res.end(JSON.stringify(body));
}

/** The last message of a request: the turn's newest user content. */
export function lastMessage(request: MessagesRequest): MessagesRequest['messages'][number] | undefined {
  return request.messages.at(-1);
}

/** The `tool_result` blocks of the request's last user message. */
export function toolResults(request: MessagesRequest): Array<Record<string, unknown>> {
  const last = lastMessage(request);
  if (last === undefined || typeof last.content === 'string') return [];
  return last.content.filter((block) => block.type === 'tool_result');
}

/** A tool result's content as text (a string, or its text blocks joined). */
export function resultText(block: Record<string, unknown>): string {
  const content = block.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
  }
  return '';
}
