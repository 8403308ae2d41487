import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_FATES } from '../../functions/errors.ts';
import { EdgeCode } from '../../functions/handlers/problem.ts';
import { CONTEXT, DEFAULT_RETENTION_DAYS } from '../../infra/settings.ts';
import { prose, ROOT, readPage } from './markdown.ts';

/**
 * The tables of settings and problems in the docs name what the code reads and answers: the local service's
 * environment variables (docs/local.md), the stack's context keys (docs/deploy.md), and every problem code with its
 * status (docs/http-api.md).
 */

/** The first column of the table under `heading`, as the names in its backticks (`| \`PORT\` | …`). */
function tableNames(page: string, heading: string, name: RegExp): string[] {
  const lines = prose(readPage(page));
  const start = lines.findIndex((line) => line.trim() === heading);
  expect(start, `${page} has a section ${heading}`).toBeGreaterThan(-1);
  const names: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('#')) break;
    const cell = /^\|\s*`([^`]+)`\s*\|/.exec(line)?.[1];
    if (cell !== undefined && name.test(cell)) names.push(cell);
  }
  return names;
}

/** The environment variables a source reads through `optionalEnv(env, 'NAME'…)` or `requireEnv(env, 'NAME')`. */
function variablesRead(source: string): string[] {
  return [...source.matchAll(/(?:optionalEnv|requireEnv)\(env, '([A-Z0-9_]+)'/g)].map((match) => match[1] as string);
}

describe('docs/local.md', () => {
  it('lists exactly the variables the local service reads', () => {
    const local = readdirSync(join(ROOT, 'functions/local'))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => readPage(`functions/local/${name}`));
    const read = new Set(local.flatMap(variablesRead));
    // The service takes its hand-off settings from the handlers' own reader.
    expect(local.some((source) => source.includes('loadHandoffConfig(env)'))).toBe(true);
    const config = readPage('functions/handlers/config.ts');
    const handoff = config.slice(
      config.indexOf('export function loadHandoffConfig'),
      config.indexOf('export function loadConfig'),
    );
    for (const name of variablesRead(handoff)) read.add(name);
    // The channels read theirs as `env.NAME` (functions/channels/config.ts).
    const channels = readPage('functions/channels/config.ts');
    for (const match of channels.matchAll(/\benv\.(HANDBACK_[A-Z0-9_]+)/g)) read.add(match[1] as string);

    const documented = tableNames('docs/local.md', '## Environment variables', /^[A-Z][A-Z0-9_]+$/);
    expect([...documented].sort()).toEqual([...read].sort());
    expect(read).toContain('HANDBACK_WEBHOOK_URL');
  });
});

describe('docs/deploy.md', () => {
  it('lists exactly the context keys the CDK app reads', () => {
    const app = readPage('infra/app.ts');
    const keys = new Set<string>(Object.values(CONTEXT));
    for (const match of app.matchAll(/tryGetContext\('(handback:[A-Za-z]+)'\)/g)) keys.add(match[1] as string);
    const documented = tableNames('docs/deploy.md', '## Configure', /^handback:/);
    expect([...documented].sort()).toEqual([...keys].sort());
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
