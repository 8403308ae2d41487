import type { DecisionStats, ToolStats } from '../../wire-reports.ts';
import { duration } from './duration.ts';
import { problemText } from './problems.ts';
import type { Problem } from './types.ts';

/**
 * "How decisions are going" (§21), a chunk of its own (`stats-<hash>.js`) that the page imports only when it is
 * opened, so the page's script stays within its budget. Plain DOM, no Preact: the page hands it an element and a way
 * to read `GET /stats`. For the last day, 7 or 30 days: a bar chart (SVG) of each tool's median and 90th percentile
 * time to decision, hidden from screen readers, and the same numbers as text in two tables, which is what they read.
 * Tenant text (tool names) is only ever set as text, never as markup.
 */

/** What the page gives the chunk: `GET /stats` for a window, and what to do when it needs signing in again. */
export interface StatsHost {
  load(since: string, until: string): Promise<{ ok: true; body: DecisionStats } | { ok: false; problem: Problem }>;
  onUnauthorized(problem: Problem): void;
}

const WINDOWS = [
  ['Last day', 1],
  ['7 days', 7],
  ['30 days', 30],
] as const;
const DAY_MS = 86_400_000;
const SVG = 'http://www.w3.org/2000/svg';
/** Tools drawn in the chart at most; the tables list every one. */
const CHART_TOOLS = 12;

/** Renders the page into `root` and loads the last 7 days. */
export function mountStats(root: HTMLElement, host: StatsHost): void {
  const status = el('p', { class: 'meta', role: 'status' });
  const buttons = WINDOWS.map(([label, days]) => {
    const button = el('button', { type: 'button', 'aria-pressed': 'false' }, label);
    button.addEventListener('click', () => void show(days));
    return button;
  });
  const toolbar = el('div', { class: 'toolbar' }, status, el('div', { class: 'choices' }, ...buttons));
  const body = el('div');
  root.replaceChildren(toolbar, body);

  let shown = 0;
  const show = async (days: number) => {
    const asked = ++shown;
    for (const [i, [, d]] of WINDOWS.entries()) buttons[i]?.setAttribute('aria-pressed', String(d === days));
    status.textContent = 'Loading…';
    const until = new Date();
    const since = new Date(until.getTime() - days * DAY_MS);
    const result = await host.load(since.toISOString(), until.toISOString());
    // A slower answer for a window no longer asked for is dropped.
    if (asked !== shown) return;
    if (!result.ok) {
      if (result.problem.status === 401) host.onUnauthorized(result.problem);
      status.textContent = '';
      body.replaceChildren(el('p', { class: 'error', role: 'alert' }, problemText(result.problem)));
      return;
    }
    const { tools } = result.body;
    const asks = tools.reduce((sum, tool) => sum + asksOf(tool), 0);
    const span = days === 1 ? 'the last day' : `the last ${days} days`;
    status.textContent =
      asks === 0 ? `No requests in ${span}.` : `${plural(asks, 'ask')} of ${plural(tools.length, 'tool')} in ${span}.`;
    body.replaceChildren(...(tools.length === 0 ? [] : [chart(tools), timesTable(tools), outcomesTable(tools)]));
  };
  void show(7);
}

/** The chart: per tool, a dark bar for the median and a grey one for the 90th percentile, to the largest p90. */
function chart(tools: ToolStats[]): HTMLElement {
  const drawn = tools.filter((tool) => tool.timeToDecisionMs.p90 !== null).slice(0, CHART_TOOLS);
  const top = Math.max(1, ...drawn.map((tool) => tool.timeToDecisionMs.p90 ?? 0));
  const width = 320;
  const row = 34;
  const svg = svgEl('svg', { viewBox: `0 0 ${width} ${Math.max(1, drawn.length) * row}`, 'aria-hidden': 'true' });
  drawn.forEach((tool, i) => {
    const y = i * row;
    const label = svgEl('text', { x: '0', y: String(y + 11), class: 'tool' });
    label.textContent = clip(tool.tool, 44);
    const bar = (ms: number | null, dy: number, kind: string) =>
      svgEl('rect', {
        x: '0',
        y: String(y + dy),
        height: '8',
        width: String(Math.max(1, ((ms ?? 0) / top) * (width - 60))),
        class: kind,
      });
    const value = svgEl('text', {
      x: String(Math.max(1, ((tool.timeToDecisionMs.p90 ?? 0) / top) * (width - 60)) + 4),
      y: String(y + 30),
    });
    value.textContent = duration(tool.timeToDecisionMs.p90);
    svg.append(label, bar(tool.timeToDecisionMs.p50, 14, 'p50'), bar(tool.timeToDecisionMs.p90, 23, 'p90'), value);
  });
  const caption = el(
    'figcaption',
    {},
    drawn.length === 0
      ? 'No decisions by people in this window to draw.'
      : 'Time to decision per tool: the dark bar is the median, the grey one the 90th percentile (the same numbers are in the table below).',
  );
  return el('figure', { class: 'chart' }, caption, ...(drawn.length === 0 ? [] : [svg]));
}

function timesTable(tools: ToolStats[]): HTMLElement {
  return table(
    'Time from the request to a person’s decision',
    ['Tool', 'Median', '90th percentile', 'Longest', 'Decided by people'],
    tools.map((tool) => [
      tool.tool,
      duration(tool.timeToDecisionMs.p50),
      duration(tool.timeToDecisionMs.p90),
      duration(tool.timeToDecisionMs.max),
      String(tool.outcomes.approve + tool.outcomes.edit + tool.outcomes.reject),
    ]),
  );
}

function outcomesTable(tools: ToolStats[]): HTMLElement {
  return table(
    'What became of the asks, and what still waits',
    ['Tool', 'Approved', 'Edited', 'Rejected', 'Expired', 'Cancelled', 'By policy', 'Waiting', 'Oldest waiting'],
    tools.map(({ tool, outcomes: o, pending, oldestPendingSeconds }) => [
      tool,
      ...[o.approve, o.edit, o.reject, o.expired, o.cancelled, o.policy, pending].map(String),
      oldestPendingSeconds === null ? 'none' : duration(oldestPendingSeconds * 1000),
    ]),
  );
}

/** A table with a caption and column headers, each row's first cell its header, scrolling sideways on its own. */
function table(caption: string, heads: string[], rows: string[][]): HTMLElement {
  const head = el('tr', {}, ...heads.map((text) => el('th', { scope: 'col' }, text)));
  const lines = rows.map(([first, ...rest]) =>
    el('tr', {}, el('th', { scope: 'row', dir: 'auto' }, first ?? ''), ...rest.map((text) => el('td', {}, text))),
  );
  const grid = el('table', {}, el('caption', {}, caption), el('thead', {}, head), el('tbody', {}, ...lines));
  // A region one can focus, so a keyboard can scroll a wide table at 375 px (WCAG 2.1.1, 1.4.10).
  return el('div', { class: 'scroll', role: 'region', tabindex: '0', 'aria-label': caption }, grid);
}

function asksOf(tool: ToolStats): number {
  return Object.values(tool.outcomes).reduce((sum, n) => sum + n, tool.pending);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function clip(text: string, chars: number): string {
  const points = [...text];
  return points.length <= chars ? text : `${points.slice(0, chars - 1).join('')}…`;
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

function svgEl(tag: string, attributes: Record<string, string>): SVGElement {
  const node = document.createElementNS(SVG, tag) as SVGElement;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}
