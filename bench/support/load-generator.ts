import { Agent, request } from 'node:http';

export interface LoadResult {
  connections: number;
  seconds: number;
  requests: number;
  byStatus: Record<number, number>;
  errors: number;
  /** Completed 200 responses per second. */
  okPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * A closed-loop HTTP load generator over node:http (autocannon-like): `connections` keep-alive
 * sockets, each sending its next request as soon as the previous answer is fully read, for
 * `seconds`. Latencies cover every completed request, whatever its status.
 */
export async function runLoad(options: {
  url: string;
  paths: readonly string[];
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  onTick?: () => void;
}): Promise<LoadResult> {
  const target = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  const byStatus: Record<number, number> = {};
  let errors = 0;
  let pathIndex = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;

  const once = () =>
    new Promise<void>((resolve) => {
      const path = options.paths[pathIndex++ % options.paths.length]!;
      const sent = performance.now();
      const outgoing = request(
        { host: target.hostname, port: target.port, path, agent, headers: options.headers ?? {} },
        (incoming) => {
          incoming.on('data', () => {});
          incoming.on('end', () => {
            latencies.push(performance.now() - sent);
            byStatus[incoming.statusCode ?? 0] = (byStatus[incoming.statusCode ?? 0] ?? 0) + 1;
            resolve();
          });
        },
      );
      outgoing.on('error', () => {
        errors += 1;
        resolve();
      });
      outgoing.end();
    });

  const worker = async () => {
    while (performance.now() < deadline) await once();
  };
  const ticker = options.onTick ? setInterval(options.onTick, 100) : null;
  await Promise.all(Array.from({ length: options.connections }, worker));
  if (ticker) clearInterval(ticker);
  agent.destroy();
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((left, right) => left - right);
  const at = (quantile: number) => latencies[Math.min(latencies.length - 1, Math.floor(quantile * latencies.length))] ?? 0;
  return {
    connections: options.connections,
    seconds,
    requests: latencies.length,
    byStatus,
    errors,
    okPerSecond: (byStatus[200] ?? 0) / seconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: latencies.at(-1) ?? 0,
  };
}
