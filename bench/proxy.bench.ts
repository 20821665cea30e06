/**
 * Proxy overhead (issue 12 targets): median added latency ≤ 2 ms per request and ≥ 500
 * requests/s on one core, for 50 KB Anthropic bodies. The upstream is a minimal node:http
 * server answering a fixed Messages reply with usage; "direct" calls go to it, "proxied"
 * calls go through `cachet proxy` (pass-through, recording usage and breaks to SQLite). Latency: sequential calls alternating direct/proxied, median of each and
 * the difference. Throughput: 16 concurrent clients for a fixed time, direct then proxied; the
 * proxy's CPU per request is the proxied run's CPU per request minus the direct run's (client
 * and upstream are the same in both), and its inverse is requests per second on one core.
 */
import { availableParallelism, loadavg } from 'node:os';
import { EventBus } from '../src/events/event-bus.js';
import { PROXY_TRACE_WRITE_INTERVAL_MS, startProxy } from '../src/gateway/proxy/start-proxy.js';
import { recordEvents } from '../src/trace/record-events.js';
import { openSqliteTraceStore } from '../src/trace/sqlite-trace-store.js';
import { startStubUpstream } from './support/proxy-bench-kit.js';

const BODY_BYTES = 50 * 1024;
const LATENCY_PAIRS = 1500;
const THROUGHPUT_MS = 6000;
const CONCURRENCY = 16;
const CONVERSATIONS = 20;

const upstream = await startStubUpstream();
const upstreamUrl = upstream.url;

/** A 50 KB body of conversation `conversation` at turn `turn`: history grows, the start stays. */
function body(conversation: number, turn: number): string {
  const system = `You are agent ${conversation}. ${'Follow the repository conventions and run the tests. '.repeat(200)}`;
  const messages: unknown[] = [{ role: 'user', content: [{ type: 'text', text: `conversation ${conversation}: start` }] }];
  let index = 0;
  let text = JSON.stringify({ system, messages });
  while (text.length < BODY_BYTES - 400) {
    messages.push({
      role: index % 2 === 0 ? 'assistant' : 'user',
      content: [{ type: 'text', text: `turn ${index} ${'x'.repeat(400)}` }],
    });
    index++;
    text = JSON.stringify({ system, messages });
  }
  messages.push({ role: 'user', content: [{ type: 'text', text: `request ${turn}` }] });
  return JSON.stringify({
    model: 'claude-sonnet-5',
    max_tokens: 1024,
    system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
    messages,
  });
}
const bodies = Array.from({ length: CONVERSATIONS }, (_, conversation) => body(conversation, 0));
console.log(`body size ${(Buffer.byteLength(bodies[0]!) / 1024).toFixed(1)} KB, ${CONVERSATIONS} conversations`);
// Sequential latency is sensitive to how soon the process is scheduled again: print the load.
console.log(
  `machine: ${availableParallelism()} cores, load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ')}`,
);

// Client, upstream and proxy share one process (one JS thread): the difference between the
// direct and the proxied runs is the proxy's own work, free of cross-process scheduling delays
// on a loaded machine. The proxy records to SQLite as `cachet proxy` does.
const store = openSqliteTraceStore(':memory:');
const bus = new EventBus();
const recorder = recordEvents(bus, store, { minWriteIntervalMs: PROXY_TRACE_WRITE_INTERVAL_MS });
const proxy = await startProxy({ upstream: upstreamUrl, bus });
const proxyUrl = proxy.url;

