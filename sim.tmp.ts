import { loadWorkload } from './src/workloads/index.js';
import { simulateWorkload } from './src/simulate/simulate-workload.js';
const [name, ...strategies] = process.argv.slice(2);
const w = await loadWorkload(name!);
for (const strategy of (strategies.length ? strategies : ['naive','markers','cachet']) as any[]) {
  const t0 = Date.now();
  const r = simulateWorkload(w, { strategy });
  const t = r.totals;
  console.log(strategy.padEnd(8), 'req', r.requests.length, 'in', t.inputTokens, 'read', t.cacheReadTokens, 'write', t.cacheWriteTokens, 'ideal', t.idealCacheReadTokens, 'share', t.readShare.toFixed(3), 'eff', t.efficiency.toFixed(3), 'cost', t.costUsd.toFixed(4), 'uncached', t.uncachedCostUsd.toFixed(4), (Date.now()-t0)+'ms');
  if (process.env.V) for (const q of r.requests) console.log('  ', q.turn, q.step, q.inputTokens, q.cacheReadTokens, q.cacheWriteTokens, q.idealCacheReadTokens, q.missCause, q.ttlReason?.slice(0,40) ?? '', q.paddingApplied);
}
