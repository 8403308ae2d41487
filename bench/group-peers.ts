import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { handbackTrusted, handbackValidating } from './group-rehydrate.ts';
import { type Comparison, compare } from './measure.ts';
import type { GroupOptions } from './options.ts';
import { ANSWER, floorResume, transcript } from './transcripts.ts';

/**
 * Group 5, the peers' resume cost on the same transcripts, in the same process run, interleaved with the floor and
 * Handback: LangGraph (`invoke(new Command({resume}))`, MemorySaver) on the langchain transcript, OpenAI Agents
 * (`RunState.fromString`, and the whole resume to the final output with a fake model) on the openai-responses one,
 * and AWS durable functions' replay after 0, 10 and 100 earlier steps (local test runner).
 *
 * The peer modules live in bench/peers/ with their own packages; they are imported by a computed path so that
 * `tsc` (which checks bench/*.ts) never follows them into packages the product does not have.
 */

interface PreparedResume {
  resume(): Promise<unknown>;
  storedBytes: number;
  fromStringOnly?(): Promise<unknown>;
}
interface PeerInput {
  messages: unknown[];
  callIds: [string, string, string];
  toolCallId: string;
  answer: unknown;
}
interface TranscriptPeer {
  prepare(input: PeerInput): Promise<PreparedResume>;
}
interface DurablePeer {
  prepare(steps: number, answer: unknown): Promise<PreparedResume>;
  teardown(): Promise<void>;
}

const PEERS_DIR = join(import.meta.dirname, 'peers');

/** Imports bench/peers/<name>.ts by a path `tsc` does not resolve. */
export async function importPeer<T>(name: string): Promise<T> {
  const url = pathToFileURL(join(PEERS_DIR, `${name}.ts`)).href;
  return (await import(url)) as T;
}

export const PEER_SIZES = [10, 100, 1_000, 10_000] as const;

/** One transcript length: Handback, the floors and the peers, with what each stores. */
export interface PeersRow extends Comparison {
  messages: number;
  /** Bytes of the transcript's JSON (langchain format / openai-responses format). */
  jsonBytes: { langchain: number; openaiResponses: number };
  /** Bytes each peer keeps for one pause. */
  storedBytes: Record<string, number>;
}

/** Durable functions: resume after `steps` earlier steps. */
export interface DurableRow extends Comparison {
  steps: number;
  /** The resume minus the same resume after 0 steps: what replaying the earlier steps costs. */
  replayUs: number;
}

export interface PeersResult {
  transcripts: PeersRow[];
  durable: DurableRow[];
  /** Why a peer could not be measured. */
  errors: string[];
}

export async function runPeers(options: GroupOptions): Promise<PeersResult> {
  const langgraph = await importPeer<TranscriptPeer>('langgraph');
  const agents = await importPeer<TranscriptPeer>('openai-agents');
  const errors: string[] = [];
  const transcripts: PeersRow[] = [];
  const sizes = options.quick ? PEER_SIZES.slice(0, 2) : PEER_SIZES;
  for (const size of sizes) {
    const lc = transcript('langchain', size);
    const rs = transcript('openai-responses', size);
    const input = (t: typeof lc): PeerInput => ({
      messages: t.messages,
      callIds: t.callIds,
      toolCallId: t.toolCallId,
      answer: ANSWER,
    });
    const lgProbe = await langgraph.prepare(input(lc));
    const oaProbe = await agents.prepare(input(rs));
    const rounds = options.quick ? 4 : size >= 10_000 ? 5 : size >= 1_000 ? 10 : 25;
    const result = await compare(
      [
        { name: 'floor', run: () => floorResume(lc) },
        { name: 'floor (openai-responses)', run: () => floorResume(rs) },
        { name: 'handback trusted', run: () => handbackTrusted(lc) },
        { name: 'handback validating', run: () => handbackValidating(lc) },
        {
          name: 'handback trusted (openai-responses)',
          run: () => handbackTrusted(rs),
          floor: 'floor (openai-responses)',
        },
        {
          name: 'langgraph Command({resume})',
          prepare: async () => {
            const p = await langgraph.prepare(input(lc));
            return () => p.resume();
          },
        },
        {
          name: 'openai-agents RunState.fromString',
          floor: 'floor (openai-responses)',
          prepare: async () => {
            const p = await agents.prepare(input(rs));
            return () => p.fromStringOnly?.();
          },
        },
        {
          name: 'openai-agents fromString + run',
          floor: 'floor (openai-responses)',
          prepare: async () => {
            const p = await agents.prepare(input(rs));
            return () => p.resume();
          },
        },
      ],
      'floor',
      { rounds, warmup: options.quick ? 1 : 2 },
    );
    transcripts.push({
      messages: lc.messages.length,
      jsonBytes: { langchain: Buffer.byteLength(lc.text), openaiResponses: Buffer.byteLength(rs.text) },
      storedBytes: { 'langgraph MemorySaver': lgProbe.storedBytes, 'openai-agents RunState': oaProbe.storedBytes },
      ...result,
    });
    options.log(
      `peers ${size} msgs: floor ${result.stats.floor?.medianUs.toFixed(0)} µs; ${Object.entries(result.ratios)
        .map(([name, ratio]) => `${name} ×${ratio.toFixed(1)}`)
        .join(', ')}`,
    );
  }

  const durableRows: DurableRow[] = [];
  try {
    const durable = await importPeer<DurablePeer>('durable');
    const baseline = (steps: number) => ({
      name: `durable ${steps} steps`,
      prepare: async () => {
        const p = await durable.prepare(steps, ANSWER);
        return () => p.resume();
      },
    });
    for (const steps of [10, 100]) {
      const t = transcript('openai-chat', steps);
      const result = await compare(
        [{ name: 'floor', run: () => floorResume(t) }, baseline(0), baseline(steps)],
        'floor',
        { rounds: options.quick ? 3 : 15, warmup: 1 },
      );
      const replayUs =
        (result.stats[`durable ${steps} steps`]?.medianUs ?? Number.NaN) -
        (result.stats['durable 0 steps']?.medianUs ?? Number.NaN);
      durableRows.push({ steps, replayUs, ...result });
      options.log(
        `durable ${steps} steps: resume ${result.stats[`durable ${steps} steps`]?.medianUs.toFixed(0)} µs, after 0 steps ${result.stats['durable 0 steps']?.medianUs.toFixed(0)} µs, replay ${replayUs.toFixed(0)} µs`,
      );
    }
    await durable.teardown();
  } catch (error) {
    errors.push(`durable: ${(error as Error).message}`);
    options.log(`durable failed: ${(error as Error).stack}`);
  }
  return { transcripts, durable: durableRows, errors };
}