async function call(base: string, index: number): Promise<void> {
  const response = await fetch(`${base}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-bench', 'anthropic-version': '2023-06-01' },
    body: bodies[index % CONVERSATIONS],
  });
  await response.text();
  if (!response.ok) throw new Error(`status ${response.status}`);
}

// Warm up both paths (JIT, connections, tokenizer memo).
for (let index = 0; index < 200; index++) {
  await call(upstreamUrl, index);
  await call(proxyUrl, index);
}

const direct: number[] = [];
const proxied: number[] = [];
for (let index = 0; index < LATENCY_PAIRS; index++) {
  for (const [base, samples] of index % 2 === 0
    ? ([
        [upstreamUrl, direct],
        [proxyUrl, proxied],
      ] as const)
    : ([
        [proxyUrl, proxied],
        [upstreamUrl, direct],
      ] as const)) {
    const started = performance.now();
    await call(base, index);
    samples.push(performance.now() - started);
  }
}
const median = (values: number[]) => [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)]!;
const p99 = (values: number[]) => [...values].sort((left, right) => left - right)[Math.floor(values.length * 0.99)]!;
const added = median(proxied) - median(direct);
console.log(
  `latency (sequential, ${LATENCY_PAIRS} pairs): direct median ${median(direct).toFixed(2)} ms (p99 ${p99(direct).toFixed(2)}), proxied median ${median(proxied).toFixed(2)} ms (p99 ${p99(proxied).toFixed(2)})`,
);
console.log(
  `  added median latency ${added.toFixed(2)} ms (target ≤ 2 ms) — ratio proxied/direct ${(median(proxied) / median(direct)).toFixed(2)}×`,
);

async function load(base: string): Promise<{ requests: number; seconds: number }> {
  let requests = 0;
  const deadline = performance.now() + THROUGHPUT_MS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      let index = worker;
      while (performance.now() < deadline) {
        await call(base, index);
        index += CONCURRENCY;
        requests++;
      }
    }),
  );
  return { requests, seconds: (performance.now() - started) / 1000 };
}

const cpuSeconds = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};
let cpu = cpuSeconds();
const directLoad = await load(upstreamUrl);
const directCpu = cpuSeconds() - cpu;
cpu = cpuSeconds();
const proxiedLoad = await load(proxyUrl);
await proxy.settled();
await recorder.flush();
const proxiedCpu = cpuSeconds() - cpu;
const directRate = directLoad.requests / directLoad.seconds;
const proxiedRate = proxiedLoad.requests / proxiedLoad.seconds;
console.log(
  `throughput (${CONCURRENCY} concurrent, ${THROUGHPUT_MS / 1000} s, one JS thread for client, proxy and upstream): direct ${directRate.toFixed(0)} req/s, proxied ${proxiedRate.toFixed(0)} req/s (ratio ${(proxiedRate / directRate).toFixed(2)})`,
);
const proxyCpuPerRequest = proxiedCpu / proxiedLoad.requests - directCpu / directLoad.requests;
console.log(
  `  CPU per request: direct ${((1000 * directCpu) / directLoad.requests).toFixed(2)} ms, proxied ${((1000 * proxiedCpu) / proxiedLoad.requests).toFixed(2)} ms → the proxy's own ${(1000 * proxyCpuPerRequest).toFixed(2)} ms = ${(1 / proxyCpuPerRequest).toFixed(0)} req/s on one core (target ≥ 500)`,
);
const sessions = await store.sessions({ limit: 1000 });
console.log(
  `  recorded: ${sessions.reduce((sum, session) => sum + session.requests, 0)} requests in ${sessions.length} conversations (every proxied call)`,
);

// `--plan` (no target): the body is parsed and rewritten before it is sent; with plan savings on
// (the default) both the client's body and the planned one are also judged by the conversation's
// cache models after the reply.
for (const savings of [true, false]) {
  const planProxy = await startProxy({ upstream: upstreamUrl, bus, plan: { savings } });
  for (let index = 0; index < 200; index++) await call(planProxy.url, index);
  cpu = cpuSeconds();
  const plannedLoad = await load(planProxy.url);
  await planProxy.settled();
  await recorder.flush();
  const planCpuPerRequest = (cpuSeconds() - cpu) / plannedLoad.requests - directCpu / directLoad.requests;
  console.log(
    `--plan${savings ? '' : ' --no-plan-savings'}: ${(plannedLoad.requests / plannedLoad.seconds).toFixed(0)} req/s; the proxy's own CPU ${(1000 * planCpuPerRequest).toFixed(2)} ms per request = ${(1 / planCpuPerRequest).toFixed(0)} req/s on one core`,
  );
  await planProxy.close();
}
await proxy.close();
await recorder.stop();
await store.close();
await upstream.close();
