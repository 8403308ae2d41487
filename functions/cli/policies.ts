import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/**
 * `handback policies check`: an operator's dry run of a policy file (§19) — the file loaded and checked as the
 * service loads it, then each call of a calls file judged as a pause's `approval` ask would be, printed with its
 * outcome, the policies that decided it and what it requires of people. Nothing is stored and no service is needed.
 */

/** One line for `handback --help`. */
export const summary =
  "Policies: check a Cedar policy file and judge calls with it; list a service's shadow-mode outcomes.";

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
not load (file:line:column and Cedar's words), 2 on a usage error.

       handback policies shadow --url <service> --since <ISO 8601> [--json]

Over a running service (GET /policies/shadow, every page): what its policies, in shadow mode, would have decided for
each approval ask since then, against what people did, one line per policy. HANDBACK_TOKEN: a token with the
handback/decide scope (none where auth is off). Exit 1 when the service refuses or cannot be reached.
See docs/policies.md.`;

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
  if (parsed.shadow) return shadow(parsed.values, fail);
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
      url: { type: 'string' },
      since: { type: 'string' },
    },
  });
  const [subcommand, file, ...rest] = positionals;
  if (subcommand === 'shadow') {
    if (file !== undefined) throw new Error(`Unexpected arguments: ${[file, ...rest].join(' ')}.`);
    if (values.url === undefined || values.since === undefined) throw new Error('shadow needs --url and --since.');
    return { shadow: true as const, values: { url: values.url, since: values.since, json: values.json === true } };
  }
  if (subcommand !== 'check') {
    throw new Error(`Unknown subcommand ${JSON.stringify(subcommand ?? '')}: check or shadow.`);
  }
  if (file === undefined) throw new Error('check needs a policy file.');
  if (rest.length > 0) throw new Error(`Unexpected arguments: ${rest.join(' ')}.`);
  if (values.calls === undefined) throw new Error('check needs --calls <calls.json>.');
  return { shadow: false as const, file, values };
}

/** Every page of a service's `GET /policies/shadow` since `since`, printed per policy (or as JSON). */
async function shadow(
  options: { url: string; since: string; json: boolean },
  fail: (message: string, code: number) => number,
): Promise<number> {
  const token = process.env.HANDBACK_TOKEN;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const tallies = new Map<string, ShadowTally>();
  const items: unknown[] = [];
  let cursor: string | undefined;
  do {
    const url = new URL('/policies/shadow', options.url);
    url.searchParams.set('since', options.since);
    url.searchParams.set('limit', '100');
    if (cursor !== undefined) url.searchParams.set('cursor', cursor);
    let page: { policies: ShadowTally[]; items: unknown[]; cursor?: string };
    try {
      const response = await fetch(url, { headers });
      const body = (await response.json()) as typeof page & { detail?: string };
      if (!response.ok) return fail(`${url.origin} answered ${response.status}: ${body.detail ?? ''}`, 1);
      page = body;
    } catch (error) {
      return fail(`${url.origin} could not be read: ${error instanceof Error ? error.message : String(error)}`, 1);
    }
    items.push(...page.items);
    for (const tally of page.policies) {
      const sum = tallies.get(tally.policyId);
      if (sum === undefined) tallies.set(tally.policyId, structuredClone(tally));
      else {
        sum.asks += tally.asks;
        sum.agreed += tally.agreed;
        sum.disagreed += tally.disagreed;
        for (const [key, n] of Object.entries(tally.would)) sum.would[key] = (sum.would[key] ?? 0) + n;
        for (const [key, n] of Object.entries(tally.people)) sum.people[key] = (sum.people[key] ?? 0) + n;
      }
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ since: options.since, policies: [...tallies.values()], items }, null, 2)}\n`,
    );
    return 0;
  }
  const counts = (record: Record<string, number>) =>
    Object.entries(record)
      .map(([key, n]) => `${key} ${n}`)
      .join(', ');
  const lines = [
    `Shadow mode since ${options.since}: ${items.length} asks`,
    ...[...tallies.values()].map(
      (t) =>
        `${t.policyId}: ${t.asks} asks, ${t.agreed} agreed, ${t.disagreed} disagreed; would ${counts(t.would)}; people ${counts(t.people)}`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** One policy's tally, as the service sends it. */
interface ShadowTally {
  policyId: string;
  asks: number;
  agreed: number;
  disagreed: number;
  would: Record<string, number>;
  people: Record<string, number>;
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
