import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { ROOT, readPage } from './markdown.ts';

/**
 * The layers of docs/architecture.md, as its table names them, and the imports of every source module of `functions/`
 * and `infra/`, as TypeScript parses them: what `architecture.test.ts` holds to each other.
 */

/** One row of the layers table: its name and the paths (a file, or a folder ending in `/`) it is made of. */
export interface Layer {
  name: string;
  /** Its place in the table, from 0: a layer imports only from its own row and the rows before it. */
  rank: number;
  paths: string[];
}

/** The layers table of docs/architecture.md ("## The layers"), in its order: the lowest first. */
export function layersOfDoc(text = readPage('docs/architecture.md')): Layer[] {
  const lines = text.slice(text.indexOf('## The layers')).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
  const rows = lines.slice(start, end);
  // The header and the separator row, then one row per layer, until the table ends.
  return rows.slice(2).map((row, rank) => {
    const [name = '', modules = ''] = row
      .split('|')
      .slice(1)
      .map((cell) => cell.trim());
    return { name, rank, paths: [...modules.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string) };
  });
}

/** One import of a module: the file it names (resolved from the root), and whether it is erased at run time. */
export interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Every `.ts`/`.tsx` source module under `folder` (declarations and generated files aside). */
export function sourcesUnder(folder: string): string[] {
  return (readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' }) as string[])
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts') && !file.includes('node_modules'))
    .map((file) => join(folder, file))
    .filter((file) => file !== 'functions/inbox/generated.ts')
    .sort();
}

/**
 * The relative imports of `file`: static imports and re-exports (type-only when `import type`, `export type`, or every
 * name is `type`), dynamic `import()` (run time), and `typeof import()` (type-only).
 */
export function importsOf(file: string): Import[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (specifier: ts.Expression | undefined, typeOnly: boolean) => {
    if (specifier === undefined || !ts.isStringLiteralLike(specifier) || !specifier.text.startsWith('.')) return;
    found.push({ from: file, to: normalize(join(dirname(file), specifier.text)), typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allTypes =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((element) => element.isTypeOnly)));
      add(node.moduleSpecifier, allTypes);
    } else if (ts.isExportDeclaration(node)) {
      const clause = node.exportClause;
      const allTypes =
        node.isTypeOnly ||
        (clause !== undefined &&
          ts.isNamedExports(clause) &&
          clause.elements.length > 0 &&
          clause.elements.every((element) => element.isTypeOnly));
      add(node.moduleSpecifier, allTypes);
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument)) add(argument.literal, true);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The layer entry (a path of the table) a file belongs to: the longest path of the table it is, or is under. */
export function entryOf(file: string, layers: readonly Layer[]): { layer: Layer; path: string } | undefined {
  let best: { layer: Layer; path: string } | undefined;
  for (const layer of layers) {
    for (const path of layer.paths) {
      const matches = path.endsWith('/') ? file.startsWith(path) : file === path;
      if (matches && (best === undefined || path.length > best.path.length)) best = { layer, path };
    }
  }
  return best;
}

/** The cycles of a graph (its strongly connected components of more than one node), each sorted, in no order. */
export function cyclesOf(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  // Tarjan's algorithm, with an explicit stack of (node, its successors left) so that no chain is too deep.
  for (const start of edges.keys()) {
    if (index.has(start)) continue;
    const work: Array<[string, string[]]> = [];
    const enter = (node: string) => {
      index.set(node, next);
      low.set(node, next++);
      stack.push(node);
      onStack.add(node);
      work.push([node, [...(edges.get(node) ?? [])]]);
    };
    enter(start);
    while (work.length > 0) {
      const top = work[work.length - 1] as [string, string[]];
      const [node, left] = top;
      const successor = left.shift();
      if (successor !== undefined) {
        if (!index.has(successor)) enter(successor);
        else if (onStack.has(successor))
          low.set(node, Math.min(low.get(node) as number, index.get(successor) as number));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1]?.[0];
      if (parent !== undefined) low.set(parent, Math.min(low.get(parent) as number, low.get(node) as number));
      if (low.get(node) === index.get(node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

/** Whether `path` (a file or a folder of the table) exists. */
export function pathExists(path: string): boolean {
  return existsSync(join(ROOT, path));
}
