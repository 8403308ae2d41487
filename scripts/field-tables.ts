/**
 * The field tables of `docs/http-api.md`, written from the API description's component schemas (`scripts/openapi.ts`,
 * which reads them from the zod schemas every door parses with): one table per request body, between
 * `<!-- fields: <Schema> -->` and `<!-- /fields -->`. A field added to a schema is in its table once `npm run openapi`
 * has run, and `test/handlers/openapi-drift.test.ts` fails until it has.
 */

type Json = Record<string, unknown>;

/** The request bodies and parts whose fields the page lists, by component name. */
export const FIELD_TABLES = [
  'PauseRequest',
  'Ask',
  'Approvers',
  'NotifyEntry',
  'ResumeRequest',
  'Decision',
  'CancelRequest',
  'LinkRequest',
  'ClaimRequest',
  // §19
  'ExecutionClaimRequest',
  'ExecutionEndRequest',
] as const;

/** The marked regions of `markdown` with their tables written from `schemas` (the document's component schemas). */
export function withFieldTables(markdown: string, schemas: Record<string, Json>): string {
  return markdown.replace(
    /(<!-- fields: (\w+) -->\n)[\s\S]*?(<!-- \/fields -->)/g,
    (_, open: string, name: string, close: string) => {
      const schema = schemas[name];
      if (schema === undefined) throw new Error(`docs/http-api.md marks a table of ${name}, which is no component.`);
      return `${open}\n${fieldTable(schema, schemas)}\n${close}`;
    },
  );
}

/** The fields of each table, with their words: every field a table lists (the drift test holds each to a word). */
export function tableFields(schemas: Record<string, Json>): Array<{ table: string; field: string; what: string }> {
  return FIELD_TABLES.flatMap((table) =>
    rowsOf(schemas[table] as Json, schemas).map((row) => ({ table, field: row.field, what: row.what })),
  );
}

interface Row {
  field: string;
  type: string;
  what: string;
}

function fieldTable(schema: Json, schemas: Record<string, Json>): string {
  const rows = rowsOf(schema, schemas).map((row) => ({ ...row, type: row.type || typeOf(row.schema, schemas) }));
  const cells = [['field', 'takes', 'what'], ...rows.map((row) => [`\`${row.field}\``, row.type, row.what])];
  // Aligned as the page's other tables are: each column as wide as its widest cell.
  const widths = [0, 1, 2].map((column) => Math.max(...cells.map((row) => (row[column] as string).length)));
  const line = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column] as number)).join(' | ')} |`;
  const rule = `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`;
  const [header, ...body] = cells as [string[], ...string[][]];
  return `${[line(header), rule, ...body.map(line)].join('\n')}\n`;
}

/** One row per property: an object's, or the union of a `oneOf`'s branches (saying in which branches it is). */
function rowsOf(schema: Json, schemas: Record<string, Json>): Array<Row & { schema: Json }> {
  const branches = (schema.oneOf as Json[] | undefined) ?? [schema];
  const rows = new Map<string, Row & { schema: Json; in: string[]; required: number }>();
  for (const branch of branches) {
    const properties = (branch.properties ?? {}) as Record<string, Json>;
    const required = (branch.required ?? []) as string[];
    for (const [field, property] of Object.entries(properties)) {
      // A field a branch may not carry (`not: {}`) tells the branches apart; it is no field of it.
      if (property.not !== undefined) continue;
      const row = rows.get(field) ?? { field, type: '', what: '', schema: property, in: [], required: 0 };
      row.in.push(labelOf(branch));
      if (required.includes(field)) row.required++;
      const described = typeof property.$ref === 'string' ? schemas[refName(property.$ref)] : property;
      if (row.what === '' && typeof described?.description === 'string') row.what = described.description;
      if (row.in.length > 1 && JSON.stringify(row.schema) !== JSON.stringify(property)) {
        const types = new Set([row.type || typeOf(row.schema, schemas), typeOf(property, schemas)]);
        row.type = [...types].join(', or ');
      }
      rows.set(field, row);
    }
  }
  return [...rows.values()].map((row) => {
    const where = row.in.length === branches.length ? '' : ` With ${row.in.join(' or ')}.`;
    const need = row.required === row.in.length ? ' Required.' : '';
    return { field: row.field, type: row.type, what: `${row.what}${where}${need}`.trim(), schema: row.schema };
  });
}

/** What names a branch of a union: its constant field (`decision: "edit"`), or the field only it requires. */
function labelOf(branch: Json): string {
  const properties = (branch.properties ?? {}) as Record<string, Json>;
  const constant = Object.entries(properties).find(([, property]) => property.const !== undefined);
  if (constant !== undefined) return `\`${constant[0]}: ${JSON.stringify(constant[1].const)}\``;
  const required = (branch.required ?? []) as string[];
  return `\`${required.at(-1) ?? 'none'}\``;
}

