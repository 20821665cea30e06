import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The shape of the house, read from the code's own imports (type-only and dynamic imports
 * included): no circle of files anywhere in `src/`, and every import between rooms points down
 * the list in docs/architecture.md. Run alone with `npx vitest run src/import-graph.test.ts`.
 */

const SOURCE = dirname(fileURLToPath(import.meta.url));

/**
 * Each room's floor. A file may import its own room and rooms on lower floors only. Rooms on
 * the same floor do not import each other. Keep in step with docs/architecture.md.
 */
const FLOORS: Readonly<Record<string, number>> = {
  model: 0,
  events: 1,
  tokens: 2,
  session: 3,
  injection: 4,
  skills: 5,
  providers: 6,
  cache: 7,
  trace: 8,
  runtime: 9,
  compaction: 10,
  workloads: 10,
  server: 10,
  oracle: 11,
  import: 12,
  simulate: 12,
  gateway: 12,
  integrations: 12,
  testing: 13,
  cli: 14,
  '(package root)': 15,
};

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === '__fixtures__' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The files a file imports by relative path, resolved to `.ts` sources. */
function relativeImports(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => {
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      const asIndex = join(target.replace(/\.ts$/, ''), 'index.ts');
      return existsSync(target) || !existsSync(asIndex) ? target : asIndex;
    });
}

function roomOf(file: string): string {
  const parts = relative(SOURCE, file).split(sep);
  return parts.length === 1 ? '(package root)' : (parts[0] as string);
}

/** Strongly connected components with more than one file (Tarjan), as paths relative to src/. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, counter);
    lowest.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!order.has(target)) {
        visit(target);
        lowest.set(file, Math.min(lowest.get(file) as number, lowest.get(target) as number));
      } else if (onStack.has(target)) {
        lowest.set(file, Math.min(lowest.get(file) as number, order.get(target) as number));
      }
    }
    if (lowest.get(file) !== order.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(relative(SOURCE, member));
    } while (member !== file);
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return found;
}

// Test support is imported by tests only; it may reach across rooms like the tests do.
const files = sourceFiles(SOURCE).filter((file) => !file.split(sep).includes('test-support'));
const graph = new Map(files.map((file) => [file, relativeImports(file)]));

describe('the import graph of src/', () => {
  it('reads every source file', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(graph.get(join(SOURCE, 'providers', 'registry.ts'))).toContain(join(SOURCE, 'providers', 'provider-id.ts'));
  });

  it('has no circle of files', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('finds a circle where there is one', () => {
    const planted = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(circles(planted).map((circle) => circle.length)).toEqual([3]);
  });

  it('places every room on a floor', () => {
    const unknown = [...new Set(files.map(roomOf))].filter((room) => FLOORS[room] === undefined);
    expect(unknown, 'add new rooms to FLOORS here and to docs/architecture.md').toEqual([]);
  });

  it('imports only from its own room or a lower floor', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      // A room's index.ts is a package entry point (`cachet/oracle`): entry points sit above every room.
      if (file.endsWith(`${sep}index.ts`) && roomOf(file) !== '(package root)') continue;
      const from = roomOf(file);
      for (const target of targets) {
        const to = roomOf(target);
        if (from === to) continue;
        if ((FLOORS[to] ?? Number.POSITIVE_INFINITY) >= (FLOORS[from] ?? Number.NEGATIVE_INFINITY)) {
          upward.push(`${relative(SOURCE, file)} → ${relative(SOURCE, target)}`);
        }
      }
    }
    expect(upward).toEqual([]);
  });
});
