import { parseArgs } from 'node:util';
import type { HandbackBackend } from '../mcp/backend.ts';

/** `handback claude-resume`: resumes the Claude Code sessions whose pauses people have decided (§18). */

/** One line for `handback --help`. */
export const summary = 'Resumes each deferred Claude Code session once its pause is decided (claude -p --resume).';

/** `handback claude-resume --help`. */
export const help = `Usage: handback claude-resume [--watch] [--interval <seconds>] [--claude <command>] [-- <claude arguments>]
       handback claude-resume --run <claude-run id> | --session <session id> [--pause <id>] [--claude <command>]

For each session the hook (handback claude-hook) deferred on this machine whose pause has closed (decided,
cancelled or expired), runs once, in the session's directory:
  claude -p --resume <session> [<claude arguments>]
The hook, run again by that resume, answers the decision. Sessions still waiting are left for the next pass.
With --run or --session it resumes that one session, in the current directory (a hand-off consumer's loop).
It exits 1 when a resume exits 0 but a decided call (of the pause --pause names, with --run or --session) was
neither run (its execution claimed) nor denied: a queue that redelivers on failure then never drops one.
A session id is a UUID (a run id claude-<UUID>): anything else is refused before any claude process starts.

  --watch             keep going: a pass every --interval seconds until stopped (Ctrl-C)
  --interval <s>      seconds between passes with --watch (default 5)
  --run <run id>      resume the session of this run (claude-<session>), from a hand-off pointer's runId
  --session <id>      resume this session
  --pause <id>        with --run or --session: the pause the hand-off pointer names (its interruptId), checked after
  --claude <command>  the Claude Code command (default: claude)

Environment: as handback claude-hook (HANDBACK_URL and HANDBACK_TOKEN, or a store; HANDBACK_STATE_DIR).
On AWS, the same hand-off is a consumer of the stack's hand-off queue: see docs/claude-code.md.`;

/** One pass, or passes until stopped with --watch; 1 when a resume failed. */
export async function run(argv: string[]): Promise<number> {
  let values: { watch?: boolean; interval?: string; claude?: string; run?: string; session?: string; pause?: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        watch: { type: 'boolean' },
        interval: { type: 'string' },
        claude: { type: 'string' },
        run: { type: 'string' },
        session: { type: 'string' },
        pause: { type: 'string' },
      },
      allowPositionals: true,
    }));
  } catch (error) {
    process.stderr.write(`handback claude-resume: ${error instanceof Error ? error.message : error}; see --help.\n`);
    return 2;
  }
  const intervalSeconds = Number(values.interval ?? '5');
  if (!Number.isFinite(intervalSeconds) || intervalSeconds <= 0) {
    process.stderr.write(
      `handback claude-resume: --interval ${values.interval} must be a number of seconds above 0.\n`,
    );
    return 2;
  }
  const log = (line: string) => process.stderr.write(`handback claude-resume: ${line}\n`);
  if (values.pause !== undefined && values.run === undefined && values.session === undefined) {
    process.stderr.write('handback claude-resume: --pause goes with --run or --session; see --help.\n');
    return 2;
  }
  if (values.run !== undefined || values.session !== undefined) {
    if (values.watch || (values.run !== undefined && values.session !== undefined)) {
      process.stderr.write(
        'handback claude-resume: --run and --session name one session, without --watch; see --help.\n',
      );
      return 2;
    }
    const { resumeSession } = await import('../mcp/claude-resume.ts');
    const named = {
      cwd: process.cwd(),
      ...(values.run === undefined ? {} : { runId: values.run }),
      ...(values.session === undefined ? {} : { sessionId: values.session }),
      ...(values.pause === undefined ? {} : { interruptId: values.pause }),
    };
    // §19: with the pointer's pause, Handback tells whether its decided call ran; without it, nothing is asked.
    let backend: HandbackBackend | undefined;
    if (values.pause !== undefined) {
      const { AGENTS, BackendConfigError, backendFromEnv } = await import('../mcp/backend.ts');
      try {
        backend = await backendFromEnv(process.env, AGENTS.claudeCode);
      } catch (error) {
        process.stderr.write(
          `handback claude-resume: ${error instanceof BackendConfigError ? error.message : error}\n`,
        );
        return 1;
      }
    }
    try {
      const code = await resumeSession(
        {
          env: process.env,
          claude: values.claude ?? 'claude',
          args: positionals,
          log,
          ...(backend === undefined ? {} : { backend }),
        },
        named,
      );
      return code === 'refused' ? 2 : code === 'not started' ? 1 : code;
    } finally {
      await backend?.close();
    }
  }
  const [{ AGENTS, BackendConfigError, backendFromEnv }, { resumeClosedSessions, watchSessions }] = await Promise.all([
    import('../mcp/backend.ts'),
    import('../mcp/claude-resume.ts'),
  ]);
  let backend: Awaited<ReturnType<typeof backendFromEnv>>;
  try {
    backend = await backendFromEnv(process.env, AGENTS.claudeCode);
  } catch (error) {
    process.stderr.write(`handback claude-resume: ${error instanceof BackendConfigError ? error.message : error}\n`);
    return 1;
  }
  const options = {
    env: process.env,
    backend,
    claude: values.claude ?? 'claude',
    args: positionals,
    log,
  };
  try {
    if (!values.watch) return (await resumeClosedSessions(options)).failed.length === 0 ? 0 : 1;
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    process.once('SIGTERM', () => stop.abort());
    await watchSessions({ ...options, intervalMs: intervalSeconds * 1000, signal: stop.signal });
    return 0;
  } finally {
    await backend.close();
  }
}
