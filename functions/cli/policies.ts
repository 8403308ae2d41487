import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/**
 * `handback policies check`: an operator's dry run of a policy file (§19) — the file loaded and checked as the
 * service loads it, then each call of a calls file judged as a pause's `approval` ask would be, printed with its
 * outcome, the policies that decided it and what it requires of people. Nothing is stored and no service is needed.
 */

/** One line for `handback --help`. */
export const summary = 'Policies: check a Cedar policy file and judge calls with it, as the service would.';

/** `handback policies --help`. */
export const help = `Usage: handback policies check <policies.cedar> [--schema <args.cedarschema>] --calls <calls.json>
       [--mode enforce|shadow] [--default ask|reject] [--time-zone <IANA zone>] [--json]

Loads the policy file (and the deployment's schema of Args) as the service does — parsed, validated against
handback.cedarschema in Cedar's strict mode, held to Handback's annotations — and judges each call of calls.json as a
pause's approval ask: approve, reject or ask, the policies that decided it, and, for an ask, the approvers, approvals
and four eyes they require. Prints the set's version (as the audit trail names it).

calls.json: a list of {"tool": "refund_order", "args": {...}, "principal"?: {"kind": "agent", "subject":
"refund-bot", "groups"?: [...]}, "at"?: "2026-03-02T20:00:00Z"} — who pauses (the agent "agent" when not given) and
when (context.now and context.clock; now when not given).

Exit status: 0 when every call was judged (whatever the outcomes), 1 when a file cannot be read or the policies do
not load (file:line:column and Cedar's words), 2 on a usage error. See docs/policies.md.`;

/** Runs `handback policies <subcommand>`; resolves with the exit code. */
export async function run(argv: string[]): Promise<number> {
  const fail = (message: string, code: number) => {
    process.stderr.write(`handback policies: ${message}\n`);
    return code;
  };
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (error) {
    return fail(`${error instanceof Error ? error.message : String(error)} See handback policies --help.`, 2);
  }
  const { file, values } = parsed;
  // Loaded only now: `handback --help` and the other commands never read Cedar.
  const [{ loadPolicyEngine }, { policySettingsFrom }, { parseInput, policyCheckCalls }, { InvalidPoliciesError }] =
    await Promise.all([
      import('../policies/engine-files.ts'),
      import('../policies/config.ts'),
      import('../inputs.ts'),
      import('../errors.ts'),
    ]);
  let settings: ReturnType<typeof policySettingsFrom>;
  try {
    settings = policySettingsFrom(
      {
        policies: file,
        schema: values.schema,
        mode: values.mode,
        default: values.default,
        timeZone: values['time-zone'],
        version: undefined,
      },
      {
        policies: '<policies.cedar>',
        schema: '--schema',
        mode: '--mode',
        default: '--default',
        timeZone: '--time-zone',
        version: 'version',
      },
    );
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error), 2);
  }
  let calls: ReturnType<typeof parseInput<typeof policyCheckCalls>>;
  try {
    const text = readFileSync(values.calls as string, 'utf8');
    calls = parseInput(policyCheckCalls, JSON.parse(text), `calls file ${values.calls}`);
  } catch (error) {
    return fail(`${values.calls}: ${error instanceof Error ? error.message : String(error)}`, 1);
  }
  let engine: ReturnType<typeof loadPolicyEngine>;
  try {
    engine = loadPolicyEngine(settings as NonNullable<typeof settings>);
  } catch (error) {
    if (error instanceof InvalidPoliciesError) return fail(error.message, 1);
    return fail(error instanceof Error ? error.message : String(error), 1);
  }
  const now = new Date();
  const judged = calls.map((call) => {
    const principal = call.principal ?? { kind: 'agent', subject: 'agent' };
    const at = call.at === undefined ? now : new Date(call.at);
    const policy = engine.evaluate({
      principal,
      tool: call.tool,
      args: call.args ?? {},
      runId: 'policies-check',
      tenant: 'policies-check',
      format: 'openai-chat',
      now: at,
    });
    return { tool: call.tool, principal, at: at.toISOString(), policy };
  });
  if (values.json) {
    const { version, mode, default: fallback, timeZone } = engine;
    process.stdout.write(`${JSON.stringify({ version, mode, default: fallback, timeZone, calls: judged }, null, 2)}\n`);
    return 0;
  }
  const lines = [
    `${file}: ${engine.size} policies, version ${engine.version}, mode ${engine.mode}, default ${engine.default}, time zone ${engine.timeZone}`,
    ...judged.map(({ tool, principal, at, policy }, index) => {
      const who = `${principal.kind} ${principal.subject}`;
      return `${index + 1}. ${tool} by ${who} at ${at}: ${policy.outcome}${describe(policy)}`;
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** The options of `policies check`, or an error saying what is wrong with them. */
function parseOptions(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      schema: { type: 'string' },
      calls: { type: 'string' },
      mode: { type: 'string' },
      default: { type: 'string' },
      'time-zone': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const [subcommand, file, ...rest] = positionals;
  if (subcommand !== 'check') throw new Error(`Unknown subcommand ${JSON.stringify(subcommand ?? '')}: only check.`);
  if (file === undefined) throw new Error('check needs a policy file.');
  if (rest.length > 0) throw new Error(`Unexpected arguments: ${rest.join(' ')}.`);
  if (values.calls === undefined) throw new Error('check needs --calls <calls.json>.');
  return { file, values };
}

/** What decided a call and what it requires, after its outcome. */
function describe(policy: {
  policyIds: string[];
  basis?: string;
  reason?: string;
  requires?: {
    approvers?: { subjects?: string[]; emails?: string[]; groups?: string[] };
    approvals?: number;
    fourEyes?: true;
  };
  shadow?: true;
}): string {
  const by = policy.basis === undefined ? policy.policyIds.join(', ') : `(${policy.basis})`;
  const parts = [by === '' ? '' : ` by ${by}`];
  if (policy.reason !== undefined) parts.push(`: ${policy.reason}`);
  const needs: string[] = [];
  const approvers = policy.requires?.approvers;
  if (approvers !== undefined) {
    needs.push(
      [
        ...(approvers.groups ?? []).map((name) => `group:${name}`),
        ...(approvers.emails ?? []).map((name) => `email:${name}`),
        ...(approvers.subjects ?? []).map((name) => (name.startsWith('slack:') ? name : `sub:${name}`)),
      ].join(', '),
    );
  }
  if (policy.requires?.approvals !== undefined) needs.push(`${policy.requires.approvals} approvals`);
  if (policy.requires?.fourEyes === true) needs.push('four eyes');
  if (needs.length > 0) parts.push(`; requires ${needs.join('; ')}`);
  if (policy.shadow === true) parts.push(' (shadow: nothing decided)');
  return parts.join('');
}
