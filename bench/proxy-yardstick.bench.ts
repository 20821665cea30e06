/**
 * `cachet proxy` against a minimal Node pass-through proxy (node:http piping request and reply,
 * keep-alive both ways) on the same upstream, in one run (issue 21 targets: CPU per request ≤ 2×
 * the yardstick's in pass-through, ≤ 3× under `--plan`, for 5, 50 and 500 KB bodies at
 * concurrency 1 and 32). Client, upstream and proxies share this process: a proxy's CPU per
 * request is the process CPU of its run minus that of the direct run (same client, same upstream),
 * so only ratios measured here mean anything; each figure is the median of interleaved rounds
 * (`CACHET_PROXY_ROUNDS`, 3). Then: the latency a small client sees while another
 * sends 60 KB whitespace-free Chat requests through `--plan` (target: within 2× of idle).
 */
import { Agent } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { EventBus } from '../src/events/event-bus.js';
import { PROXY_TRACE_WRITE_INTERVAL_MS, startProxy } from '../src/gateway/proxy/start-proxy.js';
import { recordEvents } from '../src/trace/record-events.js';
import { openSqliteTraceStore } from '../src/trace/sqlite-trace-store.js';
import { postJson, startStubUpstream, startYardstickProxy } from './support/proxy-bench-kit.js';

const SIZES_KB = [5, 50, 500];
const CONCURRENCIES = [1, 32];
const REQUESTS: Record<number, number> = { 5: 600, 50: 300, 500: 64 };
const CONVERSATIONS = 32;
/** Interleaved rounds per cell, the median kept [3] (`CACHET_PROXY_ROUNDS`). */
const ROUNDS = Math.max(1, Number(process.env.CACHET_PROXY_ROUNDS ?? 3));

const upstream = await startStubUpstream();
const upstreamPort = upstream.port;
const yardstick = await startYardstickProxy(upstreamPort);
const yardstickPort = yardstick.port;

const store = openSqliteTraceStore(':memory:');
const bus = new EventBus();
// Recorded as `cachet proxy` records: writes at most every PROXY_TRACE_WRITE_INTERVAL_MS.
const recorder = recordEvents(bus, store, { minWriteIntervalMs: PROXY_TRACE_WRITE_INTERVAL_MS });
const passThrough = await startProxy({ upstream: `http://127.0.0.1:${upstreamPort}`, bus });
const planned = await startProxy({ upstream: `http://127.0.0.1:${upstreamPort}`, bus, plan: true });

function body(conversation: number, kilobytes: number): string {
  const system = `You are agent ${conversation}. ${'Follow the repository conventions and run the tests. '.repeat(40)}`;
  const messages: unknown[] = [];
  let size = system.length;
  for (let index = 0; size < kilobytes * 1024 - 600; index++) {
    const text = `[${conversation}] turn ${index} ${'lorem ipsum dolor sit amet '.repeat(20)}`;
    messages.push({ role: index % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text }] });
    size += text.length + 60;
  }
  if (messages.length % 2 === 0) messages.push({ role: 'user', content: [{ type: 'text', text: 'go on' }] });
  return JSON.stringify({
    model: 'claude-sonnet-5',
    max_tokens: 1024,
    system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
    messages,
  });
}

const clientAgent = new Agent({ keepAlive: true, maxSockets: 64 });
const call = (port: number, payload: string, path = '/v1/messages') => postJson(clientAgent, port, payload, path);

async function run(port: number, bodies: string[], requests: number, concurrency: number) {
  const latencies: number[] = [];
  let next = 0;
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        const index = next++;
        latencies.push(await call(port, bodies[index % bodies.length]!));
      }
    }),
  );
  await passThrough.settled();
  await planned.settled();
  // Each proxy pays for its own trace writes, inside its own measured window.
  await recorder.flush();
  const used = process.cpuUsage(cpu);
  latencies.sort((left, right) => left - right);
  return { cpuPerRequestUs: (used.user + used.system) / requests, medianMs: latencies[Math.floor(latencies.length / 2)]! };
}

