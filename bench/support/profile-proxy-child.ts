/**
 * Profile `cachet proxy` as its own process: a stub upstream here, the proxy in a child
 * (`node --cpu-prof`, the proxy-memory bench's child mode, recording to SQLite), and this process
 * sending the yardstick bench's kind of load through it. The profile lands in the given folder.
 * Run: `npx tsx bench/support/profile-proxy-child.ts <cachet|plan> <KB> <concurrency> <requests> <profile dir>`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { postJson, startStubUpstream } from './proxy-bench-kit.js';

const [role = 'cachet', kilobytes = '50', concurrency = '32', requests = '2000', profileDirectory = tmpdir()] =
  process.argv.slice(2);

function body(conversation: number, size: number): string {
  const system = `You are agent ${conversation}. ${'Follow the repository conventions and run the tests. '.repeat(40)}`;
  const messages: unknown[] = [];
  let length = system.length;
  for (let index = 0; length < size * 1024 - 600; index++) {
    const text = `[${conversation}] turn ${index} ${'lorem ipsum dolor sit amet '.repeat(20)}`;
    messages.push({ role: index % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text }] });
    length += text.length + 60;
  }
  if (messages.length % 2 === 0) messages.push({ role: 'user', content: [{ type: 'text', text: 'go on' }] });
  return JSON.stringify({
    model: 'claude-sonnet-5',
    max_tokens: 1024,
    system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
    messages,
  });
}

const upstream = await startStubUpstream();
const memoryBench = fileURLToPath(new URL('../proxy-memory.bench.ts', import.meta.url));
const child = spawn(
  process.execPath,
  [
    '--cpu-prof',
    `--cpu-prof-dir=${profileDirectory}`,
    '--import',
    'tsx',
    '--expose-gc',
    memoryBench,
    'child',
    role,
    String(upstream.port),
    mkdtempSync(join(tmpdir(), 'cachet-profile-')),
  ],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
const { port } = JSON.parse((await lines.next()).value as string) as { port: number };
const bodies = Array.from({ length: 32 }, (_, conversation) => body(conversation, Number(kilobytes)));
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
let next = 0;
const total = Number(requests);
const started = performance.now();
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (next < total) {
      const index = next++;
      await postJson(agent, port, bodies[index % bodies.length]!);
    }
  }),
);
console.log(`${total} requests in ${((performance.now() - started) / 1000).toFixed(1)} s`);
agent.destroy();
child.stdin!.write('report\n');
console.log((await lines.next()).value);
await new Promise((resolve) => child.once('exit', resolve));
await upstream.close();
