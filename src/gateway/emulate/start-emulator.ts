import type { AddressInfo } from 'node:net';
import { nodeServe } from '../../server/http-peers.js';
import { checkListenHost } from '../listen-policy.js';
import { createEmulatorApp, type EmulatorOptions, type EmulatorStats, type ReceivedRequest } from './create-emulator-app.js';

export interface StartEmulatorOptions extends EmulatorOptions {
  /** [0: a free port] */
  port?: number;
  /** [127.0.0.1] */
  host?: string;
  /** Required to listen on an interface other machines can reach; then any `Host` is answered and `onWarning` hears why. */
  allowRemote?: boolean;
  onWarning?: (message: string) => void;
}

export interface RunningEmulator {
  /** Base URL without a path, e.g. `http://127.0.0.1:43123`. */
  url: string;
  port: number;
  /** The last `keepReceived` requests (1,000 by default), in order: path and body bytes as sent (headers are never kept). */
  received: ReceivedRequest[];
  /** What the emulator holds now (the Responses store's bytes and evictions). */
  stats(): EmulatorStats;
  close(): Promise<void>;
}

/**
 * Start the provider emulator on loopback. Point an SDK's base URL at it: Anthropic at
 * `url`, OpenAI at `${url}/v1`, OpenRouter at `${url}/api/v1`.
 *
 * @example
 * const emulator = await startEmulator({ provider: 'anthropic' });
 * const client = new Anthropic({ apiKey: 'test', baseURL: emulator.url });
 * const reply = await client.messages.create(body);
 * reply.usage.cache_read_input_tokens;
 * await emulator.close();
 */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  const { warning } = checkListenHost('cachet emulate', host, options.allowRemote ?? false);
  if (warning) options.onWarning?.(warning);
  const { app, received, stats } = createEmulatorApp({ ...options, hostGuard: options.hostGuard ?? warning === null });
  return new Promise((resolve, reject) => {
    const serve = nodeServe('the emulator (startEmulator)');
    const server = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 0 }, (info: AddressInfo) => {
      resolve({
        url: `http://${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${info.port}`,
        port: info.port,
        received,
        stats,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
    server.once('error', reject);
  });
}
