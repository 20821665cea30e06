/**
 * The proxy's memory after 10,000 requests over 1,000 conversations (issue 21 target: resident
 * memory ≤ 2× the yardstick's plus the documented byte budgets; the bench prints that allowance,
 * computed from the budgets' defaults, and a stricter one: 2× plus what the budgets hold now). Each proxy runs in a
 * process of its own — the yardstick (node:http piping, nothing kept), `cachet proxy` in
 * pass-through and under `--plan`, both recording to a SQLite file as the CLI does — and this
 * process drives the same requests through each (16 at a time; each conversation grows by one
 * exchange per request, 4–14 KB bodies). After the run, each child collects garbage and reports
 * its resident set, its peak, its JS heap and external memory, and (cachet) `proxy.stats()`: the
 * bytes its budgets hold. Run: `npm run bench -- proxy-memory`.
 *
 * Measured 2026-11-27 (2 cores, load ~20): yardstick 83 MiB; cachet 385 MiB (4.6×), --plan 499 MiB
 * (6.0×), with only 31–38 MiB of live JS heap and 14–16 MiB held by the budgets. /proc/self/smaps
 * of the cachet child: ~140 MiB anonymous (V8's committed heap: old space 109 MiB committed, 19 MiB
 * used after GC and 12 s idle) and ~160 MiB of C heap (freed but not returned). Keeping previous
 * bodies as strings instead of byte buffers moved 60 MiB from the C heap to the JS heap, no net gain.
 * 2026-11-28, after the node:http transport and span-based key fields (load ~22): yardstick 83 MiB;
 * cachet 262 MiB (3.1×), --plan 346 MiB (4.1×); target still missed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { postJson, startStubUpstream, startYardstickProxy } from './support/proxy-bench-kit.js';

const CONVERSATIONS = 1_000;
const REQUESTS_PER_CONVERSATION = 10;
const CONCURRENCY = 16;
const ROLES = ['yardstick', 'cachet', 'plan'] as const;
type Role = (typeof ROLES)[number];

interface Report {
  rssMiB: number;
  peakRssMiB: number;
  heapUsedMiB: number;
  externalMiB: number;
  stats?: { conversations: number; conversationBytes: number; planModelBytes: number };
}

const MiB = 2 ** 20;

/** Child: one proxy; prints its port, then a report on "report". */
async function child(role: Role, upstreamPort: number, directory: string): Promise<void> {
  let report: () => Promise<Report['stats']>;
  let port: number;
  if (role === 'yardstick') {
    port = (await startYardstickProxy(upstreamPort)).port;
    report = async () => undefined;
  } else {
    const { EventBus } = await import('../src/events/event-bus.js');
    const { PROXY_TRACE_WRITE_INTERVAL_MS, startProxy } = await import('../src/gateway/proxy/start-proxy.js');
    const { recordEvents } = await import('../src/trace/record-events.js');
    const { openSqliteTraceStore } = await import('../src/trace/sqlite-trace-store.js');
    const store = openSqliteTraceStore(join(directory, `${role}.db`));
    const bus = new EventBus();
    const recorder = recordEvents(bus, store, { minWriteIntervalMs: PROXY_TRACE_WRITE_INTERVAL_MS });
    const proxy = await startProxy({ upstream: `http://127.0.0.1:${upstreamPort}`, bus, plan: role === 'plan' });
    port = proxy.port;
    report = async () => {
      await proxy.settled();
      await recorder.flush();
      const { conversations, conversationBytes, planModelBytes } = proxy.stats();
      return { conversations, conversationBytes, planModelBytes };
    };
  }
  console.log(JSON.stringify({ port }));
  for await (const line of createInterface({ input: process.stdin })) {
    if (line !== 'report') continue;
    const stats = await report();
    for (let round = 0; round < 3; round++) (globalThis as { gc?: () => void }).gc?.();
    const memory = process.memoryUsage();
    const result: Report = {
      rssMiB: memory.rss / MiB,
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
      heapUsedMiB: memory.heapUsed / MiB,
      externalMiB: memory.external / MiB,
      ...(stats ? { stats } : {}),
    };
    console.log(JSON.stringify(result));
    process.exit(0);
  }
}

