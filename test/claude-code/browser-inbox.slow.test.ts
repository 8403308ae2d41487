import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAll } from '../black-box/service.ts';
import { launchChromium, newPage, watchWrites } from '../inbox/browser.ts';
import { type Handback, startHandback } from '../mcp/support.ts';
import { claudeBinary, runClaude } from './claude.ts';
import { deferredGreeting, greetingSession, permissionSandbox } from './sessions.ts';

/**
 * §18 end to end: a real Claude Code run's permission prompt decided by a person in the inbox page, in real Chromium
 * — the blocking way (`--permission-prompt-tool` on `handback mcp`: the run waits while the person decides) and the
 * durable way (`handback claude-hook`: the run defers, the person decides, `claude -p --resume` runs the tool). The
 * service is `npm start`'s with bearer auth on; the person signs in to the inbox with their token, finds the request
 * in the list, edits the call's input and submits; the file Claude Code writes holds what the person decided.
 */

let handback: Handback;
let browser: Browser;

beforeAll(async () => {
  // Fails here, saying why, when the binary cannot be installed or run: these tests are never skipped.
  claudeBinary();
  [handback, browser] = await Promise.all([startHandback(), launchChromium()]);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await stopAll();
});

/** The person signs in to the inbox with their token and opens the waiting request of `runId` from the list. */
async function openFromInbox(page: Page, runId: string): Promise<void> {
  await page.goto(`${handback.url}/inbox`);
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await page.getByLabel('Access token').fill(handback.personToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Waiting for a decision' }).waitFor();
  const card = page.locator('li.card', { hasText: runId });
  await card.getByRole('link', { name: 'Write' }).click();
  await page.getByRole('heading', { level: 1, name: `Request from ${runId}` }).waitFor();
}

/** In the open request, the person edits the call's arguments to `args` and submits; resolves once it resumed. */
async function editAndSubmit(page: Page, args: Record<string, unknown>): Promise<void> {
  await page.getByRole('radio', { name: 'Edit the arguments, then approve' }).check();
  const editor = page.getByLabel('Arguments to run the tool with (a JSON object)');
  await editor.fill(JSON.stringify(args, null, 2));
  await page.getByRole('button', { name: 'Submit decision' }).click();
  await page.locator('.outcome').getByText('Resumed: the agent will now run Write.').waitFor();
}

describe('a real Claude Code run decided in the inbox page', () => {
  it('--permission-prompt-tool: the run waits, the person edits the Write in the inbox, the file holds their content', async () => {
    const { id, standIn, sandbox, args, target } = await greetingSession((standIn) =>
      permissionSandbox(handback, standIn),
    );
    const claude = runClaude(sandbox, ['-p', 'Write the greeting file', ...args]);
    // The request reaches the person (as Slack or email would tell them); they open the inbox and find it there.
    const waiting = await handback.person.waitingPause(`mcp-${id}`);
    const { context, page } = await newPage(browser);
    const writes = watchWrites(page);
    await openFromInbox(page, waiting.runId);
    await page.getByText('Allow Write?').first().waitFor();
    const editor = page.getByLabel('Arguments to run the tool with (a JSON object)');
    await page.getByRole('radio', { name: 'Edit the arguments, then approve' }).check();
    // The page shows the call as Claude Code asked it: the model's content, not yet the person's.
    expect(JSON.parse(await editor.inputValue())).toEqual({ file_path: target, content: 'hi\n' });
    expect(existsSync(target)).toBe(false);

    await editAndSubmit(page, { file_path: target, content: 'Hello from the inbox.\n' });
    expect(writes()).toEqual([`/runs/${waiting.runId}/resume`]);
    const result = await claude;
    expect(result.code, result.stderr).toBe(0);
    expect(result.result).toMatchObject({ is_error: false, stop_reason: 'end_turn' });
    expect(readFileSync(target, 'utf8')).toBe('Hello from the inbox.\n');
    expect((await handback.person.read(waiting.runId, waiting.interruptId)).asks[0]).toMatchObject({
      decision: { decision: 'edit', args: { file_path: target, content: 'Hello from the inbox.\n' } },
    });
    await context.close();
    await standIn.close();
  });

  it('claude-hook: the run defers, the person edits the Write in the inbox, --resume writes their content', async () => {
    const { standIn, sandbox, target, sessionId: session } = await deferredGreeting(handback);
    // No Claude Code process is running now: the person finds the request in the inbox and decides it there.
    const { context, page } = await newPage(browser);
    const writes = watchWrites(page);
    await openFromInbox(page, `claude-${session}`);
    await page.getByText('Claude Code wants to run Write.').first().waitFor();
    // The session's prompt is shown as the turn's context.
    await page.locator('blockquote', { hasText: 'Write the greeting file' }).first().waitFor();
    await editAndSubmit(page, { file_path: target, content: 'Hello from the inbox, later.\n' });
    expect(writes()).toEqual([`/runs/claude-${session}/resume`]);
    await context.close();
    expect(existsSync(target)).toBe(false);

    const resumed = await runClaude(sandbox, ['-p', '--resume', session]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.result).toMatchObject({ is_error: false, stop_reason: 'end_turn' });
    expect(readFileSync(target, 'utf8')).toBe('Hello from the inbox, later.\n');
    await standIn.close();
  });

  it("shows a Claude Code session's request as the agent's, with its project and working directory (§22)", async () => {
    const { standIn, sandbox, sessionId: session } = await deferredGreeting(handback);
    const { context, page } = await newPage(browser);
    await openFromInbox(page, `claude-${session}`);
    const about = page.locator('section.context');
    await about.getByRole('heading', { level: 2, name: "The agent's request" }).waitFor();
    expect(await about.locator('dl.agent > *').allTextContents()).toEqual([
      'Project',
      basename(sandbox.cwd),
      'Working directory',
      sandbox.cwd,
    ]);
    await about.getByText('What the agent was working on').waitFor();
    expect(await page.getByText("The user's last message").count()).toBe(0);
    await context.close();
    await standIn.close();
  });
});
