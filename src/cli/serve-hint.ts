/**
 * How to run `cachet serve` from where this CLI runs. From a clone (the sources run through
 * tsx, `dist/` not built) `npx cachet` fails, so the hint uses the package script instead.
 *
 * @example
 * serveHint(' --db /tmp/t.db'); // 'npm run cachet -- serve --db /tmp/t.db' in a clone
 */
export function serveHint(args = '', moduleUrl: string = import.meta.url): string {
  return runningFromSource(moduleUrl) ? `npm run cachet -- serve${args}` : `npx cachet serve${args}`;
}

/** True when this module is a TypeScript source file (tsx, vitest), not built JavaScript. */
export function runningFromSource(moduleUrl: string = import.meta.url): boolean {
  return /\.ts$/.test(new URL(moduleUrl).pathname);
}
