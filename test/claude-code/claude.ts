import { execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real Claude Code CLI for the tests: the native binary of `@anthropic-ai/claude-code` (pinned in this folder's
 * package.json and lockfile, kept out of the product's dependency tree: it is about 370 MB), run directly — its npm
 * wrapper wants Node 22, the binary does not. Installed from the lockfile on first use (`.ci/run` installs it too);
 * when it cannot be installed or run, the test fails saying why: no Claude Code test is ever skipped.
 */

const here = fileURLToPath(new URL('.', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

/** The repository's built bin, as an installed package runs it (`npx handback …`). */
export const HANDBACK_BIN = join(root, 'dist', 'cli', 'main.js');

/** The native package for this machine, as the wrapper's optional dependencies name them. */
function nativePackage(): string {
  return `@anthropic-ai/claude-code-${process.platform}-${process.arch}`;
}

/** The pinned version, from this folder's lockfile. */
export function claudeCodeVersion(): string {
  const lock = JSON.parse(readFileSync(join(here, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  return lock.packages['node_modules/@anthropic-ai/claude-code']?.version ?? 'unknown';
}

let binary: string | undefined;

/** The native binary's path, installed from the lockfile when missing; throws, saying why, when it cannot run. */
export function claudeBinary(): string {
  if (binary !== undefined) return binary;
  const path = join(here, 'node_modules', nativePackage(), process.platform === 'win32' ? 'claude.exe' : 'claude');
  if (!existsSync(path)) {
    // The wrapper's postinstall only copies the binary over its stub; the binary is run from its own package.
    execFileSync('npm', ['ci', '--prefix', here, '--no-audit', '--no-fund', '--ignore-scripts'], {
      stdio: 'inherit',
      timeout: 600_000,
    });
  }
  if (!existsSync(path)) {
    throw new Error(
      `Claude Code's native binary ${nativePackage()} is not installed in test/claude-code (npm ci --prefix test/claude-code): this machine's platform may have no binary of ${claudeCodeVersion()}. These tests need it; they are not skipped.`,
    );
  }
  accessSync(path, constants.X_OK);
  const version = execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 60_000 }).trim();
  if (!version.startsWith(claudeCodeVersion())) {
    throw new Error(`test/claude-code pins Claude Code ${claudeCodeVersion()}, but its binary says ${version}.`);
  }
  binary = path;
  return path;
}

/** A fresh home and working directory for one Claude Code session, offline. */
export interface ClaudeSandbox {
  home: string;
  cwd: string;
  /** The environment every run gets: the stand-in of the Messages API, a test key, no telemetry or updates. */
  env: NodeJS.ProcessEnv;
}

/** A sandbox talking to the Messages API stand-in at `apiUrl`; `extra` on top (Handback's variables). */
export function claudeSandbox(apiUrl: string, extra: NodeJS.ProcessEnv = {}): ClaudeSandbox {
  const home = mkdtempSync(join(tmpdir(), 'handback-claude-home-'));
  const cwd = mkdtempSync(join(tmpdir(), 'handback-claude-work-'));
  return {
    home,
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_BASE_URL: apiUrl,
      ANTHROPIC_API_KEY: 'sk-test',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      ...extra,
    },
  };
}

/** What one `claude -p` run printed and how it ended; `result` is its `--output-format json` line. */
export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  // biome-ignore lint/suspicious/noExplicitAny: Claude Code's result message, read loosely by the tests
  result: Record<string, any> | undefined;
}

/** Runs `claude <args> --output-format json` in the sandbox; resolves when it exits (killed past `timeoutMs`). */
export function runClaude(sandbox: ClaudeSandbox, args: readonly string[], timeoutMs = 120_000): Promise<ClaudeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(claudeBinary(), [...args, '--output-format', 'json'], {
      cwd: sandbox.cwd,
      env: sandbox.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`claude ${args.join(' ')} did not exit in ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      let result: ClaudeRun['result'];
      try {
        result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
      } catch {
        result = undefined;
      }
      resolve({ code, stdout, stderr, result });
    });
  });
}
