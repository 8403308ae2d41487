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
    .filter((line) => /^\|\s*`(GET|POST) \//.test(line))
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

  it('states the threat model for an agent, a person, a link and a trigger', () => {
    const threat = page.slice(page.indexOf('## What each credential can and cannot do'));
    for (const who of ["**An agent's credential**", "**A person's\ncredential**", '**A link**', '**A trigger**']) {
      expect(threat.replace(/\s+/g, ' ')).toContain(who.replace(/\s+/g, ' '));
    }
  });
});
