import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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

/** The requests that change something (decisions, cancels) the page has sent so far. */
export function watchWrites(page: Page): () => string[] {
  const writes: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST') writes.push(new URL(r.url()).pathname);
  });
  return () => [...writes];
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One axe-core violation, short. */
export interface Violation {
  id: string;
  impact: string | null;
  nodes: string[];
}

/** Runs axe-core's WCAG 2.0 and 2.1 A and AA rules on the page as it is; returns the violations. */
export async function axeViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<AxeResults> } })
      .axe;
    const results = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      resultTypes: ['violations'],
    });
    return results.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.html) }));
  });
}

interface AxeResults {
  violations: Array<{ id: string; impact: string | null; nodes: Array<{ html: string }> }>;
}

/** What has the keyboard focus: its tag, role-ish name and whether a visible outline marks it. */
export interface Focused {
  tag: string;
  name: string;
  outline: boolean;
}

/** Presses Tab until `wanted` has the focus (at most `limit` times); returns what had it on the way. */
export async function tabTo(page: Page, wanted: (focused: Focused) => boolean, limit = 60): Promise<Focused[]> {
  const seen: Focused[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate((): Focused => {
      const el = document.activeElement as HTMLElement | null;
      if (el === null) return { tag: '', name: '', outline: false };
      const style = getComputedStyle(el);
      const label = el.id ? document.querySelector(`label[for="${CSS.escape(el.id)}"]`)?.textContent : undefined;
      const name = (label ?? el.getAttribute('aria-label') ?? el.textContent ?? '').trim();
      return {
        tag: el.tagName.toLowerCase(),
        name,
        outline: style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) >= 2,
      };
    });
    seen.push(focused);
    if (wanted(focused)) return seen;
  }
  throw new Error(`focus never reached what was wanted; it went through ${JSON.stringify(seen.map((f) => f.name))}`);
}
