/**
 * `cachet proxy` against a minimal Node pass-through proxy (node:http piping request and reply,
 * keep-alive both ways) on the same upstream, in one run (issue 21 targets: CPU per request ≤ 2×
 * the yardstick's in pass-through, ≤ 3× under `--plan`, for 5, 50 and 500 KB bodies at
 * concurrency 1 and 32). Each proxy runs in its own process, as in production
 * (`bench/support/proxy-cpu-child.ts`: pass-through and `--plan` recording to SQLite as the CLI
 * does); the client and the stub upstream run here. A proxy's CPU per request is its own
 * process's CPU over a run (its trace writes included) divided by the requests; each figure is
 * the median of interleaved rounds (`CACHET_PROXY_ROUNDS`, 5), the targets' order alternating from
 * one round to the next, and each ratio the median of the rounds' ratios (each proxy's run against
 * the yardstick's run of the same round, minutes of load drift cancelled). Each cell also prints the judgings
 * each Cachet proxy dropped (its queue full: work it did not do); `CACHET_PROXY_JUDGE_QUEUE=1000000`
 * judges everything. Then: the latency a small client
 * sees while another sends 60 KB whitespace-free Chat requests through `--plan` (target: within
 * 2× of idle).
 */
import { spawn } from 'node:child_process';
import { Agent } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { benchChildCommand, benchCode } from './support/built-code.js';
import { postJson, startStubUpstream } from './support/proxy-bench-kit.js';

const SIZES_KB = [5, 50, 500];
const CONCURRENCIES = [1, 32];
/**
 * Requests per measured run. At 500 KB a run of 64 (two waves at concurrency 32) either held one of
 * a proxy's full collections or none, and the yardstick's figure moved by 40% from run to run: 192.
 */
const REQUESTS: Record<number, number> = { 5: 600, 50: 300, 500: 192 };
const CONVERSATIONS = 32;
/** Interleaved rounds per cell, the median kept [5] (`CACHET_PROXY_ROUNDS`). */
const ROUNDS = Math.max(1, Number(process.env.CACHET_PROXY_ROUNDS ?? 5));

type Role = 'yardstick' | 'cachet' | 'plan';

/** A proxy in its own process, and a line-per-line conversation with it. */
async function startChild(role: Role, upstreamPort: number) {
  const { command, args } = benchChildCommand('bench/support/proxy-cpu-child.ts', ['--expose-gc']);
  const child = spawn(command, [...args, role, String(upstreamPort)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value as string) as Record<string, unknown>;
  const { port } = (await next()) as { port: number };
  const ask = async (command: string) => {
    child.stdin!.write(`${command}\n`);
    return next();
  };
  return {
    port,
    cpuUs: async () => Number((await ask('cpu')).cpuUs),
    gc: () => ask('gc'),
    stats: () => ask('stats'),
    close: async () => {
      child.stdin!.end();
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

const upstream = await startStubUpstream();
const upstreamPort = upstream.port;
const children = {
  yardstick: await startChild('yardstick', upstreamPort),
  cachet: await startChild('cachet', upstreamPort),
  plan: await startChild('plan', upstreamPort),
};

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

/** One run: the CPU per request of the target's process (this one's for `direct`), and the median latency. */
async function run(name: 'direct' | Role, bodies: string[], requests: number, concurrency: number) {
  const port = name === 'direct' ? upstreamPort : children[name].port;
  const cpuUs =
    name === 'direct' ? () => Promise.resolve(process.cpuUsage().user + process.cpuUsage().system) : children[name].cpuUs;
  const latencies: number[] = [];
  let next = 0;
  const before = await cpuUs();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        const index = next++;
        latencies.push(await call(port, bodies[index % bodies.length]!));
      }
    }),
  );
  // A proxy's figure includes its recording: `cpu` answers once its exchanges are written.
  const used = (await cpuUs()) - before;
  latencies.sort((left, right) => left - right);
  return { cpuPerRequestUs: used / requests, medianMs: latencies[Math.floor(latencies.length / 2)]! };
}

const runSizes = Object.entries(REQUESTS)
  .map(([size, count]) => `${count} requests a run at ${size} KB`)
  .join(', ');
