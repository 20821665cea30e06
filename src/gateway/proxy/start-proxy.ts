import type { AddressInfo } from 'node:net';
import { nodeServe } from '../../server/http-peers.js';
import { checkListenHost } from '../listen-policy.js';
import { createProxyApp, type ProxyOptions, type ProxyStats } from './create-proxy-app.js';

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
  close(): Promise<void>;
}

/**
 * Start the proxy on loopback. Point a client's base URL at it: Anthropic at `url`, OpenAI at
 * `${url}/v1`, OpenRouter at `${url}/api/v1`.
 *
 * @example
 * const proxy = await startProxy({ upstream: 'anthropic', bus });
 * const client = new Anthropic({ baseURL: proxy.url });
 */
export async function startProxy(options: StartProxyOptions): Promise<RunningProxy> {
  const host = options.host ?? '127.0.0.1';
  const { warning } = checkListenHost('cachet proxy', host, options.allowRemote ?? false);
  if (warning) options.onWarning?.(warning);
  const proxy = createProxyApp({ ...options, hostGuard: options.hostGuard ?? warning === null });
  return new Promise((resolve, reject) => {
    const serve = nodeServe('the proxy (startProxy)');
    const server = serve({ fetch: proxy.app.fetch, hostname: host, port: options.port ?? 0 }, (info: AddressInfo) => {
      resolve({
        url: `http://${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${info.port}`,
        port: info.port,
        settled: proxy.settled,
        judgingDropped: proxy.judgingDropped,
        stats: proxy.stats,
        close: async () => {
          proxy.stopKeepWarm();
          await new Promise<void>((done) => {
            server.close(() => done());
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          });
          await proxy.settled();
        },
      });
    });
    server.once('error', (error: Error) =>
      reject(new Error(`cachet proxy: cannot listen on ${host}:${options.port ?? 0}: ${error.message}`)),
    );
  });
}