/** A field's type and bounds in words, from its JSON Schema. */
function typeOf(schema: Json, schemas: Record<string, Json>): string {
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref);
    const target = schemas[name];
    return target?.enum !== undefined ? typeOf(target, schemas) : `\`${name}\``;
  }
  const extra = schema.default === undefined ? '' : ` (default \`${JSON.stringify(schema.default)}\`)`;
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (Array.isArray(schema.enum)) return `${schema.enum.map((word) => `\`${word}\``).join(', ')}${extra}`;
  const type = schema.type;
  if (Array.isArray(type)) return `${type.map((one) => `a${one === 'object' ? 'n' : ''} ${one}`).join(' or ')}${extra}`;
  switch (type) {
    case 'array': {
      const count = bounds(schema.minItems, schema.maxItems);
      return `a list of ${count === '' ? '' : `${count} `}${plural((schema.items ?? {}) as Json, schemas)}`;
    }
    case 'integer': {
      const between = bounds(schema.minimum, schema.maximum);
      return `an integer${between === '' ? '' : ` of ${between}`}${extra}`;
    }
    case 'string':
      return `${text(schema)}${extra}`;
    case undefined:
      return 'any JSON value';
    case 'object':
      return 'a JSON object';
    case 'boolean':
      return 'true or false';
    default:
      return `${type}${extra}`;
  }
}

/** Text and its bounds: an email address, a pattern, a length. */
function text(schema: Json): string {
  if (schema.format === 'email') return `an email address of at most ${number(schema.maxLength)} characters`;
  const pattern = typeof schema.pattern === 'string' ? ` matching \`${schema.pattern}\`` : '';
  const length = bounds(schema.minLength, schema.maxLength);
  if (length === 'at least 1') return `non-empty text${pattern}`;
  return `text${length === '' ? '' : ` of ${length} characters`}${pattern}`;
}

/** What a list holds, in the plural. */
function plural(items: Json, schemas: Record<string, Json>): string {
  if (typeof items.$ref === 'string') return typeOf(items, schemas);
  if (items.type === undefined) return 'JSON values';
  if (items.type === 'string') return text(items).replace(/text/, 'strings');
  return typeOf(items, schemas);
}

/** `1–16`, `at most 10`, `at least 1`: a range's bounds in words, or nothing. */
function bounds(min: unknown, max: unknown): string {
  const low = typeof min === 'number' ? min : undefined;
  const high = typeof max === 'number' ? max : undefined;
  if (low !== undefined && high !== undefined) return `${number(low)}–${number(high)}`;
  if (high !== undefined) return `at most ${number(high)}`;
  if (low !== undefined) return `at least ${number(low)}`;
  return '';
}

function number(value: unknown): string {
  return typeof value === 'number' ? value.toLocaleString('en-US') : String(value);
}

function refName(ref: string): string {
  return ref.split('/').at(-1) as string;
}
