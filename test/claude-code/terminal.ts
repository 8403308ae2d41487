import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ClaudeSandbox, claudeBinary, claudeCodeVersion, claudeSandbox } from './claude.ts';

/**
 * The real Claude Code CLI in an interactive session — what a developer at a terminal runs, not `claude -p` — for the
 * channel relay (§22), which only an interactive session uses. A terminal is what the CLI needs then: `tmux` (Debian's
 * package) runs it in a detached pane of a server of this process's own, the test types and presses keys with
 * `send-keys` and reads the screen with `capture-pane`. The sandbox's `.claude.json` says what a developer would have
 * answered already (onboarding, the folder trusted, the project's MCP servers enabled) and turns the channel feature
 * on in the CLI's local feature cache, which is how the CLI reads it offline (`../shared/FACTS.md` of the project's
 * notes; docs/claude-code.md).
 */

/** tmux, or an error saying how to install it: the interactive tests need it and are never skipped. */
export function requireTmux(): void {
  try {
    execFileSync('tmux', ['-V'], { encoding: 'utf8', timeout: 10_000 });
  } catch (error) {
    throw new Error(
      `The interactive Claude Code tests drive the CLI in a terminal with tmux, which is not installed here (${(error as Error).message}): apt-get install -y tmux. They are not skipped.`,
    );
  }
}

/** An MCP server of the project's `.mcp.json`. */
export interface McpServerEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** A sandbox for an interactive session: its MCP servers, and the CLI's debug log (where it says what it relayed). */
export interface InteractiveSandbox extends ClaudeSandbox {
  debugLog: string;
  /** The servers loaded as channels. */
  channels: string[];
  /** The CLI arguments that load `channels` as development channels (`server:<name>`). */
  channelArgs: string[];
}

/**
 * A sandbox whose project `.mcp.json` names `servers`, enabled without asking; `channels` name those loaded as
 * channels (`--dangerously-load-development-channels server:<name>`), with the channel feature on.
 */
export function interactiveSandbox(
  apiUrl: string,
  options: { servers: Record<string, McpServerEntry>; channels?: string[]; env?: NodeJS.ProcessEnv },
): InteractiveSandbox {
  const sandbox = claudeSandbox(apiUrl, {
    TERM: 'xterm-256color',
    // The feature cache below is read offline only with this (telemetry is off in every sandbox).
    CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF: '1',
    ...options.env,
  });
  const key = sandbox.env.ANTHROPIC_API_KEY as string;
  writeFileSync(
    join(sandbox.home, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: 'dark',
      numStartups: 3,
      // The CLI asks once whether to use a key from the environment; it keeps the answer by the key's last 20 characters.
      customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
      projects: {
        [sandbox.cwd]: {
          hasTrustDialogAccepted: true,
          allowedTools: [],
          enabledMcpjsonServers: Object.keys(options.servers),
        },
      },
      // The two remote feature flags of the channel relay, as the CLI caches them (they stay off offline otherwise).
      cachedGrowthBookFeatures: { tengu_harbor: true, tengu_harbor_permissions: true },
    }),
  );
  writeFileSync(join(sandbox.cwd, '.mcp.json'), JSON.stringify({ mcpServers: options.servers }));
  const channels = options.channels ?? [];
  return {
    ...sandbox,
    debugLog: join(sandbox.home, 'claude-debug.log'),
    channels,
    channelArgs:
      channels.length === 0
        ? []
        : ['--dangerously-load-development-channels', ...channels.map((name) => `server:${name}`)],
  };
}

/** A running interactive session. */
export interface Terminal {
  /** What the terminal shows now (wrapped lines joined). */
  screen(): string;
  /** Waits until the screen matches `pattern`; returns the screen. */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Types `text` at the prompt and presses Enter. */
  submit(text: string): Promise<void>;
  /** Presses keys (tmux names: `Enter`, `Escape`, `Down`, …). */
  press(...keys: string[]): void;
  /** Once the screen shows `question` (a dialog), presses `key` until the dialog is gone. */
  choose(question: string, key: string): Promise<void>;
  /** The CLI's debug log so far. */
  debug(): string;
  /** Waits until a line of the debug log contains `text`; returns the line. */
  waitForDebug(text: string, timeoutMs?: number): Promise<string>;
  /** `/exit`, and waits until the CLI has exited. */
  exit(): Promise<void>;
  /** Ends the terminal (the CLI gets SIGHUP, as when a developer closes the window), and tmux with it. */
  close(): void;
}

let sessions = 0;

/**
 * Starts `claude <args>` in the sandbox in a detached tmux pane and waits for its prompt, accepting the development
 * channels' warning when it shows. The pane outlives the CLI (the screen is kept to read how it exited).
 */
