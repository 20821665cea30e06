import { isInstalled, MissingDependencyError } from '../model/optional-dependency.js';
import { isPostgresLocation } from '../trace/open-trace-store.js';

/**
 * Load the module behind a command only when the command runs, after checking that the optional
 * peers it imports are installed: a CLI installed without them starts, and the command that
 * needs them exits with a `MissingDependencyError` naming every missing package.
 *
 * @example
 * const { startProxy } = await loadWithPeers(() => import('../../gateway/proxy/start-proxy.js'), ['hono', '@hono/node-server'], 'cachet proxy');
 */
export async function loadWithPeers<Module>(
  load: () => Promise<Module>,
  peers: readonly string[],
  purpose: string,
): Promise<Module> {
  const missing = missingPeers(peers, purpose);
  if (missing) throw missing;
  return load();
}

/** Every one of `peers` that is not installed, named in one error (each package once); null when all are. */
export function missingPeers(peers: readonly string[], purpose: string): MissingDependencyError | null {
  const missing = [...new Set(peers)].filter((peer) => !isInstalled(peer));
  return missing.length > 0 ? new MissingDependencyError(missing.join(' '), purpose) : null;
}

/** The peers of the HTTP surfaces (`serve`, `proxy`, `emulate`). */
export const HTTP_PEERS = ['hono', '@hono/node-server'] as const;

/**
 * The driver the trace store at `location` opens with: checked together with a command's other
 * peers, so one message names every package to install (not hono first, the driver on the next run).
 */
export function traceStorePeer(location: string): string {
  return isPostgresLocation(location) ? 'pg' : 'better-sqlite3';
}
