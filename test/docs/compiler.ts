import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from './markdown.ts';

/**
 * The repository's TypeScript projects with source files' text replaced in memory, type-checked as
 * `npm run typecheck` checks them: what the checklists test reads to see where the compiler sends someone who adds a
 * name to a list.
 */

/** The projects `npm run typecheck` checks the sources in, by their tsconfig (from the root). */
export const PROJECTS = ['tsconfig.json', 'functions/inbox/page/tsconfig.json'] as const;

/**
 * One tsconfig's program, made again for each check on one compiler host that keeps every file it parsed: a check
 * parses only the replaced files, and type-checks afresh.
 */
export class Project {
  readonly #rootNames: readonly string[];
  readonly #options: ts.CompilerOptions;
  readonly #host: ts.CompilerHost;
  readonly #parsed = new Map<string, ts.SourceFile>();
  #overrides = new Map<string, string>();
  #last: ts.Program | undefined;

  /**
   * `roots` chooses the tsconfig's files (from the root) the program starts from; what they import comes along. The
   * checklists start from the sources alone: the tests reach aws-cdk-lib, Playwright and every framework, 650 of the
   * program's 7,100 files, which each check would bind and merge for nothing the sources' errors depend on.
   */
  constructor(tsconfig: string, roots: (file: string) => boolean = () => true) {
    const path = join(ROOT, tsconfig);
    const { config, error } = ts.readConfigFile(path, ts.sys.readFile);
    if (error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
    const parsed = ts.parseJsonConfigFileContent(config, ts.sys, dirname(path));
    this.#rootNames = parsed.fileNames.filter((file) => roots(relative(ROOT, file)));
    this.#options = { ...parsed.options, noEmit: true };
    const host = ts.createCompilerHost(this.#options, true);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, language, onError, shouldCreate) => {
      const text = this.#overrides.get(fileName);
      if (text !== undefined) return ts.createSourceFile(fileName, text, language, true);
      let file = this.#parsed.get(fileName);
      if (file === undefined) {
        file = read(fileName, language, onError, shouldCreate);
        if (file !== undefined) this.#parsed.set(fileName, file);
      }
      return file;
    };
    this.#host = host;
  }

  /**
   * The files (from the root) the compiler reports errors in, each with its messages, when each file named in
   * `overrides` (from the root) has the given text instead of its own; only the files `only` accepts are checked.
   */
  errorsWith(
    overrides: Record<string, string> = {},
    only: (file: string) => boolean = () => true,
  ): Map<string, string[]> {
    this.#overrides = new Map(Object.entries(overrides).map(([file, text]) => [join(ROOT, file), text]));
    const program = ts.createProgram({
      rootNames: this.#rootNames,
      options: this.#options,
      host: this.#host,
      ...(this.#last === undefined ? {} : { oldProgram: this.#last }),
    });
    this.#last = program;
    const diagnostics = [
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...program
        .getSourceFiles()
        .filter((file) => !file.isDeclarationFile && only(relative(ROOT, file.fileName)))
        .flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
    ];
    const errors = new Map<string, string[]>();
    for (const diagnostic of diagnostics) {
      const file = diagnostic.file === undefined ? '(program)' : relative(ROOT, diagnostic.file.fileName);
      const { line } = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0) ?? { line: -1 };
      const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ').slice(0, 200);
      errors.set(file, [...(errors.get(file) ?? []), `${line + 1}: ${text}`]);
    }
    return errors;
  }
}