export async function startInteractive(sandbox: InteractiveSandbox, args: readonly string[] = []): Promise<Terminal> {
  requireTmux();
  const socket = `handback-test-${process.pid}-${++sessions}`;
  const tmux = (...tmuxArgs: string[]) =>
    execFileSync('tmux', ['-L', socket, ...tmuxArgs], { encoding: 'utf8', timeout: 10_000 });
  const launcher = join(sandbox.home, 'claude-session.sh');
  const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
  const env = Object.entries(sandbox.env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}=${quote(value)}`);
  // Permission prompts are what these sessions are about: the CLI's default mode asks for each, where auto mode would
  // have a classifier (another model request) decide some.
  const command = [
    claudeBinary(),
    '--debug-file',
    sandbox.debugLog,
    '--permission-mode',
    'default',
    ...sandbox.channelArgs,
    ...args,
  ].map(quote);
  writeFileSync(
    launcher,
    `cd ${quote(sandbox.cwd)}\nenv -i ${env.join(' ')} ${command.join(' ')}\necho "[claude exited $?]"\nexec sleep 3600\n`,
  );
  tmux('new-session', '-d', '-s', 'claude', '-x', '200', '-y', '50', `bash ${quote(launcher)}`);
  const terminal: Terminal = {
    screen: () => tmux('capture-pane', '-p', '-J', '-t', 'claude'),
    async waitFor(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const screen = terminal.screen();
        if (typeof pattern === 'string' ? screen.includes(pattern) : pattern.test(screen)) return screen;
        if (Date.now() > deadline) {
          throw new Error(`The terminal did not show ${pattern} in ${timeoutMs} ms. It shows:\n${screen}`);
        }
        await sleep(200);
      }
    },
    async submit(text) {
      tmux('send-keys', '-t', 'claude', '-l', text);
      // The prompt takes typed text in its own time; an Enter sent with it can arrive first.
      await sleep(300);
      tmux('send-keys', '-t', 'claude', 'Enter');
    },
    press(...keys) {
      tmux('send-keys', '-t', 'claude', ...keys);
    },
    async choose(question, key) {
      await terminal.waitFor(question);
      const deadline = Date.now() + 15_000;
      // A dialog just drawn may not take keys yet: press again until it is gone.
      while (terminal.screen().includes(question)) {
        if (Date.now() > deadline)
          throw new Error(`The dialog "${question}" did not take ${key}:\n${terminal.screen()}`);
        terminal.press(key);
        await sleep(500);
      }
    },
    debug: () => (existsSync(sandbox.debugLog) ? readFileSync(sandbox.debugLog, 'utf8') : ''),
    async waitForDebug(text, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = terminal
          .debug()
          .split('\n')
          .find((entry) => entry.includes(text));
        if (line !== undefined) return line;
        if (Date.now() > deadline) {
          const mcp = terminal
            .debug()
            .split('\n')
            .filter((entry) => /MCP|channel/i.test(entry));
          throw new Error(
            `Claude Code's debug log had no "${text}" in ${timeoutMs} ms. Its MCP lines:\n${mcp.join('\n')}`,
          );
        }
        await sleep(200);
      }
    },
    async exit() {
      await terminal.submit('/exit');
      await terminal.waitFor('[claude exited');
    },
    close() {
      try {
        tmux('kill-server');
      } catch {
        // Already gone.
      }
    },
  };
  try {
    const ready = /\? for shortcuts/;
    const first = await terminal.waitFor(
      new RegExp(`I am using this for local development|${ready.source}|claude exited`),
    );
    if (first.includes('claude exited')) throw new Error(`Claude Code exited at start:\n${first}`);
    if (first.includes('I am using this for local development')) {
      terminal.press('Enter');
      await terminal.waitFor(ready);
    }
    // The prompt shows before the MCP servers are connected; a channel is ready once the CLI has registered it. When the
    // CLI will not relay (its feature off, the server refused), the test fails naming the CLI's own reason.
    for (const name of sandbox.channels) {
      const line = await terminal.waitForDebug(`MCP server "${name}": Channel notifications`);
      if (!line.includes('Channel notifications registered')) {
        throw new Error(`Claude Code ${claudeCodeVersion()} does not relay to the channel ${name} here: ${line}`);
      }
    }
  } catch (error) {
    terminal.close();
    throw error;
  }
  return terminal;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What `check` returns once it no longer throws (or resolves), within 20 s. */
export async function eventually<T>(check: () => T | Promise<T>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * The text of a file a tool of the session writes, once it is whole: a shell's `>` creates the file before it writes
 * to it, so a read in between sees it empty. Every file these sessions have a tool write ends with a newline.
 */
export function writtenFile(path: string): Promise<string> {
  return eventually(() => {
    const text = readFileSync(path, 'utf8');
    if (!text.endsWith('\n')) throw new Error(`${path} is not written whole yet: ${JSON.stringify(text)}`);
    return text;
  });
}