function body(conversation: number, request: number): string {
  const system = `You are agent ${conversation}. ${'Follow the repository conventions and run the tests. '.repeat(60)}`;
  const messages = Array.from({ length: request * 2 + 1 }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'text', text: `[${conversation}] message ${index} ${'read the file and fix the test '.repeat(16)}` }],
  }));
  return JSON.stringify({
    model: 'claude-sonnet-5',
    max_tokens: 1024,
    system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
    messages,
  });
}

async function measure(role: Role, upstreamPort: number, directory: string): Promise<Report> {
  const process_ = spawn(
    process.execPath,
    ['--import', 'tsx', '--expose-gc', fileURLToPath(import.meta.url), 'child', role, String(upstreamPort), directory],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: process_.stdout! })[Symbol.asyncIterator]();
  const { port } = JSON.parse((await lines.next()).value as string) as { port: number };
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  const total = CONVERSATIONS * REQUESTS_PER_CONVERSATION;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) {
        const index = next++;
        // Round-robin: every conversation is active throughout, as with many live sessions.
        await postJson(agent, port, body(index % CONVERSATIONS, Math.floor(index / CONVERSATIONS)));
      }
    }),
  );
  agent.destroy();
  process_.stdin!.write('report\n');
  return JSON.parse((await lines.next()).value as string) as Report;
}

if (process.argv[2] === 'child') {
  await child(process.argv[3] as Role, Number(process.argv[4]), process.argv[5]!);
} else {
  const upstream = await startStubUpstream();
  const directory = mkdtempSync(join(tmpdir(), 'cachet-proxy-memory-'));
  try {
    console.log(
      `${(CONVERSATIONS * REQUESTS_PER_CONVERSATION).toLocaleString('en-US')} requests over ${CONVERSATIONS.toLocaleString('en-US')} conversations, ${CONCURRENCY} at a time; bodies ${(body(0, 0).length / 1024).toFixed(0)}–${(body(0, REQUESTS_PER_CONVERSATION - 1).length / 1024).toFixed(0)} KB (load average ${loadavg()[0]!.toFixed(1)})`,
    );
    // Imported here, not at the top: the children run this file too, and the yardstick's must load nothing of Cachet.
    const { DEFAULT_CONVERSATION_BYTES } = await import('../src/gateway/proxy/conversation-tracker.js');
    const { DEFAULT_PLAN_MODEL_BYTES } = await import('../src/gateway/proxy/judge-exchange.js');
    const reports = {} as Record<Role, Report>;
    for (const role of ROLES) reports[role] = await measure(role, upstream.port, directory);
    const yardstick = reports.yardstick;
    console.log(
      `yardstick: resident ${yardstick.rssMiB.toFixed(0)} MiB after the run (peak ${yardstick.peakRssMiB.toFixed(0)} MiB)`,
    );
    for (const role of ['cachet', 'plan'] as const) {
      const report = reports[role];
      const held = ((report.stats?.conversationBytes ?? 0) + (report.stats?.planModelBytes ?? 0)) / MiB;
      // The allowance: the budgets as documented (docs/proxy.md "Memory by bytes"), at their defaults.
      const documented = (DEFAULT_CONVERSATION_BYTES + (role === 'plan' ? DEFAULT_PLAN_MODEL_BYTES : 0)) / MiB;
      const allowance = 2 * yardstick.rssMiB + documented;
      const strict = 2 * yardstick.rssMiB + held;
      const verdict = (limit: number) => `${limit.toFixed(0)} MiB: ${report.rssMiB <= limit ? 'met' : 'MISSED'}`;
      console.log(
        `${role === 'plan' ? 'cachet --plan' : 'cachet (pass-through)'}: resident ${report.rssMiB.toFixed(0)} MiB (peak ${report.peakRssMiB.toFixed(0)}, JS heap ${report.heapUsedMiB.toFixed(0)}, external ${report.externalMiB.toFixed(0)}); budgets hold ${held.toFixed(1)} MiB for ${report.stats?.conversations ?? 0} conversations; ${(report.rssMiB / yardstick.rssMiB).toFixed(2)}× the yardstick`,
      );
      console.log(
        `  target ≤ 2× yardstick + documented budgets (${documented.toFixed(0)} MiB at the defaults) = ${verdict(allowance)}; stricter, ≤ 2× + what the budgets hold now = ${verdict(strict)}`,
      );
    }
  } finally {
    await upstream.close();
    rmSync(directory, { recursive: true, force: true });
  }
}