console.log(
  `machine: ${availableParallelism()} cores, load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ')}`,
);
console.log(
  benchCode() === 'built'
    ? 'proxies: tsc output as `npm run build` ships it, run by node (CACHET_BENCH_CODE=source: the sources under tsx)'
    : 'proxies: the sources under tsx (esbuild keepNames; the shipped build does not pay it)',
);
console.log(
  `CPU per request is each proxy's own process's (direct: this process, client and upstream), the median of ${ROUNDS} interleaved rounds (order alternating; ${runSizes}); each ratio is the median of the rounds' ratios to the yardstick's run of the same round, [its lowest–highest].`,
);
console.log(
  `judging: ${process.env.CACHET_PROXY_JUDGE_QUEUE === undefined ? 'the default queue (judgings beyond it are dropped, counted per cell as "dropped cachet / --plan")' : `queue of ${process.env.CACHET_PROXY_JUDGE_QUEUE} (CACHET_PROXY_JUDGE_QUEUE)`}`,
);
console.log(
  'size   conc  direct µs  yardstick µs [range]   cachet µs (ratio) [range]   --plan µs (ratio) [range]   median ms: direct/yard/cachet/plan',
);
const TARGETS = ['direct', 'yardstick', 'cachet', 'plan'] as const;
/** Judgings each Cachet proxy has dropped so far (its queue was full): work it did not do. */
async function droppedJudgings(): Promise<{ cachet: number; plan: number }> {
  const dropped = async (role: 'cachet' | 'plan') => Number((await children[role].stats()).judgingDropped ?? 0);
  return { cachet: await dropped('cachet'), plan: await dropped('plan') };
}
// A proxy in production has long finished compiling its hot paths; a fresh process has not, and
// its compiler threads count in its CPU. Every target first serves each size once, unmeasured, so
// the first cell measured is not the one that pays for the JIT.
for (const kilobytes of SIZES_KB) {
  const bodies = Array.from({ length: CONVERSATIONS }, (_, conversation) => body(conversation, kilobytes));
  for (const name of TARGETS) await run(name, bodies, REQUESTS[kilobytes]!, 8);
}
for (const kilobytes of SIZES_KB) {
  const bodies = Array.from({ length: CONVERSATIONS }, (_, conversation) => body(conversation, kilobytes));
  for (const concurrency of CONCURRENCIES) {
    const requests = REQUESTS[kilobytes]!;
    // Each target is measured ROUNDS times, the targets interleaved (their order reversed every
    // other round, so no proxy always runs right after the same one) and each figure is its median
    // round; a ratio pairs each proxy's run with the yardstick's of the same round, seconds apart.
    const rounds: Record<string, Array<{ cpuPerRequestUs: number; medianMs: number }>> = {};
    const droppedBefore = await droppedJudgings();
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? TARGETS : [...TARGETS].reverse();
      for (const name of order) {
        await run(name, bodies, Math.min(64, requests), concurrency); // warm-up
        if (name === 'direct') (globalThis as { gc?: () => void }).gc?.();
        else await children[name].gc();
        const result = await run(name, bodies, requests, concurrency);
        rounds[name] = [...(rounds[name] ?? []), result];
      }
    }
    const droppedAfter = await droppedJudgings();
    const perRequest = (name: string) => rounds[name]!.map((result) => Math.max(1, result.cpuPerRequestUs));
    const median = (values: number[]) => [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)]!;
    const range = (values: number[], digits: number) =>
      `[${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}]`;
    const ratios = (name: string) => perRequest(name).map((used, round) => used / perRequest('yardstick')[round]!);
    const cell = (name: 'cachet' | 'plan') =>
      `${median(perRequest(name)).toFixed(0)} (${median(ratios(name)).toFixed(2)}×) ${range(ratios(name), 2)}`;
    const latency = (name: string) => median(rounds[name]!.map((result) => result.medianMs)).toFixed(2);
    console.log(
      `${`${kilobytes} KB`.padEnd(7)}${String(concurrency).padEnd(6)}${median(perRequest('direct')).toFixed(0).padStart(9)}  ${`${median(perRequest('yardstick')).toFixed(0)} ${range(perRequest('yardstick'), 0)}`.padStart(21)}  ${cell('cachet').padStart(26)}  ${cell('plan').padStart(26)}   ${TARGETS.map(latency).join(' / ')}   dropped ${droppedAfter.cachet - droppedBefore.cachet} / ${droppedAfter.plan - droppedBefore.plan}`,
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
  for (let index = 0; index < count; index++) latencies.push(await call(children.plan.port, small));
  latencies.sort((left, right) => left - right);
  return latencies[Math.floor(latencies.length / 2)]!;
};
const idle = await samples(200);
let hostileSent = 0;
let stop = false;
const neighbour = (async () => {
  while (!stop) {
    await call(children.plan.port, hostile, '/v1/chat/completions').catch(() => {});
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
console.log(`proxy stats: ${JSON.stringify(await children.plan.stats())}`);

for (const child of Object.values(children)) await child.close();
clientAgent.destroy();
await upstream.close();
