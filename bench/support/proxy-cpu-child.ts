/**
 * One proxy in its own process, for `proxy-yardstick`: the yardstick, `cachet proxy`
 * (pass-through) or `cachet proxy --plan`, each recording to SQLite as the CLI does (the
 * yardstick loads nothing of Cachet). It prints `{"port":…}`, then answers each line on stdin:
 * - `cpu`: once every exchange in flight is recorded and written, its own CPU so far
 *   (`{"cpuUs":…,"userUs":…,"systemUs":…}`: user + system, then each);
 * - `stats`: the proxy's `stats()` (`{}` for the yardstick);
 * - `gc`: a full collection (`{}`), before a measured run, as the bench did in one process.
 * Each proxy in its own process is how they run in production: no proxy's heap makes another's
 * garbage collection slower, and each one's CPU is its own, not a difference of two runs.
 * Run (the bench does, see built-code.ts): `node --expose-gc <tsc output>/bench/support/proxy-cpu-child.js <yardstick|cachet|plan> <upstream port>`,
 * or under tsx on the source with `CACHET_BENCH_CODE=source`.
 */
import { createInterface } from 'node:readline';
import { startYardstickProxy } from './proxy-bench-kit.js';

type Role = 'yardstick' | 'cachet' | 'plan';

async function start(role: Role, upstreamPort: number): Promise<{ port: number; settle(): Promise<void>; stats(): unknown }> {
  if (role === 'yardstick') {
    const { port } = await startYardstickProxy(upstreamPort);
    return { port, settle: async () => {}, stats: () => ({}) };
  }
  // As `cachet proxy` does in its own process.
  const { collectYoungSoonerForProxy } = await import('../../src/gateway/proxy/proxy-gc.js');
  collectYoungSoonerForProxy();
  const { EventBus } = await import('../../src/events/event-bus.js');
  const { PROXY_TRACE_WRITE_INTERVAL_MS, startProxy } = await import('../../src/gateway/proxy/start-proxy.js');
  const { recordEvents } = await import('../../src/trace/record-events.js');
  const { openSqliteTraceStore } = await import('../../src/trace/sqlite-trace-store.js');
  const store = openSqliteTraceStore(':memory:');
  const bus = new EventBus();
  const recorder = recordEvents(bus, store, { minWriteIntervalMs: PROXY_TRACE_WRITE_INTERVAL_MS });
  const judgeQueue = process.env.CACHET_PROXY_JUDGE_QUEUE;
  const proxy = await startProxy({
    upstream: `http://127.0.0.1:${upstreamPort}`,
    bus,
    plan: role === 'plan',
    ...(judgeQueue === undefined ? {} : { judgeQueue: Number(judgeQueue) }),
  });
  return {
    port: proxy.port,
    settle: async () => {
      await proxy.settled();
      await recorder.flush();
    },
    stats: () => proxy.stats(),
  };
}

const [role, upstreamPort] = [process.argv[2] as Role, Number(process.argv[3])];
const proxy = await start(role, upstreamPort);
console.log(JSON.stringify({ port: proxy.port }));
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'cpu') {
    await proxy.settle();
    const used = process.cpuUsage();
    console.log(JSON.stringify({ cpuUs: used.user + used.system, userUs: used.user, systemUs: used.system }));
  } else if (line === 'stats') {
    console.log(JSON.stringify(proxy.stats()));
  } else if (line === 'gc') {
    (globalThis as { gc?: () => void }).gc?.();
    console.log('{}');
  }
}
process.exit(0);
