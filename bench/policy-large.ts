import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCedar } from '../functions/policies/cedar.ts';
import { createPolicyEngine } from '../functions/policies/engine.ts';
import { loadPolicies } from '../functions/policies/load.ts';
import { policyTranscript } from '../functions/testing/fixtures.ts';
import { REPO } from './bundle.ts';
import { quantile } from './measure.ts';
import type { GroupOptions } from './options.ts';

/**
 * Group 9's large-argument rows (§19): `npm start` (a child process, its own event loop) paused with a body of about
 * 5.9 MB — 16 approval asks of a tool whose `tags` argument is a declared `Set<String>` — while this process asks
 * `GET /health` every 5 ms. Three configurations: no policy file (the pause's own cost), a policy file with each ask's
 * set within the bounds (1,000 elements, the rest of the body an undeclared argument), and a policy file with each
 * ask's set far past them (12,000 elements: fail closed, `policy:error`). What it shows: how long the pause
 * takes, and the worst wait of a `/health` asked meanwhile — the time the service could not answer anyone else.
 */

/** One configuration's pauses, with `/health` asked all along. */
export interface PolicyLargeRow {
  name: string;
  /** The pause body's bytes. */
  bodyBytes: number;
  asks: number;
  samples: number;
  /** The pause request, start to answer (median of the samples). */
  pauseMs: number;
  /** The worst `/health` wait during any of the samples' pauses. */
  healthWorstMs: number;
  /** `/health` answers during the pauses, all samples together. */
  healthAnswers: number;
  /** What the pause answered: 201 (waits for people) or 200 (closed by the policies). */
  status: number;
  /**
   * One ask's evaluation in this process (the engine `npm start` loads, on the same arguments), after a warm-up: what
   * judging holds the event loop for between two yields (§19: at most 100 ms). Absent without a policy file.
   */
  evaluation?: { medianMs: number; maxMs: number; runs: number };
}

const POLICIES = `@id("urgent-tags-wait")
permit(principal, action == Handback::Action::"call", resource == Handback::Tool::"tag_items")
when { context.args has tags && context.args.tags.contains("urgent") };
`;
const ARGS = 'namespace Handback { type Args = { tags?: Set<String> }; }';
const ASKS = 16;
/** About 5.9 MB of body: under the 6 MB pause limit. */
const BODY_BYTES = 5.9 * 1024 * 1024;

/** The evaluation of one ask of `body(tagCount)`, timed `runs` times in this process after two warm-up runs. */
function evaluationOf(tagCount: number, runs: number): { medianMs: number; maxMs: number; runs: number } {
  const cedar = loadCedar();
  const engine = createPolicyEngine(
    cedar,
    loadPolicies(
      cedar,
      { file: 'policies.cedar', text: POLICIES },
      { file: 'handback.cedarschema', text: readFileSync(join(REPO, 'handback.cedarschema'), 'utf8') },
      { file: 'args.cedarschema', text: ARGS },
    ),
  );
  const [call] = (
    JSON.parse(body(tagCount)) as { messages: Array<{ tool_calls?: Array<{ function: { arguments: string } }> }> }
  ).messages.flatMap((message) => message.tool_calls ?? []);
  const args = JSON.parse(call?.function.arguments ?? '{}') as Record<string, unknown>;
  const evaluate = () =>
    engine.evaluate({
      principal: { kind: 'agent', subject: 'bench' },
      tool: 'tag_items',
      args,
      runId: 'bench',
      tenant: 'bench',
      format: 'openai-chat',
      now: new Date(),
    });
  evaluate();
  evaluate();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    evaluate();
    times.push(performance.now() - started);
  }
  return { medianMs: quantile(times, 0.5), maxMs: Math.max(...times), runs };
}