console.log(
  `machine: ${availableParallelism()} cores, load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ')}`,
);
console.log(
  `CPU per request is the proxy's own (run minus direct run, same process), the median of ${ROUNDS} interleaved rounds; ratios against the yardstick.`,
);
console.log('size   conc  direct µs  yardstick µs  cachet µs (ratio)  --plan µs (ratio)   median ms: direct/yard/cachet/plan');
const targets = {
  direct: upstreamPort,
  yardstick: yardstickPort,
  cachet: Number(new URL(passThrough.url).port),
  plan: Number(new URL(planned.url).port),
};
for (const kilobytes of SIZES_KB) {
  const bodies = Array.from({ length: CONVERSATIONS }, (_, conversation) => body(conversation, kilobytes));
  for (const concurrency of CONCURRENCIES) {
    const requests = REQUESTS[kilobytes]!;
    // Each target is measured ROUNDS times, the targets interleaved, and each keeps its median
    // round: on a shared machine one run moves by ±1×, a median of interleaved rounds much less.
    const rounds: Record<string, Array<{ cpuPerRequestUs: number; medianMs: number }>> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, port] of Object.entries(targets)) {
        await run(port, bodies, Math.min(64, requests), concurrency); // warm-up
        (globalThis as { gc?: () => void }).gc?.();
        const result = await run(port, bodies, requests, concurrency);
        rounds[name] = [...(rounds[name] ?? []), result];
      }
    }
    const measured: Record<string, { cpuPerRequestUs: number; medianMs: number }> = {};
    for (const [name, results] of Object.entries(rounds)) {
      measured[name] = [...results].sort((left, right) => left.cpuPerRequestUs - right.cpuPerRequestUs)[
        Math.floor(results.length / 2)
      ]!;
    }
    const own = (name: string) => Math.max(1, measured[name]!.cpuPerRequestUs - measured.direct!.cpuPerRequestUs);
    const ratio = (name: string) => (own(name) / own('yardstick')).toFixed(2);
    console.log(
      `${`${kilobytes} KB`.padEnd(7)}${String(concurrency).padEnd(6)}${measured.direct!.cpuPerRequestUs.toFixed(0).padStart(9)}  ${own('yardstick').toFixed(0).padStart(12)}  ${`${own('cachet').toFixed(0)} (${ratio('cachet')}×)`.padStart(17)}  ${`${own('plan').toFixed(0)} (${ratio('plan')}×)`.padStart(17)}   ${['direct', 'yardstick', 'cachet', 'plan'].map((name) => measured[name]!.medianMs.toFixed(2)).join(' / ')}`,
    );
  }
}

// Hostile neighbour: 60 KB without whitespace, through --plan, every 20 ms; a small client's latency.
const hostile = JSON.stringify({
  model: 'gpt-4.1',
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'z'.repeat(60 * 1024) },
  ],
});
const small = body(0, 5);
const samples = async (count: number) => {
  const latencies: number[] = [];
  for (let index = 0; index < count; index++) latencies.push(await call(targets.plan, small));
  latencies.sort((left, right) => left - right);
  return latencies[Math.floor(latencies.length / 2)]!;
};
const idle = await samples(200);
let hostileSent = 0;
let stop = false;
const neighbour = (async () => {
  while (!stop) {
    await call(targets.plan, hostile, '/v1/chat/completions').catch(() => {});
    hostileSent++;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
})();
const loaded = await samples(200);
stop = true;
await neighbour;
console.log(
  `60 KB whitespace-free neighbour under --plan (${hostileSent} sent): small client's median ${loaded.toFixed(2)} ms vs idle ${idle.toFixed(2)} ms — ${(loaded / idle).toFixed(2)}× (target ≤ 2×)`,
);
console.log(`proxy stats: ${JSON.stringify(planned.stats())}`);

await passThrough.close();
await planned.close();
await recorder.stop();
await store.close();
clientAgent.destroy();
await yardstick.close();
await upstream.close();
