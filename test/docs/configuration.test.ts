import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_FATES } from '../../functions/errors.ts';
import { EdgeCode } from '../../functions/handlers/problem.ts';
import { SETTINGS } from '../../functions/settings.ts';
import { CONTEXT, DEFAULT_RETENTION_DAYS } from '../../infra/settings.ts';
import { SETTINGS_TABLES, settingsPages } from '../../scripts/settings-docs.ts';
import { prose, ROOT, readPage } from './markdown.ts';

/**
 * The tables of settings and problems in the docs name what the code reads and answers: the settings' tables of
 * docs/local.md and docs/deploy.md are generated from `functions/settings.ts`, whose rows say who reads each, and the
 * readers read exactly those; every problem code has its status (docs/http-api.md).
 */

/** The names of `functions/settings.ts` a source reads: `S.name`, and `{ name as ALIAS }` imported from it. */
function settingsNamed(source: string): string[] {
  const names = [...source.matchAll(/\bS\.([a-zA-Z0-9]+)\b/g)].map((match) => match[1] as string);
  for (const [, list] of source.matchAll(/import \{([^}]*)\} from '[./a-z]*\/settings\.ts'/g)) {
    for (const item of (list as string).split(',')) {
      const name = item
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0];
      if (name !== undefined && name !== '' && name in SETTINGS) names.push(name);
    }
  }
  return names;
}

/** The body of the function `name` in `source`, up to the next top-level `export`. */
function functionBody(source: string, name: string): string {
  const start = source.indexOf(`export function ${name}(`);
  expect(start, `a function ${name}`).toBeGreaterThan(-1);
  const end = source.indexOf('\nexport ', start + 1);
  return source.slice(start, end < 0 ? undefined : end);
}

/** The settings `functions/settings.ts` marks as read by `reader`. */
function markedRead(reader: 'local' | 'lambda'): string[] {
  return Object.entries(SETTINGS)
    .filter(([, setting]) => 'read' in setting && (setting.read as readonly string[]).includes(reader))
    .map(([name]) => name)
    .sort();
}

describe('the docs’ tables of settings', () => {
  it.each([...new Set(SETTINGS_TABLES.map((table) => table.page))])(
    '%s holds the tables functions/settings.ts makes (npm run docs:settings writes them)',
    (page) => {
      expect(readPage(page)).toBe(settingsPages(readPage).get(page));
    },
  );
});

describe('the readers of the environment', () => {
  it('npm start reads exactly the settings marked local', () => {
    const loader = readPage('functions/local/config.ts');
    const handlers = readPage('functions/handlers/config.ts');
    // It takes the hand-off's, the policies', the OTLP endpoint's and the default ladder's settings from the functions'
    // own readers.
    const names = ['loadHandoffConfig', 'policySettingsOf', 'otlpEndpointOf', 'escalationOf'];
    const shared = names.filter((name) => loader.includes(`${name}(env)`));
    expect(shared).toEqual(names);
    const read = new Set([
      ...settingsNamed(loader),
      ...shared.flatMap((name) => settingsNamed(functionBody(handlers, name))),
    ]);
    expect([...read].sort()).toEqual(markedRead('local'));
  });

  it('the Lambda functions read exactly the settings marked lambda', () => {
    const sources = [
      ...readdirSync(join(ROOT, 'functions/handlers'))
        .filter((name) => name.endsWith('.ts'))
        .map((name) => `functions/handlers/${name}`),
      'infra/tenant-claim/handler.ts',
      'infra/example-agent/handler.ts',
      'infra/example-agent/durable-handler.ts',
    ];
    const read = new Set(sources.flatMap((path) => settingsNamed(readPage(path))));
    expect([...read].sort()).toEqual(markedRead('lambda'));
  });

  it('no other module of the service reads the environment', () => {
    // The CLI's coding-agent tools (its stdio MCP server, Claude Code's hooks and channel) and the operator's `policies`
    // (its token for `shadow --url`) run in a person's terminal and read their own variables; the adapters run in an agent's process, which no reader of ours configures; the CDK app
    // quiets jsii, which reads its own variable.
    const tools = [
      'functions/cli/mcp.ts',
      'functions/cli/claude-resume.ts',
      'functions/cli/claude-hook.ts',
      'functions/cli/claude-pending.ts',
      'functions/cli/channel.ts',
      'functions/cli/policies.ts',
      'functions/adapters/shared.ts',
      'infra/app.ts',
    ];
    const readers = ['functions/handlers/config.ts', 'functions/local/config.ts'];
    const reading = sourceFiles(['functions', 'infra']).filter((path) => /\bprocess\.env\b/.test(readPage(path)));
    expect(reading.sort()).toEqual([...readers, ...tools].sort());
  });
});

