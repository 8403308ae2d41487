import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADAPTER_NAMES, VIAS } from '../../functions/vocabulary.ts';
import { DOOR_ENTRY, ENTRY } from '../../infra/paths.ts';
import { cyclesOf, entryOf, type Import, importsOf, layersOfDoc, pathExists, sourcesUnder } from './layers.ts';
import { exists, ROOT, readPage } from './markdown.ts';

/** Every path docs/architecture.md names in backticks: a file or folder of the repository. */
function namedPaths(): string[] {
  const text = readPage('docs/architecture.md');
  const paths = [...text.matchAll(/`((?:functions|infra|test|scripts|bench)\/[^`\s]*)`/g)].map((match) => match[1]);
  return [...new Set(paths as string[])];
}

describe('docs/architecture.md', () => {
  it('names only modules and folders that exist', () => {
    const named = namedPaths();
    expect(named.length).toBeGreaterThan(30);
    expect(named.filter((path) => !exists(path.replace(/\/$/, '')))).toEqual([]);
  });
});

/**
 * The layers docs/architecture.md names are the layers the code has: its table, read here, is what every import of
 * `functions/` and `infra/` is held to (type-only imports too: a type from a higher layer is a dependency on it).
 */
describe('the layers', () => {
  const layers = layersOfDoc();
  const files = [...sourcesUnder('functions'), ...sourcesUnder('infra')];
  const imports: Import[] = files.flatMap(importsOf);
  const where = (file: string) => {
    const entry = entryOf(file, layers);
    return entry === undefined ? file : `${file} (${entry.layer.name})`;
  };

  it('are the rows of the table, each of paths that exist', () => {
    expect(layers.map((layer) => layer.name)).toContain('the rules');
    expect(layers.length).toBeGreaterThan(8);
    for (const layer of layers) {
      expect(layer.paths.length, layer.name).toBeGreaterThan(0);
      expect(
        layer.paths.filter((path) => !pathExists(path)),
        layer.name,
      ).toEqual([]);
    }
    expect(imports.length).toBeGreaterThan(500);
  });

  it('hold every source module of functions/ and infra/ (a new folder gets its row in the table first)', () => {
    expect(files.filter((file) => entryOf(file, layers) === undefined)).toEqual([]);
  });

  it('import only from their own layer or a lower one, and nothing outside them', () => {
    const upward = imports
      .filter(({ from, to }) => {
        const source = entryOf(from, layers);
        const target = entryOf(to, layers);
        return target === undefined || (source as { layer: { rank: number } }).layer.rank < target.layer.rank;
      })
      .map(({ from, to }) => `${where(from)} imports ${where(to)}`);
    expect(upward).toEqual([]);
  });

  it('have no two entries of the table that import each other, directly or round a circle', () => {
    const edges = new Map<string, Set<string>>();
    for (const { from, to } of imports) {
      const a = entryOf(from, layers)?.path;
      const b = entryOf(to, layers)?.path;
      if (a === undefined || b === undefined || a === b) continue;
      edges.set(a, (edges.get(a) ?? new Set()).add(b));
    }
    expect(edges.size).toBeGreaterThan(10);
    expect(cyclesOf(edges)).toEqual([]);
  });

  it('have no circle of modules at run time', () => {
    const edges = new Map<string, Set<string>>();
    for (const { from, to, typeOnly } of imports) {
      if (!typeOnly) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
    expect(cyclesOf(edges)).toEqual([]);
  });
});

/**
 * An adapter's checklist beyond the compiler (docs/architecture.md, "An adapter"): each name of `ADAPTER_NAMES` is a
 * module of `functions/adapters/` offering what every adapter offers, a subpath of the package, a path for the
 * sources, an entry of the build, with its framework an optional peer and a page of its own; and every such module is
 * in the list.
 */
describe('each adapter of ADAPTER_NAMES', () => {
  const manifest = JSON.parse(readPage('package.json')) as {
    exports: Record<string, unknown>;
    peerDependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional?: boolean }>;
  };
  const paths = (JSON.parse(readPage('tsconfig.json')) as { compilerOptions: { paths: Record<string, string[]> } })
    .compilerOptions.paths;
  const build = JSON.parse(readPage('tsconfig.build.json')) as { files: string[] };
  /** The package a bare import specifier names: `@scope/name` or `name`, without a subpath. */
  const packageOf = (specifier: string) =>
    specifier
      .split('/')
      .slice(0, specifier.startsWith('@') ? 2 : 1)
      .join('/');

  it.each(ADAPTER_NAMES)(
    'has %s as a module, a subpath, a path, a build entry, an optional peer and a page',
    (name) => {
      const module = `functions/adapters/${name}.ts`;
      const text = readPage(module);
      expect(text).toContain("export * from './every-adapter.ts';");
      expect(manifest.exports[`./${name}`]).toEqual({
        types: `./dist/adapters/${name}.d.ts`,
        import: `./dist/adapters/${name}.js`,
        default: `./dist/adapters/${name}.js`,
      });
      expect(paths[`handback/${name}`]).toEqual([`./${module}`]);
      expect(build.files).toContain(module);
      const frameworks = [...text.matchAll(/^import[^'"]*from '([^.'][^']*)';$/gm)]
        .map((match) => packageOf(match[1] as string))
        .filter((specifier) => !specifier.startsWith('node:'));
      expect(frameworks.length, module).toBeGreaterThan(0);
      for (const framework of frameworks) {
        expect(manifest.peerDependencies[framework], framework).toBeDefined();
        expect(manifest.peerDependenciesMeta[framework]?.optional, framework).toBe(true);
      }
      expect(exists(`docs/${name}.md`)).toBe(true);
    },
  );

  it('lists every module of functions/adapters/ that offers what every adapter offers', () => {
    const adapters = sourcesUnder('functions/adapters')
      .filter((file) => readPage(file).includes("export * from './every-adapter.ts';"))
      .map((file) => file.replace(/^functions\/adapters\/(.*)\.ts$/, '$1'));
    expect(adapters.sort()).toEqual([...ADAPTER_NAMES].sort());
  });
});

/** A door's entry point on AWS (docs/architecture.md, "A door"): one of the stack's, for every door that has one. */
describe('each door of VIAS', () => {
  it.each(VIAS)('%s comes in by one of the Lambda entry points, or runs inside another', (via) => {
    const entry = DOOR_ENTRY[via];
    if (entry === undefined) {
      expect(['library', 'policy']).toContain(via);
      return;
    }
    expect(Object.values(ENTRY)).toContain(entry);
    expect(exists(relative(ROOT, entry))).toBe(true);
  });
});

describe('the layers test', () => {
  it('finds a circle, and a circle only', () => {
    const graph = (pairs: Array<[string, string]>) => {
      const edges = new Map<string, Set<string>>();
      for (const [a, b] of pairs) edges.set(a, (edges.get(a) ?? new Set()).add(b));
      return edges;
    };
    expect(
      cyclesOf(
        graph([
          ['a', 'b'],
          ['b', 'c'],
          ['c', 'a'],
          ['c', 'd'],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    expect(
      cyclesOf(
        graph([
          ['a', 'b'],
          ['b', 'c'],
          ['a', 'c'],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads type-only imports as such, and dynamic imports as run time', () => {
    const http = importsOf('functions/handlers/http-api.ts');
    expect(http).toContainEqual({ from: 'functions/handlers/http-api.ts', to: 'functions/zod.ts', typeOnly: true });
    expect(http).toContainEqual({
      from: 'functions/handlers/http-api.ts',
      to: 'functions/handlers/routes.ts',
      typeOnly: false,
    });
    expect(http).toContainEqual({
      from: 'functions/handlers/http-api.ts',
      to: 'functions/handlers/openapi.json',
      typeOnly: false,
    });
  });
});
