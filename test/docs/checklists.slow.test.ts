import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECTS, Project } from './compiler.ts';
import { readPage } from './markdown.ts';

/**
 * The checklists of docs/architecture.md for the lists of names code must handle, held to the compiler: each case
 * adds a name to its list (`functions/vocabulary.ts`, in memory), type-checks the sources and the inbox page as
 * `npm run typecheck` does (the tests aside: a new name's tests are a step of their own), and expects the checklist's
 * lines to name exactly the files the errors are in. One program per step, on a compiler host that keeps every other
 * file parsed.
 */

const VOCABULARY = 'functions/vocabulary.ts';
const WIRE = 'functions/wire-decisions.ts';

/** `text` with `name` added at the end of the `as const` list `list`. */
function withName(text: string, list: string, name: string): string {
  const pattern = new RegExp(`(export const ${list} = \\[[^\\]]*?),?(\\s*)\\]`);
  if (!pattern.test(text)) throw new Error(`${VOCABULARY} has no list ${list}.`);
  return text.replace(pattern, `$1, '${name}'$2]`);
}

const vocabulary = readPage(VOCABULARY);

/** A decision kind's shapes as a newcomer would write them in `DECISIONS`: the step the compiler names first. */
function withDelegateShapes(text: string): string {
  const body = "z.object({ decision: z.literal('delegate'), to: z.string() })";
  const line = `delegate: { request: z.defer(() => z.extend(${body}, { toolCallId: z.string(), ...seen() })), body: z.defer(() => ${body}), recorded: z.defer(() => z.extend(${body}, recordedBy())), vote: z.defer(() => z.extend(${body}, votedBy())) },`;
  if (!text.includes('const DECISIONS = {')) throw new Error(`${WIRE} has no DECISIONS table.`);
  return text.replace('const DECISIONS = {', `const DECISIONS = {\n  ${line}`);
}

/** Each checklist, by its bold title, and the steps of adding a name: each step's files as they then read. */
const CASES: Array<{ checklist: string; steps: Array<Record<string, string>> }> = [
  { checklist: 'A channel.', steps: [{ [VOCABULARY]: withName(vocabulary, 'CHANNEL_NAMES', 'teams') }] },
  {
    checklist: 'A decision kind.',
    steps: [
      { [VOCABULARY]: withName(vocabulary, 'DECISION_KINDS', 'delegate') },
      { [VOCABULARY]: withName(vocabulary, 'DECISION_KINDS', 'delegate'), [WIRE]: withDelegateShapes(readPage(WIRE)) },
    ],
  },
  { checklist: 'A door.', steps: [{ [VOCABULARY]: withName(vocabulary, 'VIAS', 'webhook') }] },
  {
    checklist: 'A trigger.',
    steps: [{ [VOCABULARY]: withName(withName(vocabulary, 'VIAS', 'kinesis'), 'TRIGGER_VIAS', 'kinesis') }],
  },
  { checklist: 'An adapter.', steps: [{ [VOCABULARY]: withName(vocabulary, 'ADAPTER_NAMES', 'mastra') }] },
];

/**
 * A checklist's parts: the files named before its lines (the list's own module), the files its lines name (each line
 * one), and whether it ends with what no compiler sees ("Beyond the compiler", where any file may be named).
 */
function checklistOf(title: string, page = readPage('docs/architecture.md')) {
  const start = page.indexOf(`**${title}**`);
  if (start < 0) throw new Error(`docs/architecture.md has no checklist **${title}**.`);
  const next = page.slice(start + 2).search(/\n\*\*[^*]+\*\*/);
  const block = page.slice(start, next < 0 ? undefined : start + 2 + next);
  const paths = (text: string) =>
    [...text.matchAll(/`((?:functions|infra|scripts|examples|bench)\/[^`\s]+)`/g)].map((match) => match[1] as string);
  const linesAt = block.indexOf('\n- ');
  const beyondAt = block.indexOf('\nBeyond the compiler');
  const lines =
    linesAt < 0
      ? []
      : block
          .slice(linesAt, beyondAt < 0 ? undefined : beyondAt)
          .split('\n- ')
          .slice(1);
  return { lead: paths(block.slice(0, linesAt)), lines: lines.map(paths), beyond: beyondAt >= 0 };
}

/** The sources the checklists cover: what `npm run typecheck` checks, the tests aside. */
const isSource = (file: string) => !file.startsWith('test/');

describe('the checklists of docs/architecture.md', () => {
  const projects = PROJECTS.map((tsconfig) => new Project(tsconfig, isSource));

  // The first check parses every file (the host keeps them for the cases): the sources as they are compile.
  beforeAll(() => {
    for (const project of projects) expect([...project.errorsWith({}, isSource).keys()]).toEqual([]);
  }, 300_000);

  it.each(CASES)(
    'name exactly the files the compiler names: $checklist',
    ({ checklist, steps }) => {
      const { lines, lead, beyond } = checklistOf(checklist);
      // One file a line, the list's own module named before them, what no compiler sees after them.
      expect(lines.length, checklist).toBeGreaterThan(0);
      expect(
        lines.filter((named) => named.length !== 1),
        checklist,
      ).toEqual([]);
      expect(lead, checklist).toEqual([VOCABULARY]);
      expect(beyond, checklist).toBe(true);

      const reported = new Map<string, string[]>();
      for (const overrides of steps) {
        for (const project of projects) {
          for (const [file, errors] of project.errorsWith(overrides, isSource)) {
            reported.set(file, [...(reported.get(file) ?? []), ...errors]);
          }
        }
      }
      const named = lines.map((each) => each[0] as string).sort();
      expect(
        [...reported.keys()].sort(),
        `${checklist} names ${named.join(', ')}; the compiler: ${[...reported].map(([file, errors]) => `${file} (${errors[0]})`).join('; ')}`,
      ).toEqual(named);
    },
    300_000,
  );
});
