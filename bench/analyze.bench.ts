/**
 * `cachet analyze` on 10,000 captured requests (issue 12 target: ≤ 10 s): 100 conversations
 * of 100 growing Anthropic requests each (a clock in the system prompt that changes every 25
 * requests, markers on the system prompt and the last message), written as a JSONL capture and
 * read back exactly as the command does. Prints the time to read and to analyse, and the
 * figures found (so the run is checked, not just timed).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeCapture } from '../src/gateway/analyze/analyze-capture.js';
import { readCapture } from '../src/gateway/analyze/read-capture.js';

const CONVERSATIONS = 100;
const TURNS = 100;
const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
const persona = 'You are a coding agent. Follow the repository conventions, run the tests, explain changes. '.repeat(40);

function body(conversation: number, turn: number): Record<string, unknown> {
  const messages = Array.from({ length: turn * 2 + 1 }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'text', text: `c${conversation} m${index}: ${'read the file and fix the failing test '.repeat(4)}` }],
  }));
  (messages.at(-1)!.content[0] as Record<string, unknown>).cache_control = { type: 'ephemeral' };
  const hour = 9 + Math.floor(turn / 25);
  return {
    model: 'claude-sonnet-5',
    max_tokens: 2048,
    system: [
      { type: 'text', text: persona },
      { type: 'text', text: `Current time: 2026-11-23 ${hour}:00.`, cache_control: { type: 'ephemeral' } },
    ],
    messages,
  };
}

const lines: string[] = [];
for (let turn = 0; turn < TURNS; turn++) {
  for (let conversation = 0; conversation < CONVERSATIONS; conversation++) {
    lines.push(
      JSON.stringify({ at: T0 + turn * 20_000 + conversation, conversation: `c${conversation}`, body: body(conversation, turn) }),
    );
  }
}
const file = join(mkdtempSync(join(tmpdir(), 'cachet-analyze-bench-')), 'capture.jsonl');
writeFileSync(file, `${lines.join('\n')}\n`);
const megabytes = lines.reduce((total, line) => total + line.length, 0) / 1e6;

const cpuStarted = process.cpuUsage();
let started = performance.now();
const requests = await readCapture(file);
const readSeconds = (performance.now() - started) / 1000;
started = performance.now();
const analysis = analyzeCapture(requests);
const analyzeSeconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuStarted);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
console.log(`${requests.length} requests, ${CONVERSATIONS} conversations, ${megabytes.toFixed(0)} MB of JSONL`);
// On a shared machine wall time grows with other processes' load: the CPU time of this process is the steadier figure.
console.log(
  `read ${readSeconds.toFixed(2)} s + analyse ${analyzeSeconds.toFixed(2)} s = ${(readSeconds + analyzeSeconds).toFixed(2)} s (target ≤ 10 s), ${((1000 * (readSeconds + analyzeSeconds)) / requests.length).toFixed(2)} ms per request; CPU time ${cpuSeconds.toFixed(2)} s (load average ${loadavg()[0]!.toFixed(2)})`,
);
const causes = analysis.conversations[0]!.topCauses.map((cause) => `${cause.cause} ×${cause.count}`).join(', ');
console.log(
  `found: read share ${(analysis.totals.readShare * 100).toFixed(1)}%, conversation c0 causes: ${causes}; cost $${analysis.totals.costUsd.toFixed(2)} vs plan $${analysis.totals.plannedCostUsd.toFixed(2)}`,
);
