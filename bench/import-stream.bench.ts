/**
 * `cachet import claude-code` on a 1 GB generated log (#25: streaming, bounded memory). Writes
 * Claude Code session files (a prompt, a tool loop, each assistant message as two block lines
 * repeating its id and usage, a subagent sidechain), then runs, each in its own process so
 * peak memory is its own: (1) the yardstick, reading every file line by line with JSON.parse;
 * (2) `runImport` into a fresh SQLite store. Prints CPU, wall time and peak RSS of both.
 * CACHET_BENCH_IMPORT_MB sets the size [1024].
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runImport } from '../src/cli/commands/import.js';
import { readRegularFileLines } from '../src/model/read-regular-file-lines.js';

const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);
const SESSION_BYTES = 8 * 1024 * 1024;
const filler = 'read the file, run the failing test, and fix what it shows. '.repeat(30);

function line(session: string, index: number, type: string, extra: Record<string, unknown>): string {
  return JSON.stringify({
    parentUuid: index === 0 ? null : `${session}-${index - 1}`,
    isSidechain: false,
    sessionId: session,
    cwd: '/work/bench',
    type,
    uuid: `${session}-${index}`,
    timestamp: new Date(T0 + index * 4000).toISOString(),
    ...extra,
  });
}

/** One session file of about SESSION_BYTES: requests whose cache grows, each written as two block lines. */
async function writeSession(file: string, session: string): Promise<number> {
  const stream = createWriteStream(file);
  let bytes = 0;
  let index = 0;
  let requests = 0;
  const write = async (text: string) => {
    bytes += text.length + 1;
    if (!stream.write(`${text}\n`)) await new Promise((resolve) => stream.once('drain', resolve));
  };
  while (bytes < SESSION_BYTES) {
    const user = requests % 5 === 0 ? filler : [{ type: 'tool_result', tool_use_id: `t${requests}`, content: filler }];
    await write(line(session, index++, 'user', { message: { role: 'user', content: user } }));
    const usage = {
      input_tokens: 3,
      cache_read_input_tokens: 2000 + requests * 400,
      cache_creation_input_tokens: 400,
      output_tokens: 120,
    };
    for (const block of [
      { type: 'text', text: filler },
      { type: 'tool_use', id: `t${requests + 1}`, name: 'Read', input: {} },
    ]) {
      const message = {
        id: `msg_${session}_${requests}`,
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [block],
        usage,
      };
      await write(line(session, index++, 'assistant', { requestId: `req_${session}_${requests}`, message }));
    }
    requests++;
  }
  await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return requests;
}

async function phase(name: string, directory: string, db: string): Promise<void> {
  const cpuStarted = process.cpuUsage();
  const started = performance.now();
  let detail = '';
  if (name === 'read') {
    let lines = 0;
    for (const file of readdirSync(directory)) {
      for await (const { text } of readRegularFileLines(join(directory, file), { maxLineBytes: 64 * 1024 * 1024 })) {
        JSON.parse(text);
        lines++;
      }
    }
    detail = `${lines.toLocaleString('en-US')} lines parsed`;
  } else {
    let summary = '';
    const code = await runImport(
      'claude-code',
      directory,
      { db, json: true, storeContent: 'hashes' },
      {
        out: (text) => {
          summary = text;
        },
        err: (text) => console.error(text),
      },
    );
    if (code !== 0) throw new Error(`import exited ${code}`);
    const parsed = JSON.parse(summary) as { sessions: number; requests: number; skippedLines: number };
    detail = `${parsed.requests.toLocaleString('en-US')} requests in ${parsed.sessions} sessions, ${parsed.skippedLines} lines skipped`;
  }
  const cpu = process.cpuUsage(cpuStarted);
  console.log(
    JSON.stringify({
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      wallSeconds: (performance.now() - started) / 1000,
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
      detail,
    }),
  );
}

if (process.argv[2] === 'phase') {
  await phase(process.argv[3]!, process.argv[4]!, process.argv[5]!);
} else {
  const targetBytes = Number(process.env.CACHET_BENCH_IMPORT_MB ?? 1024) * 1024 * 1024;
  const root = mkdtempSync(join(tmpdir(), 'cachet-import-stream-'));
  const logs = join(root, 'projects');
  mkdirSync(logs);
  try {
    let requests = 0;
    const sessions = Math.max(1, Math.round(targetBytes / SESSION_BYTES));
    for (let session = 0; session < sessions; session++) {
      requests += await writeSession(join(logs, `s${session}.jsonl`), `s${session}`);
    }
    const megabytes = readdirSync(logs).reduce((total, file) => total + statSync(join(logs, file)).size, 0) / 2 ** 20;
    console.log(`logs: ${megabytes.toFixed(0)} MiB in ${sessions} session files, ${requests.toLocaleString('en-US')} requests`);
    const run = (name: string) => {
      const result = spawnSync(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(import.meta.url), 'phase', name, logs, join(root, 'traces.db')],
        { encoding: 'utf8', maxBuffer: 1 << 20 },
      );
      if (result.status !== 0) throw new Error(`${name} failed: ${result.stderr}`);
      return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as {
        cpuSeconds: number;
        wallSeconds: number;
        peakRssMiB: number;
        detail: string;
      };
    };
    const read = run('read');
    console.log(
      `yardstick (read line by line + JSON.parse): ${read.cpuSeconds.toFixed(1)} s CPU, ${read.wallSeconds.toFixed(1)} s wall, peak RSS ${read.peakRssMiB.toFixed(0)} MiB (${read.detail})`,
    );
    const imported = run('import');
    console.log(
      `cachet import claude-code → SQLite: ${imported.cpuSeconds.toFixed(1)} s CPU, ${imported.wallSeconds.toFixed(1)} s wall, peak RSS ${imported.peakRssMiB.toFixed(0)} MiB (${imported.detail})`,
    );
    console.log(
      `peak RSS ${(imported.peakRssMiB / read.peakRssMiB).toFixed(2)}× the yardstick, ${((imported.peakRssMiB / megabytes) * 100).toFixed(1)}% of the logs' size; ${(megabytes / imported.wallSeconds).toFixed(1)} MiB/s (load average ${loadavg()[0]!.toFixed(2)})`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
