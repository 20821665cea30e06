import type { AddressInfo } from 'node:net';
import type { TraceStore } from '../trace/trace-store.js';
import { createAnalyticsReader } from './analytics-reader.js';
import { createApp } from './create-app.js';
import { nodeServe } from './http-peers.js';
import { isLoopbackHost } from './loopback.js';
import { DEFAULT_SERVE_PORT, ServeConfigError } from './serve-config.js';
import { serveTokenProblem } from './serve-token.js';

export interface ServerOptions {
  store: TraceStore;
  /** Default 127.0.0.1. Any other interface requires `token`. */
  host?: string;
  /** Default 4319; 0 picks a free port. */
  port?: number;
  token?: string;
  /** Data requests in flight before new ones get 503 + `Retry-After` (default 128). */
  maxConcurrentRequests?: number;
}

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:4319`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export { DEFAULT_SERVE_PORT, ServeConfigError } from './serve-config.js';

/**
 * Serve the analytics API and dashboard. Refuses to bind anything but loopback without a
 * bearer token: trace payloads contain prompts and tool output.
 *
 * @example
 * const server = await startServer({ store: await openTraceStore() });
 * console.log(`dashboard at ${server.url}`);
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? DEFAULT_SERVE_PORT;
  if (!isLoopbackHost(host) && !options.token) {
    throw new ServeConfigError(
      `refusing to listen on ${host} without a bearer token: pass --token or set CACHET_SERVE_TOKEN (or bind to 127.0.0.1)`,
    );
  }
  const tokenProblem = options.token === undefined ? null : serveTokenProblem(options.token);
  if (tokenProblem) throw new ServeConfigError(tokenProblem);
  const reader = createAnalyticsReader(options.store);
  const app = createApp({
    store: options.store,
    reader,
    ...(options.token ? { token: options.token } : {}),
    ...(options.maxConcurrentRequests ? { maxConcurrentRequests: options.maxConcurrentRequests } : {}),
  });
  return new Promise((resolve, reject) => {
    const serve = nodeServe('the HTTP API (startServer)');
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        port: info.port,
        close: async () => {
          await new Promise<void>((done) => server.close(() => done()));
          await reader.close();
        },
      });
    });
    server.once('error', (error) => {
      void reader.close();
      reject(new ServeConfigError(`cannot listen on ${host}:${port}: ${error.message}`, { cause: error }));
    });
  });
}
