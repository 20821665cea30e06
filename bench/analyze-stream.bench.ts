/**
 * `cachet analyze` on a 1 GB capture (#21 item 11: it read the file whole, 261 MB peaked at
 * 838 MB and 1.0 GB failed with "Invalid string length"). Writes a capture of growing Anthropic
 * conversations (a persona, a tool loop, a marker on the last block) interleaved in time, then
 * runs, each in its own process so peak memory is its own: (1) the yardstick, reading the file
 * line by line and JSON.parse of every line; (2) `runAnalyze` on it, the command's own path.
 * Prints CPU time and peak RSS of both and their ratios. CACHET_BENCH_CAPTURE_MB sets the size
 * [1024]. Both phases run the same code, tsc's output as `cachet` ships it by default
 * (bench/support/built-code.ts; CACHET_BENCH_CODE=source runs the sources under tsx, whose
 * keepNames adds a `__name()` call per closure to analyze's side only): the line says which.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAnalyze } from '../src/cli/commands/analyze.js';
import { readRegularFileLines } from '../src/model/read-regular-file-lines.js';
import { benchChildCommand } from './support/built-code.js';

const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
const TURNS = 100;
const persona = 'You are a coding agent. Follow the repository conventions, run the tests, explain changes. '.repeat(40);
const step = 'read the file, run the failing test, and fix what it shows '.repeat(8);

function body(conversation: number, turn: number): Record<string, unknown> {
  const messages = Array.from({ length: turn * 2 + 1 }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'text', text: `c${conversation} m${index}: ${step}` }],
  }));
  (messages.at(-1)!.content[0] as Record<string, unknown>).cache_control = { type: 'ephemeral' };
  return {
    model: 'claude-sonnet-5',
    max_tokens: 2048,
    system: [{ type: 'text', text: persona, cache_control: { type: 'ephemeral' } }],
    messages,
  };
}

async function writeCapture(file: string, targetBytes: number): Promise<{ requests: number; conversations: number }> {
  const perConversation = Array.from({ length: TURNS }, (_, turn) => JSON.stringify(body(0, turn)).length + 60).reduce(
    (total, size) => total + size,
    0,
  );
  const conversations = Math.max(1, Math.round(targetBytes / perConversation));
  const stream = createWriteStream(file);
  for (let turn = 0; turn < TURNS; turn++) {
    for (let conversation = 0; conversation < conversations; conversation++) {
      const line = JSON.stringify({
        at: T0 + turn * 30_000 + conversation,
        conversation: `c${conversation}`,
        body: body(conversation, turn),
      });
      if (!stream.write(`${line}\n`)) await new Promise((resolve) => stream.once('drain', resolve));
    }
  }
  await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return { requests: TURNS * conversations, conversations };
}

/** Child process: one phase, printing `{cpuSeconds, peakRssMiB, ...}` as JSON. */
async function phase(name: string, file: string): Promise<void> {
  const cpuStarted = process.cpuUsage();
  let detail = '';
  if (name === 'read') {
    let lines = 0;
    for await (const { text } of readRegularFileLines(file, { maxLineBytes: 64 * 1024 * 1024 })) {
      if (text.length > 0) {
        JSON.parse(text);
        lines++;
      }
    }
    detail = `${lines} lines parsed`;
  } else {
    let reportLines = 0;
    const code = await runAnalyze(file, {}, { out: () => reportLines++, err: (line) => console.error(line) });
    if (code !== 0) throw new Error(`analyze exited ${code}`);
    detail = `${reportLines} report lines`;
  }
  const cpu = process.cpuUsage(cpuStarted);
  console.log(
    JSON.stringify({ cpuSeconds: (cpu.user + cpu.system) / 1e6, peakRssMiB: process.resourceUsage().maxRSS / 1024, detail }),
  );
}

if (process.argv[2] === 'phase') {
  await phase(process.argv[3]!, process.argv[4]!);
} else {
  const targetMb = Number(process.env.CACHET_BENCH_CAPTURE_MB ?? 1024);
  const directory = mkdtempSync(join(tmpdir(), 'cachet-analyze-stream-'));
  const file = join(directory, 'capture.jsonl');
  try {
    const written = await writeCapture(file, targetMb * 1024 * 1024);
    const megabytes = statSync(file).size / 2 ** 20;
    console.log(
      `capture: ${megabytes.toFixed(0)} MiB, ${written.requests.toLocaleString('en-US')} requests in ${written.conversations} conversations`,
    );
    const child = benchChildCommand('bench/analyze-stream.bench.ts');
    console.log(
      child.code === 'built'
        ? 'code: built (tsc output, as cachet ships), both phases'
        : 'code: source under tsx, both phases (CACHET_BENCH_CODE=source)',
    );
    const run = (name: string) => {
      const result = spawnSync(child.command, [...child.args, 'phase', name, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
      if (result.status !== 0) throw new Error(`${name} failed: ${result.stderr}`);
      return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { cpuSeconds: number; peakRssMiB: number; detail: string };
    };
    const read = run('read');
    console.log(
      `yardstick (read line by line + JSON.parse): ${read.cpuSeconds.toFixed(1)} s CPU, peak RSS ${read.peakRssMiB.toFixed(0)} MiB (${read.detail})`,
    );
    const analyze = run('analyze');
    console.log(
      `cachet analyze (text report): ${analyze.cpuSeconds.toFixed(1)} s CPU, peak RSS ${analyze.peakRssMiB.toFixed(0)} MiB (${analyze.detail})`,
    );
    console.log(
      `ratios: CPU ${(analyze.cpuSeconds / read.cpuSeconds).toFixed(2)}× the yardstick; peak RSS ${(analyze.peakRssMiB / read.peakRssMiB).toFixed(2)}× the yardstick, ${(analyze.peakRssMiB / megabytes).toFixed(2)}× the file size (load average ${loadavg()[0]!.toFixed(2)})`,
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
