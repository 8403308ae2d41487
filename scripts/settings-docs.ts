import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SETTINGS, type Setting, type SettingName } from '../functions/settings.ts';
import { SETTING_DOCS, type SettingDocs } from '../functions/settings-docs.ts';
import { routesOf, SCIM_ROUTE, THROTTLE_DEFAULTS, THROTTLE_GROUPS } from '../infra/throttles.ts';

/**
 * `npm run docs:settings`: writes the docs' tables of settings from the one table, `functions/settings.ts`, and its
 * words (`functions/settings-docs.ts`):
 * docs/local.md's environment variables (every setting `npm start` reads), docs/deploy.md's context keys (every
 * setting the stack takes from context or a prop) and the functions' environment (every variable a Lambda function
 * reads, and what sets it); and docs/deploy.md's throttle groups (`infra/throttles.ts`, their routes from the route
 * table). Each table sits between `<!-- settings:<name> -->` and `<!-- /settings:<name> -->`; the
 * rest of each page is its own. `test/docs/configuration.test.ts` holds the committed pages to what this makes.
 */

/** A setting with its name in `SETTINGS` and its words. */
type Row = Setting & SettingDocs & { name: string };

const ROWS: Row[] = Object.entries(SETTINGS).map(([name, setting]) => ({
  name,
  ...(setting as Setting),
  ...SETTING_DOCS[name as SettingName],
}));

/** A value as the docs show it, in backticks. */
const code = (value: string | number | boolean) => `\`${value}\``;

/** What a setting is when unset: its default, its words for unset, or a dash. */
function defaultCell(row: Row): string {
  if (row.unset !== undefined && row.default === undefined) return row.unset;
  if (row.default === undefined) return '—';
  return row.unset === undefined ? code(row.default) : `${code(row.default)}; ${row.unset}`;
}

/** A markdown table, its columns padded to their widest cell as the formatter pads them. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`, ...rows.map(line)].join('\n');
}

/** Every variable `npm start` reads. */
function localTable(): string {
  return table(
    ['variable', 'effect', 'default'],
    ROWS.filter((row) => row.env !== undefined && row.read?.includes('local')).map((row) => [
      code(row.env as string),
      row.description,
      defaultCell(row),
    ]),
  );
}

/** The props without a context key: only an app of your own gives them. */
const PROP_ONLY = [['—', code('agent'), '—', 'the example agent', 'your agent Lambda for the reference workflow']];

/** Every context key the stack reads, with its prop and the variable it sets on the functions. */
function contextTable(): string {
  return table(
    ['context key', 'prop', 'variable', 'default', 'what'],
    [
      ...ROWS.filter((row) => row.context !== undefined).map((row) => [
        code(row.context as string),
        row.prop === undefined ? '(context only)' : code(row.prop),
        row.env !== undefined && row.read?.includes('lambda') ? code(row.env) : '—',
        defaultCell(row),
        row.description,
      ]),
      ...PROP_ONLY,
    ],
  );
}

/** Every variable a Lambda function reads, and what sets it. */
function lambdaTable(): string {
  const setBy = (row: Row) =>
    row.setBy === 'lambda'
      ? 'Lambda'
      : row.context !== undefined
        ? code(row.context)
        : row.setBy === 'stack'
          ? 'the stack'
          : "you, in the function's configuration";
  return table(
    ['variable', 'set by', 'what'],
    ROWS.filter((row) => row.env !== undefined && row.read?.includes('lambda')).map((row) => [
      code(row.env as string),
      setBy(row),
      row.description,
    ]),
  );
}

/** The HTTP API's throttle groups (§23, `handback:throttles`): each group's routes, from the route table, and its default. */
function throttlesTable(): string {
  return table(
    ['group', 'routes', 'default requests/s / burst, per route', 'what'],
    THROTTLE_GROUPS.map((group) => {
      // SCIM's route, outside the route table, is the stack's only with `handback:scim`.
      const scim = group === 'scim' ? [`${SCIM_ROUTE.method} ${SCIM_ROUTE.path}`] : [];
      const routes = [...routesOf(group), ...scim];
      const { rate, burst, holds } = THROTTLE_DEFAULTS[group];
      return [
        code(group),
        `${routes.length === 0 ? '(none yet)' : routes.map(code).join(', ')}${scim.length === 0 ? '' : ' (with `handback:scim`)'}`,
        `${rate.toLocaleString('en-US')} / ${burst.toLocaleString('en-US')}`,
        holds,
      ];
    }),
  );
}

/** The generated tables, by the page and the name of the region each fills. */
export const SETTINGS_TABLES: ReadonlyArray<{ page: string; region: string; render: () => string }> = [
  { page: 'docs/local.md', region: 'local', render: localTable },
  { page: 'docs/deploy.md', region: 'context', render: contextTable },
  { page: 'docs/deploy.md', region: 'lambda', render: lambdaTable },
  { page: 'docs/deploy.md', region: 'throttles', render: throttlesTable },
];

/** `text` with the region `name` holding `body`; throws when the page has no such region. */
export function withRegion(text: string, name: string, body: string): string {
  const open = `<!-- settings:${name} -->`;
  const close = `<!-- /settings:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`No region ${open} … ${close} in the page.`);
  return `${text.slice(0, start + open.length)}\n\n${body}\n\n${text.slice(end)}`;
}

/** Each page as the generator makes it, from its text now (`read` gives a page's text by its path). */
export function settingsPages(read: (page: string) => string): Map<string, string> {
  const pages = new Map<string, string>();
  for (const { page, region, render } of SETTINGS_TABLES) {
    pages.set(page, withRegion(pages.get(page) ?? read(page), region, render()));
  }
  return pages;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = new URL('..', import.meta.url);
  const path = (page: string) => fileURLToPath(new URL(page, root));
  for (const [page, text] of settingsPages((page) => readFileSync(path(page), 'utf8'))) {
    writeFileSync(path(page), text);
    console.log(`Wrote ${page}`);
  }
}
