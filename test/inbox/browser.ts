import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { request } from '../black-box/service.ts';

/**
 * The browser side of the inbox tests: Debian's Chromium (`/usr/bin/chromium`, installed by `.ci/run`) driven by
 * playwright-core — no browser download — and the pauses the tests decide, made over HTTP like an agent makes them.
 */

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium as this machine runs it: no sandbox (root in CI), no GPU, and none of the background requests
 * to Google's hosts a closed network refuses.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** A fresh context (its own storage, as another person's browser) and a page in it. */
export async function newPage(
  browser: Browser,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1024, height: 900 }, ...options });
  const page = await context.newPage();
  return { context, page };
}

/** One tool call of the paused round. */
export interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** An openai-chat turn: a user's request, then the assistant's text with `calls`. */
export function turn(calls: Call[], user = 'Order A-1042 arrived broken. Please refund it.'): unknown[] {
  return [
    { role: 'system', content: 'You are a support agent for Example Shop.' },
    { role: 'user', content: user },
    {
      role: 'assistant',
      content: 'I can refund this order, but a person has to confirm first.',
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.args) },
      })),
    },
  ];
}

let sequence = 0;
/** A run id no other test uses. */
export const newRunId = (label = 'run') => `${label}-${Date.now().toString(36)}-${++sequence}`;

/** The 201 body of a pause. */
export interface Created {
  runId: string;
  interruptId: string;
  expiresAt: string;
  answerUrl?: string;
}

/** Records a pause over HTTP (as an agent would) and returns its 201 body. */
export async function createPause(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  runId = newRunId(),
): Promise<Created> {
  const created = await request(`${url}/runs/${runId}/pauses`, 'POST', { format: 'openai-chat', ...body }, headers);
  if (created.status !== 201) throw new Error(`pause refused: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body as Created;
}

/** The inbox URL of one pause, signed in. */
export const pauseUrl = (url: string, pause: Created) =>
  `${url}/inbox?run=${encodeURIComponent(pause.runId)}&pause=${encodeURIComponent(pause.interruptId)}`;