/** A pause body of 16 `tag_items` calls: `tags` of `tagCount` elements each, padded with `note` to BODY_BYTES. */
function body(tagCount: number, bytes = BODY_BYTES): string {
  const tags = ['urgent', ...Array.from({ length: tagCount }, (_, i) => `tag-${i.toString(36).padStart(6, '0')}`)];
  const made = (pad: number) => {
    const calls = Array.from(
      { length: ASKS },
      (_, i) => [`call_${i}`, 'tag_items', { tags, note: 'n'.repeat(pad) }] as const,
    );
    return JSON.stringify({
      format: 'openai-chat',
      messages: policyTranscript(calls),
      asks: calls.map(([toolCallId]) => ({ toolCallId, kind: 'approval' })),
    });
  };
  // The note is undeclared: the policies never see it; it makes the body the size asked.
  return made(Math.max(0, Math.floor((bytes - made(0).length) / ASKS)));
}

/** Starts `npm start` (as `node --import tsx functions/local/main.ts`) with `env`; its URL once it listens. */
async function start(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'functions/local/main.ts'], {
    cwd: REPO,
    env: { ...process.env, DYNAMODB_ENDPOINT: '', LOG_LEVEL: 'ERROR', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not listen in 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Handback listening on (http:\/\/\S+:\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
  });
  return { url, child };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Pauses `text` at `url` while asking /health every 5 ms: the pause's time and status, and every /health wait. */
async function pauseWatched(url: string, runId: string, text: string) {
  const waits: number[] = [];
  let done = false;
  const watcher = (async () => {
    while (!done) {
      const asked = performance.now();
      await (await fetch(`${url}/health`)).text();
      waits.push(performance.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  // A first /health before the pause goes out, so the watcher's connection is open.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const started = performance.now();
  const response = await fetch(`${url}/runs/${runId}/pauses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: text,
  });
  const answer = await response.text();
  const pauseMs = performance.now() - started;
  if (response.status >= 400) console.error(answer.slice(0, 500));
  done = true;
  await watcher;
  return { pauseMs, status: response.status, waits };
}

/** The three configurations, `samples` pauses each. */
export async function measureLarge(options: GroupOptions): Promise<PolicyLargeRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'handback-bench-policy-'));
  writeFileSync(join(dir, 'policies.cedar'), POLICIES);
  writeFileSync(join(dir, 'args.cedarschema'), ARGS);
  const withPolicies = {
    HANDBACK_POLICIES: join(dir, 'policies.cedar'),
    HANDBACK_POLICY_SCHEMA: join(dir, 'args.cedarschema'),
  };
  const samples = options.quick ? 1 : 5;
  const configurations = [
    { name: 'no policy file', env: {}, tags: 999 },
    { name: 'policies, each set within the bounds (1,000 elements)', env: withPolicies, tags: 999 },
    { name: 'policies, each set past the bounds (fail closed)', env: withPolicies, tags: 12_000 },
  ];
  const rows: PolicyLargeRow[] = [];
  try {
    for (const configuration of configurations) {
      const text = body(configuration.tags);
      const { url, child } = await start(configuration.env);
      try {
        // Warm up: the format, the checks and Cedar's first evaluation, with a small pause of the same tool.
        await pauseWatched(url, 'warm-up', body(10, 0));
        const times: number[] = [];
        const waits: number[] = [];
        let status = 0;
        for (let i = 0; i < samples; i++) {
          const watched = await pauseWatched(url, `large-${i}`, text);
          times.push(watched.pauseMs);
          waits.push(...watched.waits);
          status = watched.status;
        }
        const row = {
          name: configuration.name,
          bodyBytes: Buffer.byteLength(text),
          asks: ASKS,
          samples,
          pauseMs: quantile(times, 0.5),
          healthWorstMs: Math.max(...waits),
          healthAnswers: waits.length,
          status,
          ...(configuration.env === withPolicies
            ? { evaluation: evaluationOf(configuration.tags, options.quick ? 5 : 30) }
            : {}),
        };
        options.log(
          `${row.name}: ${(row.bodyBytes / 1024 / 1024).toFixed(1)} MB pause ${row.pauseMs.toFixed(0)} ms (${row.status}), /health worst ${row.healthWorstMs.toFixed(0)} ms over ${row.healthAnswers} answers${row.evaluation === undefined ? '' : `, one ask's evaluation ${row.evaluation.medianMs.toFixed(1)} ms (max ${row.evaluation.maxMs.toFixed(1)})`}`,
        );
        rows.push(row);
      } finally {
        await stop(child);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
