import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isBearer, ROUTES, type RouteSpec } from '../../functions/handlers/routes.ts';
import { SCOPES } from '../../functions/vocabulary.ts';
import { readPage } from './markdown.ts';

/**
 * docs/identities.md states which routes each scope opens; the route table (`functions/handlers/routes.ts`) decides
 * it. This test makes the page's table from the route table, so the two cannot drift.
 */

/** Who may call a route, in the page's words. */
function whoMayCall(route: RouteSpec): string {
  if (isBearer(route)) return route.scopes.map((scope) => `\`${scope}\``).join(' or ');
  switch (route.scopes) {
    case 'public':
      return 'anyone (no token)';
    case 'link':
      return 'an answer link (`x-handback-link`)';
    case 'slack':
      return 'Slack (its request signature)';
  }
  throw new Error(`no words for the access ${String(route.scopes)} of ${route.id}`);
}

/** The page's table, as the route table makes it: a route and who may call it, each row. */
function routeAccessRows(): string[][] {
  return ROUTES.map((route: RouteSpec) => [`\`${route.method} ${route.path}\``, whoMayCall(route)]);
}

/** The rows of the page's tables whose first cell is a route. */
function routeRowsOf(page: string): string[][] {
  return page
    .split('\n')
    .filter((line) => /^\|\s*`(GET|POST|PUT|DELETE) \//.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
}

describe('docs/identities.md', () => {
  const page = readPage('docs/identities.md');

  it("shows the route table's access for every route, in its order", () => {
    expect(routeRowsOf(page)).toEqual(routeAccessRows());
  });

  it('names both scopes and every principal kind §13 records', () => {
    for (const word of [...Object.values(SCOPES), '`person`', '`agent`', '`link`', '`service`']) {
      expect(page).toContain(word);
    }
  });

  it('states the threat model for an agent, a link holder, a Slack user, a person with a token and a trigger', () => {
    const threat = page.slice(page.indexOf('## The threat model'));
    for (const who of [
      "**An agent's credential**",
      '**A link holder**',
      '**A Slack user**',
      "**A person's\ncredential**",
      '**A trigger**',
    ]) {
      expect(threat.replace(/\s+/g, ' ')).toContain(who.replace(/\s+/g, ' '));
    }
  });

  it('names, in each cell of its table of doors and rules, a test that exists', () => {
    const table = page.slice(page.indexOf('### Every door, every rule'));
    const rows = table
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| door') && !line.startsWith('| ---'));
    expect(rows.length).toBeGreaterThanOrEqual(7);
    const named = [...page.matchAll(/`((?:test|functions)\/[\w./-]+\.ts)` › "([^"]+)"/g)];
    for (const row of rows) {
      const cells = row.split(' | ').slice(1);
      expect(cells.length).toBe(4);
      for (const cell of cells) expect(cell, row).toMatch(/^`(test|functions)\/[\w./-]+\.ts` › "[^"]+"/);
    }
    expect(named.length).toBeGreaterThan(30);
    for (const [, file, name] of named) {
      const source = readFileSync(file as string, 'utf8').replace(/\s*\n\s*/g, ' ');
      expect(source, `${file} › ${name}`).toContain(`'${(name as string).replace(/\s*\n\s*/g, ' ')}'`);
    }
  });
});
