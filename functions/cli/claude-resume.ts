import { parseArgs } from 'node:util';

/** `handback claude-resume`: resumes the Claude Code sessions whose pauses people have decided (§18). */

/** One line for `handback --help`. */
export const summary = 'Resumes each deferred Claude Code session once its pause is decided (claude -p --resume).';

/** `handback claude-resume --help`. */
export const help = `Usage: handback claude-resume [--watch] [--interval <seconds>] [--claude <command>] [-- <claude arguments>]
       handback claude-resume --run <claude-run id> | --session <session id>   [--claude <command>]

For each session the hook (handback claude-hook) deferred on this machine whose pause has closed (decided,
cancelled or expired), runs once, in the session's directory:
  claude -p --resume <session> [<claude arguments>]
The hook, run again by that resume, answers the decision. Sessions still waiting are left for the next pass.
With --run or --session it resumes that one session, in the current directory (a hand-off consumer's loop).
A session id is a UUID (a run id claude-<UUID>): anything else is refused before any claude process starts.

  --watch             keep going: a pass every --interval seconds until stopped (Ctrl-C)
  --interval <s>      seconds between passes with --watch (default 5)
  --run <run id>      resume the session of this run (claude-<session>), from a hand-off pointer's runId
  --session <id>      resume this session
  --claude <command>  the Claude Code command (default: claude)

Environment: as handback claude-hook (HANDBACK_URL and HANDBACK_TOKEN, or a store; HANDBACK_STATE_DIR).
On AWS, the same hand-off is a consumer of the stack's hand-off queue: see docs/claude-code.md.`;

/** One pass, or passes until stopped with --watch; 1 when a resume failed. */
export async function run(argv: string[]): Promise<number> {
  let values: { watch?: boolean; interval?: string; claude?: string; run?: string; session?: string };
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
    };
    const code = await resumeSession(
      { env: process.env, claude: values.claude ?? 'claude', args: positionals, log },
      named,
    );
    return code === 'refused' ? 2 : code === 'not started' ? 1 : code;
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
