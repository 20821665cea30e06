import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Every named type a public signature mentions can be imported by its name from some entry in
 * package.json "exports": a user who gets a `ProxyStats` back can write `ProxyStats` too.
 * Walks the declarations reachable from each entry's exports (signatures and members, not
 * function bodies or initialisers, except `new X()` giving an unannotated property its type)
 * with the compiler API over the source. `typeof someConst` is not a named type: a schema
 * constant behind `SkillsConfigInput` stays private.
 */

const SOURCE = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(SOURCE);

interface ExportEntry {
  readonly types: string;
}

function entryFiles(): Map<string, string> {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | ExportEntry>;
  };
  const files = new Map<string, string>();
  for (const [subpath, entry] of Object.entries(manifest.exports)) {
    if (typeof entry === 'string') continue;
    files.set(subpath, join(ROOT, entry.types.replace('./dist/', 'src/').replace(/\.d\.ts$/, '.ts')));
  }
  return files;
}

type Reached = { readonly symbol: ts.Symbol; readonly subpath: string; readonly via: string };

function referencedName(node: ts.Node): ts.Node | undefined {
  if (ts.isTypeReferenceNode(node)) return node.typeName;
  if (ts.isExpressionWithTypeArguments(node)) return node.expression;
  // `readonly log = new MessageLog()`: the property's type is the class constructed.
  if (ts.isNewExpression(node)) return node.expression;
  return undefined;
}

const isPrivate = (node: ts.Node): boolean =>
  (ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)) === true ||
  ((ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node)) && ts.isPrivateIdentifier(node.name));

/** Children that make up the declaration's public shape: no bodies, no initial values. */
function isShapeChild(parent: ts.Node, child: ts.Node): boolean {
  if (ts.isBlock(child) || isPrivate(child)) return false;
  const { initializer, type } = parent as { initializer?: ts.Node; type?: ts.Node };
  if (initializer === child) return type === undefined && ts.isNewExpression(child);
  return !(ts.isArrowFunction(parent) && parent.body === child);
}

function unexportedTypes(): Reached[] {
  const entries = entryFiles();
  const program = ts.createProgram([...entries.values()], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    noResolve: false,
    types: [],
  });
  const checker = program.getTypeChecker();
  const resolve = (s: ts.Symbol | undefined) => (s && s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const inSource = (d: ts.Declaration) => d.getSourceFile().fileName.startsWith(SOURCE);
  const exported = new Set<ts.Symbol>();
  const queue: Reached[] = [];
  for (const [subpath, file] of entries) {
    const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(file) as ts.SourceFile);
    for (const item of checker.getExportsOfModule(moduleSymbol as ts.Symbol)) {
      const symbol = resolve(item) as ts.Symbol;
      exported.add(symbol);
      queue.push({ symbol, subpath, via: item.name });
    }
  }
  const seen = new Set<ts.Symbol>();
  const missing = new Map<ts.Symbol, Reached>();
  for (let next = queue.shift(); next; next = queue.shift()) {
    if (seen.has(next.symbol)) continue;
    seen.add(next.symbol);
    const from = next;
    const visit = (node: ts.Node): void => {
      const name = referencedName(node);
      const symbol = name && resolve(checker.getSymbolAtLocation(ts.isQualifiedName(name) ? name.right : name));
      if (symbol && !(symbol.flags & ts.SymbolFlags.TypeParameter) && symbol.declarations?.some(inSource)) {
        if (!exported.has(symbol) && !missing.has(symbol)) missing.set(symbol, { symbol, subpath: from.subpath, via: from.via });
        queue.push({ symbol, subpath: from.subpath, via: from.via });
      }
      ts.forEachChild(node, (child) => (isShapeChild(node, child) ? visit(child) : undefined));
    };
    for (const declaration of next.symbol.declarations ?? []) if (inSource(declaration)) visit(declaration);
  }
  return [...missing.values()];
}

describe('public types', () => {
  it('names only types some package entry exports', () => {
    const missing = unexportedTypes().map(
      (r) =>
        `${r.symbol.name} (${relative(ROOT, r.symbol.declarations?.[0]?.getSourceFile().fileName ?? '')}, reached from ${r.subpath} via ${r.via})`,
    );
    expect(missing.sort()).toEqual([]);
  }, 60_000);
});
