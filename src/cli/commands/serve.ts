import { existsSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { DEFAULT_SERVE_PORT, ServeConfigError } from '../../server/serve-config.js';
import { serveTokenProblem } from '../../server/serve-token.js';
import { isPostgresLocation, openTraceStore } from '../../trace/open-trace-store.js';
import { DEFAULT_TRACE_DB } from '../../trace/sqlite-trace-store.js';
import { HTTP_PEERS, loadWithPeers, traceStorePeer } from '../load-with-peers.js';

/** What `cachet serve` prints as its API: every GET endpoint of the server (serve.test.ts asks each one). */
export const SERVED_PATHS = [
  '/sessions',
  '/sessions/:id/requests',
  '/analytics/overview',
  '/analytics/session_list',
  '/analytics/cache_effectiveness',
  '/analytics/cache_breaks',
  '/analytics/skills',
  '/analytics/plan_savings',
  '/analytics/cause_agreement',
  '/metrics',
] as const;

export interface ServeCommandOptions {
  db: string;
  port: number;
  host: string;
  token?: string;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
  return port;
}

/**
 * `cachet serve`: the analytics API and dashboard over a trace store.
 *
 * @example
 * cachet serve                                   # .cachet/traces.db on http://127.0.0.1:4319
 * cachet serve --db postgres://cachet@db/cachet --host 0.0.0.0 --token "$TOKEN"
 */
export function registerServeCommand(program: Command): Command {
  return program
    .command('serve')
    .description('serve the trace analytics API and dashboard')
    .option('--db <path|url>', 'SQLite file or postgres:// URL (env CACHET_DB)', process.env.CACHET_DB ?? DEFAULT_TRACE_DB)
    .option('--port <n>', 'port to listen on (0 picks a free one)', parsePort, DEFAULT_SERVE_PORT)
    .option('--host <host>', 'interface to bind; anything but loopback requires a token', '127.0.0.1')
    .option('--token <token>', 'bearer token required by the API (env CACHET_SERVE_TOKEN)')
    .action(async (options: ServeCommandOptions) => {
      await runServe(options);
    });
}

/** Start serving and stop cleanly on SIGINT/SIGTERM. Resolves once the server is listening. */
export async function runServe(
  options: ServeCommandOptions,
  output: (line: string) => void = console.log,
): Promise<() => Promise<void>> {
  const token = options.token ?? process.env.CACHET_SERVE_TOKEN;
  // Refuse an unusable token before touching the store (the CLI exits 2).
  const tokenProblem = token ? serveTokenProblem(token) : null;
  if (tokenProblem) throw new ServeConfigError(tokenProblem);
  // A missing package is named first: the user must install it whatever the store.
  const { startServer } = await loadWithPeers(
    () => import('../../server/start-server.js'),
    [...HTTP_PEERS, traceStorePeer(options.db)],
    'cachet serve',
  );
  // Serving only reads: a mistyped path must not become a new, empty store that shows nothing.
  if (!isPostgresLocation(options.db) && !existsSync(options.db)) {
    throw new ServeConfigError(
      `--db ${options.db}: no trace store there (cachet serve reads an existing store; cachet proxy, demo and simulate create one)`,
    );
  }
  const store = await openTraceStore(options.db);
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({ store, host: options.host, port: options.port, ...(token ? { token } : {}) });
  } catch (error) {
    await store.close();
    throw error;
  }
  output(`cachet serve: ${store.backend} store ${store.location}`);
  output(`dashboard: ${server.url}/${token ? '#token=<your token>' : ''}`);
  output(`API: ${server.url}${SERVED_PATHS.join(', ')} (docs/observability.md)`);
  const stop = async () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await server.close();
    await store.close();
  };
  const onSignal = () => {
    void stop().then(() => process.exit(0));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return stop;
}
