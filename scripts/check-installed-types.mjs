// The type side of scripts/check-installed.mjs: a TypeScript user's project with the packed tarball
// installed. With this repo's TypeScript, in one process (the programs share parsed files):
//  1. every entry resolves to its declaration file under moduleResolution node10 (package.json
//     "types" and "typesVersions"), node16, nodenext and bundler ("exports");
//  2. with none of the optional peers and no @types/node, the declarations of every entry
//     type-check under `strict` with `skipLibCheck: false` (hono, the SDKs, langchain… absent);
//  3. with @anthropic-ai/sdk, hono, the drop-ins' hosts (ai, langchain, @opentelemetry/api) and
//     @types/node installed (linked from this repo's node_modules), the README's five-minute example
//     and the entries that use them type-check with the `@ts-expect-error` marks of
//     scripts/mark-optional-peer-types.mjs taken out: an installed peer's types are the ones the
//     user gets (a name the peer no longer exports would be `any` behind a mark, an error here).
// Checked are Cachet's declaration files and the user's files (every reference into a dependency's
// types is checked from there), not the dependencies' own declarations: zod's alone took 80% of
// the time, and errors inside them are not Cachet's to fix. Returns the problems found (empty when none).
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The peers linked for step 3, with the entries checked against them: the README example's and
 * the drop-ins' (+0.8 s CPU). The Bedrock and Gemini SDKs and every provider entry tripled the step's time.
 */
const TYPED_PEERS = [
  '@anthropic-ai/sdk',
  'hono',
  '@hono/node-server',
  '@types/node',
  'ai',
  '@ai-sdk/provider',
  'langchain',
  '@langchain/core',
  '@opentelemetry/api',
  // cachet/ai-sdk's declarations name the openai-chat body type (AI SDK calls to OpenAI models).
  'openai',
];
const PEER_ENTRIES = [
  'cachet/server',
  'cachet/gateway',
  'cachet/ai-sdk',
  'cachet/langchain',
  'cachet/otel',
  // Their SDKs are linked for the entries above: the provider entries on them cost little more.
  'cachet/anthropic',
  'cachet/openai-chat',
  'cachet/openai-responses',
  'cachet/openai-compatible',
  'cachet/openrouter',
  'cachet/deepseek',
];
/** The line scripts/mark-optional-peer-types.mjs writes above an optional peer's import. */
const PEER_MARK = /^\/\/ @ts-ignore -- optional peer\b.*$/gm;

/**
 * @param {{ root: string, project: string, manifest: { exports: Record<string, unknown> } }} context
 * @returns {string[]}
 */
export function checkInstalledTypes({ root, project, manifest }) {
  const ts = createRequire(join(root, 'package.json'))('typescript');
  const problems = [];
  const entries = Object.entries(manifest.exports).filter(([, target]) => typeof target !== 'string');
  const specifiers = entries.map(([subpath]) => `cachet${subpath.slice(1)}`);
  const installed = realpathSync(join(project, 'node_modules', 'cachet'));
  // What `tsc --init` writes (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess), with skipLibCheck off.
  const strict = {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
  };
  const modes = {
    node10: { module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, esModuleInterop: true },
    node16: { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 },
    nodenext: { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
    bundler: { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler },
  };

  // 1. Resolution: each specifier to the file its "exports" entry names (node10: "types" for the
  // root, "typesVersions" for the subpaths).
  const importer = join(project, 'index.ts');
  for (const [mode, options] of Object.entries(modes)) {
    for (const [index, [, target]] of entries.entries()) {
      const resolved = ts.resolveModuleName(
        specifiers[index],
        importer,
        { ...strict, ...options },
        ts.sys,
        undefined,
        undefined,
        // An `import` from an ES module (the project is "type": "module"); node10 and bundler have no
        // such mode, and node10 given one would read "exports", which node10 users' TypeScript does not.
        options.moduleResolution === ts.ModuleResolutionKind.Node10 ||
          options.moduleResolution === ts.ModuleResolutionKind.Bundler
          ? undefined
          : ts.ModuleKind.ESNext,
      ).resolvedModule?.resolvedFileName;
      const expected = join(installed, target.types);
      if (!resolved || realpathSync(resolved) !== expected) {
        problems.push(
          `moduleResolution ${mode}: '${specifiers[index]}' resolves to ${resolved ?? 'nothing'}, not ${target.types}`,
        );
      }
    }
  }

  // 2 and 3. Type checks, sharing parsed files between the programs.
  const everyEntry = join(project, 'every-entry.ts');
  writeFileSync(
    everyEntry,
    specifiers.map((specifier, index) => `import * as entry${index} from '${specifier}';\nexport { entry${index} };\n`).join(''),
  );
  const parsed = new Map();
  const typeCheck = (label, roots, options, { unmarked = false } = {}) => {
    const host = ts.createCompilerHost(options);
    // `types` and the like resolve from the project, not from where the check was started (this repo).
    host.getCurrentDirectory = () => project;
    const parse = host.getSourceFile;
    host.getSourceFile = (fileName, languageVersion, ...rest) => {
      const strip = unmarked && fileName.startsWith(installed);
      const key = `${fileName}\0${JSON.stringify(languageVersion)}\0${strip}`;
      if (!parsed.has(key)) {
        // Blank lines in place of the marks: line numbers stay those of the shipped file.
        const text = strip ? readFileSync(fileName, 'utf8').replace(PEER_MARK, '') : null;
        parsed.set(
          key,
          text === null
            ? parse.call(host, fileName, languageVersion, ...rest)
            : ts.createSourceFile(fileName, text, languageVersion),
        );
      }
      return parsed.get(key);
    };
    const program = ts.createProgram(roots, options, host);
    // Cachet's declarations and the user's files, not the dependencies' own: zod's took 80% of the time.
    const checked = program
      .getSourceFiles()
      .filter((file) => roots.includes(file.fileName) || file.fileName.startsWith(installed));
    const diagnostics = [
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...checked.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
    ];
    for (const diagnostic of diagnostics) {
      const where = diagnostic.file
        ? `${diagnostic.file.fileName.replace(`${project}/`, '')}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}: `
        : '';
      problems.push(`${label}: ${where}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
    }
  };
  typeCheck('no optional peers, no @types/node', [everyEntry], { ...strict, ...modes.nodenext, types: [] });

  for (const peer of TYPED_PEERS) {
    const link = join(project, 'node_modules', peer);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(root, 'node_modules', peer)), link);
  }
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const example = /^```ts\n([\s\S]*?)^```$/m.exec(readme)?.[1];
  if (!example) problems.push('README.md: no ```ts example found');
  const exampleFile = join(project, 'readme-example.ts');
  writeFileSync(exampleFile, `${example ?? ''}\nexport {};\n`);
  const peerEntries = join(project, 'peer-entries.ts');
  writeFileSync(peerEntries, PEER_ENTRIES.map((specifier, index) => `export * as entry${index} from '${specifier}';\n`).join(''));
  typeCheck(
    'with the peers installed',
    [exampleFile, peerEntries],
    { ...strict, ...modes.nodenext, types: ['node'] },
    { unmarked: true },
  );
  return problems;
}
