import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The integration docs' complete programs compile as a user would get them: each doc's
 * `package.json` block and ```ts file=NAME blocks are written to a project of their own, with the
 * tsconfig.json that this repo's TypeScript writes for `tsc --init` (strict,
 * exactOptionalPropertyTypes, noUncheckedIndexedAccess, verbatimModuleSyntax, nodenext…), and
 * compiled in one program. `cachet` resolves to this repo's sources through the package's own
 * `exports`, the peers to this repo's node_modules: no network, no build.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = join(ROOT, 'docs/integrations');
const FENCE = /^```(\S+)(?:[ \t]+(\S+))?\n([\s\S]*?)^```$/gm;

interface DocProgram {
  doc: string;
  packageJson: { type?: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> } | null;
  files: Array<{ name: string; text: string }>;
}

function programsOf(doc: string): DocProgram {
  const markdown = readFileSync(join(DOCS, doc), 'utf8');
  const program: DocProgram = { doc, packageJson: null, files: [] };
  for (const [, language, label, text] of markdown.matchAll(FENCE)) {
    if (language === 'json' && label === 'package.json') program.packageJson = JSON.parse(text!);
    if (language === 'ts' && label?.startsWith('file=')) program.files.push({ name: label.slice('file='.length), text: text! });
  }
  return program;
}

/** `cachet` and `cachet/<subpath>` → the source file behind each entry of package.json `exports`. */
function cachetPaths(): Record<string, string[]> {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { types?: string } | string>;
  };
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target === 'string' || !target.types) continue;
    const source = target.types.replace(/^\.\/dist\//, './src/').replace(/\.d\.ts$/, '.ts');
    paths[subpath === '.' ? 'cachet' : `cachet/${subpath.slice(2)}`] = [join(ROOT, source)];
  }
  return paths;
}

/** The installed version satisfies a `^x.y.z` / `~x.y.z` range (the forms the docs use). */
function satisfies(version: string, range: string): boolean {
  const match = /^([~^])(\d+)\.(\d+)\.(\d+)$/.exec(range);
  if (!match) return false;
  const [have, want] = [version.split('.').map(Number), match.slice(2).map(Number)];
  const [major, minor, patch] = have as [number, number, number];
  const [wantMajor, wantMinor, wantPatch] = want as [number, number, number];
  const atLeast =
    major > wantMajor || (major === wantMajor && (minor > wantMinor || (minor === wantMinor && patch >= wantPatch)));
  if (!atLeast || major !== wantMajor) return false;
  // Caret on 0.x pins the minor; tilde always does.
  return match[1] === '~' || wantMajor === 0 ? minor === wantMinor : true;
}

const DOC_NAMES = readdirSync(DOCS).filter((name) => name.endsWith('.md'));
const workspace = mkdtempSync(join(tmpdir(), 'cachet-docs-'));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe('docs/integrations: complete programs', () => {
  const programs = DOC_NAMES.map(programsOf);

  it.each(programs.map((program) => [program.doc, program] as const))(
    '%s has a package.json for an empty ESM project whose versions match what the program was compiled against',
    (_doc, program) => {
      expect(program.files.length).toBeGreaterThan(0);
      expect(program.packageJson?.type).toBe('module');
      // Cachet is not on the npm registry (`npm install cachet` answers 404): the program installs the packed tarball.
      expect(program.packageJson?.dependencies?.cachet).toMatch(/^file:.*\.tgz$/);
      const ranges = { ...program.packageJson?.dependencies, ...program.packageJson?.devDependencies };
      for (const [name, range] of Object.entries(ranges)) {
        if (name === 'cachet') continue;
        const installed = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version as string;
        expect(satisfies(installed, range), `${program.doc}: ${name}@${range} against the tested ${installed}`).toBe(true);
      }
    },
  );

  it('compile under the tsconfig.json `tsc --init` writes, with no error', () => {
    symlinkSync(join(ROOT, 'node_modules'), join(workspace, 'node_modules'), 'dir');
    const init = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '--init'], { cwd: workspace });
    expect(init.status, String(init.stderr)).toBe(0);
    const read = ts.readConfigFile(join(workspace, 'tsconfig.json'), ts.sys.readFile);
    const config = ts.parseJsonConfigFileContent(read.config, ts.sys, workspace);
    expect(config.options.strict && config.options.exactOptionalPropertyTypes).toBe(true);
    const roots: string[] = [];
    for (const program of programs) {
      const folder = join(workspace, program.doc.replace(/\.md$/, ''));
      mkdirSync(folder);
      writeFileSync(join(folder, 'package.json'), JSON.stringify(program.packageJson));
      for (const file of program.files) {
        writeFileSync(join(folder, file.name), file.text);
        roots.push(join(folder, file.name));
      }
    }
    const compiled = ts.createProgram(roots, { ...config.options, noEmit: true, paths: cachetPaths() });
    const diagnostics = roots.flatMap((root) => {
      const source = compiled.getSourceFile(root)!;
      return [...compiled.getSyntacticDiagnostics(source), ...compiled.getSemanticDiagnostics(source)];
    });
    const report = ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (name) => name,
      getCurrentDirectory: () => workspace,
      getNewLine: () => '\n',
    });
    expect(report).toBe('');
  }, 120_000);
});
