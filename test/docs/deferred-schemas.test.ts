import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './markdown.ts';

/**
 * docs/architecture.md: a schema of the words' modules is built by its first use (`z.defer`, `z.fields` in
 * functions/zod.ts), so a function's init builds none of them (§23). Held here on the source: no top-level statement
 * of those modules calls a zod function that makes a schema, outside a function (a `z.defer` or `z.fields` factory, a
 * helper). Checks (`z.regex`, `z.refine`, …) are small objects and may be made at import.
 */

/** zod/mini's functions that make a check or a parameter, not a schema. */
const CHECKS = new Set([
  'regex',
  'maxLength',
  'minLength',
  'length',
  'refine',
  'superRefine',
  'describe',
  'meta',
  'minimum',
  'maximum',
  'gt',
  'gte',
  'lt',
  'lte',
  'multipleOf',
  'int',
  'overwrite',
  'trim',
  'toLowerCase',
  'toUpperCase',
  'startsWith',
  'endsWith',
  'includes',
  'defer',
  'fields',
]);

/** The words' modules that hold schemas. */
const MODULES = readdirSync(join(ROOT, 'functions'))
  .filter((name) => /^(fields|inputs|inputs-pause|wire|wire-[a-z]+)\.ts$/.test(name))
  .map((name) => `functions/${name}`)
  .sort();

/** `z.<name>(…)` calls made when `file` is imported: at top level, outside any function. */
function builtAtImport(file: string, text = readFileSync(join(ROOT, file), 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isFunctionDeclaration(node)) return;
    if (ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isClassDeclaration(node)) return;
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee) ? zodName(callee) : undefined;
      if (name !== undefined && !CHECKS.has(name)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push(`${file}:${line + 1} z.${name}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  for (const statement of source.statements) visit(statement);
  return found;
}

/** `name` of `z.name` or `z.iso.name`. */
function zodName(access: ts.PropertyAccessExpression): string | undefined {
  const target = access.expression;
  if (ts.isIdentifier(target) && target.text === 'z') return access.name.text;
  if (ts.isPropertyAccessExpression(target) && ts.isIdentifier(target.expression) && target.expression.text === 'z') {
    return `${target.name.text}.${access.name.text}`;
  }
  return undefined;
}

describe('the schemas of the words’ modules', () => {
  it('are the modules that hold them', () => {
    expect(MODULES).toEqual(
      expect.arrayContaining(['functions/fields.ts', 'functions/inputs.ts', 'functions/wire.ts']),
    );
  });

  it('are built by their first use, none at import', () => {
    expect(MODULES.flatMap((file) => builtAtImport(file))).toEqual([]);
  });

  it('would be found built at import', () => {
    const file = 'functions/fields.ts';
    const text = `${readFileSync(join(ROOT, file), 'utf8')}\nexport const eager = z.object({ a: z.string() });\n`;
    const line = text.split('\n').length - 1;
    expect(builtAtImport(file, text)).toEqual([`${file}:${line} z.object`, `${file}:${line} z.string`]);
  });
});