/** Every TypeScript source under `dirs`, by its path from the root (the inbox page's bundle aside). */
function sourceFiles(dirs: string[]): string[] {
  return dirs.flatMap((dir) =>
    (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
      .filter((name) => /\.tsx?$/.test(name) && !name.endsWith('.d.ts') && !name.endsWith('generated.ts'))
      .map((name) => `${dir}/${name}`),
  );
}

describe('docs/deploy.md', () => {
  it('the stack reads context only by the keys of functions/settings.ts', () => {
    const keys = Object.values(SETTINGS).flatMap((setting) => ('context' in setting ? [setting.context] : []));
    expect(Object.values(CONTEXT).sort()).toEqual(keys.sort());
    for (const path of sourceFiles(['infra'])) {
      expect(readPage(path), path).not.toMatch(/tryGetContext\(\s*['"`]handback:/);
    }
  });
});

describe('docs/deploy.md’s checklist before a first deploy', () => {
  const HEADING = '### Before your first deploy: a checklist';
  const checklist = () => {
    const lines = prose(readPage('docs/deploy.md'));
    const start = lines.findIndex((line) => line.trim() === HEADING);
    expect(start, `docs/deploy.md has ${HEADING}`).toBeGreaterThan(-1);
    const end = lines.findIndex((line, i) => i > start && line.startsWith('#'));
    return lines.slice(start + 1, end).join('\n');
  };

  it('comes before the first deploy and covers the SES sandbox, the Slack app, the bus and retention', () => {
    const text = readPage('docs/deploy.md');
    expect(text.indexOf(HEADING)).toBeLessThan(text.indexOf('## Deploy'));
    const items = [...checklist().matchAll(/^\d+\. \*\*([^*]+)\*\*/gm)].map((match) => match[1]);
    expect(items).toEqual(expect.arrayContaining(['The SES sandbox', 'The Slack app', 'The bus', 'Retention.']));
  });

  it('names only context keys the stack reads, with the defaults it has', () => {
    const text = checklist().replace(/\s+/g, ' ');
    const named = [...text.matchAll(/`(handback:[A-Za-z]+)/g)].map((match) => match[1]);
    expect(named.filter((key) => !Object.values(CONTEXT).includes(key as never))).toEqual([]);
    for (const key of [CONTEXT.emailSandbox, CONTEXT.resumeEventPrincipals, CONTEXT.retentionDays]) {
      expect(named).toContain(key);
    }
    expect(text).toContain(`\`${CONTEXT.retentionDays}\` (default ${DEFAULT_RETENTION_DAYS})`);
    expect(text).toContain(`\`${CONTEXT.emailSandbox}=true\``);
  });
});

describe('docs/http-api.md', () => {
  it('gives every problem code the status the code answers it with', () => {
    const lines = prose(readPage('docs/http-api.md'));
    const start = lines.findIndex((line) => line.trim() === '## Problems');
    const documented = new Map<string, number>();
    for (const line of lines.slice(start + 1)) {
      if (line.startsWith('#')) break;
      const row = /^\|\s*(\d{3})\s*\|\s*`([a-z_]+)`\s*\|/.exec(line);
      if (row !== null) documented.set(row[2] as string, Number(row[1]));
    }
    // The edge's own codes are raised where they happen (`new HttpProblem(status, code, …)`), with these statuses.
    const edge: Record<string, number> = {
      [EdgeCode.Unauthorized]: 401,
      [EdgeCode.NotFound]: 404,
      [EdgeCode.MethodNotAllowed]: 405,
      [EdgeCode.PayloadTooLarge]: 413,
      [EdgeCode.UnsupportedMediaType]: 415,
      [EdgeCode.LinkClosed]: 410,
      [EdgeCode.ChannelUnavailable]: 503,
      [EdgeCode.InternalError]: 500,
    };
    const expected = new Map<string, number>(Object.entries(edge));
    for (const [code, fate] of Object.entries(ERROR_FATES)) expected.set(code, fate.status);
    expect(Object.fromEntries([...documented].sort())).toEqual(Object.fromEntries([...expected].sort()));
  });
});
