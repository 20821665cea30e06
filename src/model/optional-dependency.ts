import { createRequire } from 'node:module';
import { CachetError } from './errors.js';

const requireFromCachet = createRequire(import.meta.url);

/**
 * An optional peer dependency that is not installed: names the package (or the packages,
 * space-separated) and how to install it.
 */
export class MissingDependencyError extends CachetError {
  readonly packageName: string;
  constructor(packageName: string, purpose: string, options?: { cause?: unknown }) {
    const noun = packageName.includes(' ') ? 'packages' : 'package';
    super('dependency_missing', `${purpose} needs the optional ${noun} ${packageName}: npm install ${packageName}`, options);
    this.packageName = packageName;
  }
}

/** The missing optional dependency behind an error, when one is (the error itself or its cause chain). */
export function missingDependencyOf(error: unknown): MissingDependencyError | null {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 8; depth++) {
    if (current instanceof MissingDependencyError) return current;
    current = current.cause;
  }
  return null;
}

function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND';
}

/**
 * Require an optional peer dependency (CommonJS entry) on first use, synchronously, so that the
 * modules that need it can be imported without it. Throws `MissingDependencyError` naming the
 * package when it is not installed; other load errors (a native build for another Node) pass
 * through unchanged.
 *
 * @example
 * const Database = requireOptional<typeof import('better-sqlite3')>('better-sqlite3', 'better-sqlite3', 'the SQLite trace store');
 */
export function requireOptional<Module>(packageName: string, specifier: string, purpose: string): Module {
  try {
    return requireFromCachet(specifier) as Module;
  } catch (error) {
    if (isModuleNotFound(error) && String((error as Error).message).includes(packageName)) {
      throw new MissingDependencyError(packageName, purpose, { cause: error });
    }
    throw error;
  }
}

/**
 * `import()` an optional peer dependency (ESM entry), with the same error as `requireOptional`.
 *
 * @example
 * const { Hono } = await importOptional<typeof import('hono')>('hono', 'hono', 'the HTTP API');
 */
export async function importOptional<Module>(packageName: string, specifier: string, purpose: string): Promise<Module> {
  try {
    return (await import(specifier)) as Module;
  } catch (error) {
    if (isModuleNotFound(error) && String((error as Error).message).includes(packageName)) {
      throw new MissingDependencyError(packageName, purpose, { cause: error });
    }
    throw error;
  }
}

/** Whether an optional package can be resolved from Cachet (without loading it). */
export function isInstalled(specifier: string): boolean {
  try {
    requireFromCachet.resolve(specifier);
    return true;
  } catch {
    return false;
  }
}
