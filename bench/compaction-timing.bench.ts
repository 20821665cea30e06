/**
 * Compaction timed by the cache (issue 24, section 3) on the bundled workloads with pauses:
 * `cachet simulate --compaction` with the thresholds alone (`timeByCache: false`) against each
 * pause planned by `planIdle` (keep warm / compact while cold / compact right before expiry).
 *
 * The window is a share of the uncompacted run's largest request (60%; 80% on the 384-request
 * long-session-idle-gaps), so compaction must act. The summaries' text is extractive, but each
 * summary call is billed as the LLM summariser would send it (`simulateSummaryCall`: a fork of the
 * parent's last request judged by the cache model, or a fresh call with the transcript uncached,
 * whichever `chooseSummaryRoute` prices lower; the fresh call on the session's model), and the
 * cost column includes it; the timing is decided twice: with the extractive summariser's
 * prices (0 and 0) and with an LLM summary priced as `createLlmSummarizer` would see it on
 * Sonnet-class prices — a warm fork reads the prefix (0.1 × P + 5,000 for its output), a cold
 * call goes fresh to an auxiliary model at a third of the input rate (P / 3 + 1,667) — so the
 * table shows what the decision picks and what the pause costs in prefix reads and writes.
 * `WORKLOADS=claims-agent-bedrock` runs one.
 */
import { createSimulationCompactionHook, type SimulationCompactionOptions } from '../src/compaction/simulation-hook.js';
import { EventBus } from '../src/events/event-bus.js';
import { simulateWorkload } from '../src/simulate/simulate-workload.js';
import { loadWorkload } from '../src/workloads/load-workload.js';

const WORKLOADS: Array<[string, number]> = [
  ['claims-agent-bedrock', 0.6],
  ['due-diligence-subagents', 0.6],
  ['long-session-idle-gaps', 0.8],
];
const chosen = process.env.WORKLOADS?.split(',');

const llmSummary: SimulationCompactionOptions['summaryCost'] = ({ prefixTokens }) => ({
  warm: 0.1 * prefixTokens + 5_000,
  cold: prefixTokens / 3 + 1_667,
});

console.log(
  '| workload | timing | cost (USD) | compactions applied | summary calls (fork/fresh, warm) | summaries billed (USD) | expected fork / fresh (USD) | pauses timed (choice/decision at the next judgement) |',
);
console.log('|---|---|---:|---:|---|---:|---|---|');
for (const [name, share] of WORKLOADS) {
  if (chosen && !chosen.includes(name)) continue;
  const workload = await loadWorkload(name);
  const plain = simulateWorkload(workload, { strategy: 'cachet' });
  const peak = Math.max(...plain.requests.map((request) => request.inputTokens));
  const runs: Array<[string, Partial<SimulationCompactionOptions>]> = [
    ['thresholds alone', { timeByCache: false }],
    ['timed, extractive prices', {}],
    ['timed, LLM summary priced', { summaryCost: llmSummary }],
  ];
  for (const [label, extra] of runs) {
    const bus = new EventBus();
    const timed = new Map<string, number>();
    let applied = 0;
    bus.onAny((event) => {
      if (event.type === 'compaction.applied') applied += 1;
      if (event.type === 'compaction.planned' && event.payload.timing) {
        const key = `${event.payload.timing.choice}/${event.payload.decision}`;
        timed.set(key, (timed.get(key) ?? 0) + 1);
      }
    });
    const hook = createSimulationCompactionHook({
      provider: workload.provider,
      model: workload.model,
      windowTokens: Math.round(peak * share),
      ...extra,
    });
    const result = simulateWorkload(workload, { strategy: 'cachet', bus, compaction: hook });
    const choices = [...timed].map(([key, count]) => `${count} ${key}`).join(', ') || '—';
    const summaries = result.summaries;
    const forks = summaries.filter((summary) => summary.choice === 'fork').length;
    const warm = summaries.filter((summary) => summary.parentWarm).length;
    const expected = (pick: (summary: (typeof summaries)[number]) => number | null) =>
      summaries.reduce((total, summary) => total + (pick(summary) ?? 0), 0).toFixed(4);
    console.log(
      `| ${name} | ${label} | ${result.totals.costUsd.toFixed(4)} | ${applied} | ${summaries.length} (${forks}/${summaries.length - forks}, ${warm} warm) | ${result.totals.summaryCostUsd.toFixed(4)} | ${expected((summary) => summary.forkInputCostUsd)} / ${expected((summary) => summary.freshInputCostUsd)} | ${choices} |`,
    );
  }
}
