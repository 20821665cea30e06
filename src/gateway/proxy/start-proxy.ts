import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkListenHost } from '../listen-policy.js';
import { createNodeProxyHandler } from './node-front.js';
import { createProxyCore, type ProxyOptions, type ProxyStats } from './proxy-core.js';
import { fetchTransport, nodeTransport } from './upstream-transport.js';

/**
 * The trace recorder's `minWriteIntervalMs` for a proxy (`cachet proxy` records with it): one
 * client at a time publishes one exchange per turn of the event loop, and a SQLite transaction per
 * exchange cost more than its rows (5 KB bodies: 330 µs per exchange, against 90 µs in batches
 * of 32). A batch's rollups cost about the same whatever its size, so longer intervals still pay:
 * 65–80 µs per exchange in batches of 33 (50 ms at concurrency 1), 45–52 µs in batches of 130.
 * Events reach the store at most this much later; `recorder.stop()` writes what waits.
 */
export const PROXY_TRACE_WRITE_INTERVAL_MS = 200;

export interface StartProxyOptions extends ProxyOptions {
  /** [0: a free port] */
  port?: number;
  /** [127.0.0.1] */
  host?: string;
  /**
   * Required to listen on an interface other machines can reach (`0.0.0.0`, a LAN address): the
   * proxy then answers any `Host`, and a warning goes to `onWarning`. Without it such a `host` is refused.
   */
  allowRemote?: boolean;
}

export interface RunningProxy {
  url: string;
  port: number;
  /** Resolves when every exchange in flight has been recorded or dropped. */
  settled(): Promise<void>;
  /** Exchanges recorded without judging because the judge queue was full. */
  judgingDropped(): number;
  /** What the proxy holds and what it let go to stay within its budgets. */
  stats(): ProxyStats;
  /**
   * Stop accepting connections, let the exchanges in flight finish and be recorded, then close.
   * Exchanges still running after `graceMs` [10,000] are cut off (their clients see a reset).
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** How long `close()` waits for exchanges in flight by default: a reply being streamed usually ends within it. */
const DEFAULT_CLOSE_GRACE_MS = 10_000;

/**
 * Start the proxy on loopback. Point a client's base URL at it: Anthropic at `url`, OpenAI at
 * `${url}/v1`, OpenRouter at `${url}/api/v1`. It serves with node:http and calls the upstream
 * with node:http(s) and a keep-alive agent (or the injected `fetch`).
 *
 * @example
 * const proxy = await startProxy({ upstream: 'anthropic', bus });
 * const client = new Anthropic({ baseURL: proxy.url });
 */
export async function startProxy(options: StartProxyOptions): Promise<RunningProxy> {
  const host = options.host ?? '127.0.0.1';
  const { warning } = checkListenHost('cachet proxy', host, options.allowRemote ?? false);
  if (warning) options.onWarning?.(warning);
  const core = createProxyCore({ ...options, hostGuard: options.hostGuard ?? warning === null });
  const transport = options.fetch ? fetchTransport(options.fetch, core.base) : nodeTransport(core.base);
  const server = createServer(createNodeProxyHandler(core, transport, options.onWarning));
  return new Promise((resolve, reject) => {
    server.once('error', (error: Error) =>
      reject(new Error(`cachet proxy: cannot listen on ${host}:${options.port ?? 0}: ${error.message}`)),
    );
    server.listen(options.port ?? 0, host, () => {
      const info = server.address() as AddressInfo;
      resolve({
        url: `http://${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${info.port}`,
        port: info.port,
        settled: core.settled,
        judgingDropped: core.judgingDropped,
        stats: core.stats,
        close: async (closeOptions = {}) => {
          core.stopKeepWarm();
          await closeGracefully(server, closeOptions.graceMs ?? DEFAULT_CLOSE_GRACE_MS);
          transport.close();
          await core.settled();
        },
      });
    });
  });
}

/**
 * `server.close()` refuses new connections; a connection whose exchange ends goes idle and is
 * closed by the sweep (a client's keep-alive socket would otherwise hold the server open).
 */
function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((done) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const cutOff = setTimeout(() => server.closeAllConnections(), Math.max(0, graceMs));
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(cutOff);
      done();
    });
    server.closeIdleConnections();
  });
}
