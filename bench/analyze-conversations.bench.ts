/**
 * `cachet analyze`'s text report against the number of conversations (#21 item 7: 5,000 took
 * 14.9 s, 20,000 57 s, 100,000 did not finish in 180 s — the report filtered every request per
 * conversation). Writes captures of 5,000, 20,000 and 100,000 conversations of two small
 * Anthropic requests each and runs the command's own path (`runAnalyze`, text report, output
 * counted not printed). Prints CPU time per conversation and the ratio to the smallest run:
 * linear work keeps the ratio near 1.
 */
import { createWriteStream, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAnalyze } from '../src/cli/commands/analyze.js';

const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
const SIZES = (process.env.CACHET_BENCH_CONVERSATIONS ?? '5000,20000,100000').split(',').map(Number);
const persona = 'You are a support agent. Answer briefly and cite the policy you apply. ';

function body(conversation: number, turn: number): Record<string, unknown> {
  const messages = [{ role: 'user', content: [{ type: 'text', text: `customer ${conversation}: where is my order?` }] }];
  if (turn > 0) {
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `Order ${conversation} ships tomorrow.` }] });
    messages.push({ role: 'user', content: [{ type: 'text', text: 'Thanks, and the invoice?' }] });
  }
  (messages.at(-1)!.content[0] as Record<string, unknown>).cache_control = { type: 'ephemeral' };
  return {
    model: 'claude-sonnet-5',
    max_tokens: 512,
    system: [{ type: 'text', text: persona, cache_control: { type: 'ephemeral' } }],
    messages,
  };
}

async function writeCapture(conversations: number): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'cachet-analyze-conversations-')), 'capture.jsonl');
  const stream = createWriteStream(file);
  for (let turn = 0; turn < 2; turn++) {
    for (let conversation = 0; conversation < conversations; conversation++) {
      const line = JSON.stringify({
        at: T0 + turn * 60_000 + conversation,
        conversation: `c${conversation}`,
        body: body(conversation, turn),
      });
      if (!stream.write(`${line}\n`)) await new Promise((resolve) => stream.once('drain', resolve));
    }
  }
  await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return file;
}

let baseline: number | null = null;
for (const conversations of SIZES) {
  const file = await writeCapture(conversations);
  let lines = 0;
  const cpuStarted = process.cpuUsage();
  const started = performance.now();
  const code = await runAnalyze(file, {}, { out: () => lines++, err: (line) => console.error(line) });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStarted);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  if (code !== 0) throw new Error(`analyze exited ${code}`);
  const perConversationMs = (1000 * cpuSeconds) / conversations;
  baseline ??= perConversationMs;
  console.log(
    `${conversations.toLocaleString('en-US')} conversations (${(2 * conversations).toLocaleString('en-US')} requests): ${seconds.toFixed(2)} s wall, ${cpuSeconds.toFixed(2)} s CPU, ${perConversationMs.toFixed(3)} ms CPU per conversation (${(perConversationMs / baseline).toFixed(2)}× the ${SIZES[0]!.toLocaleString('en-US')}-conversation run), ${lines.toLocaleString('en-US')} report lines, RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB (load average ${loadavg()[0]!.toFixed(2)})`,
  );
}
