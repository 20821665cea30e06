/**
 * Child-process script of the bounded-state test: runs short sessions through the whole request
 * cycle (ingest, compaction, prepareRequest, recordUsage, end) on one application-wide bus and
 * pipeline, and prints the heap growth and the per-session state still held. Needs `--expose-gc`.
 *
 *   node --expose-gc --import tsx src/runtime/test-support/run-short-sessions.ts release 10000
 *
 * `retain` keeps every session reachable (as a leak would): the control that shows the
 * measurement can see growth.
 */

import { MemoryCheckpointStore } from '../../compaction/checkpoint-store.js';
import { MemoryOffloadStore } from '../../compaction/offload-store.js';
import { createCompactionPipeline } from '../../compaction/pipeline.js';
import { EventBus } from '../../events/event-bus.js';
import { emptyUsage } from '../../model/usage.js';
import { anthropicAdapter } from '../../providers/anthropic/index.js';
import { Session } from '../../session/session.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { prepareRequest, sharedCounterCount } from '../prepare-request.js';
import { recordUsage } from '../record-usage.js';

const [mode = 'release', countText = '10000'] = process.argv.slice(2);
const count = Number(countText);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const bus = new EventBus();
let delivered = 0;
bus.onAny(() => {
  delivered += 1;
});
// A subscriber that always fails (an exporter that is down): contained, reported, never retained.
bus.on('request.assembled', () => {
  throw new Error('exporter unavailable');
});
const counter = anthropicEstimator();
const pipeline = createCompactionPipeline({
  windowTokens: 200_000,
  counter,
  offloadStore: new MemoryOffloadStore(),
  checkpointStore: new MemoryCheckpointStore(),
});
const retained: Session[] = [];
let clock = 1_767_225_600_000;

function runSession(index: number): void {
  const session = new Session({
    id: `short-${index}`,
    model: 'claude-sonnet-4-5',
    global: { system: [{ label: 'persona', text: 'You are a careful coding agent.' }] },
    bus,
    clock: () => clock,
  });
  pipeline.ingestSync(session, { role: 'user', content: [{ type: 'text', text: 'What changed since yesterday?' }] });
  pipeline.beforeRequestSync(session, { now: clock });
  prepareRequest(session, anthropicAdapter, { turn: 1, step: 0, counter });
  recordUsage(
    session,
    { ...emptyUsage(), uncachedInputTokens: 40, outputTokens: 12 },
    {
      turn: 1,
      step: 0,
      price: () => ({ costUsd: 0.0001, uncachedCostUsd: 0.0001 }),
    },
  );
  session.append({ role: 'assistant', content: [{ type: 'text', text: 'Nothing yet.' }] });
  pipeline.state(session);
  pipeline.notes(session);
  session.end();
  clock += 1_000;
  if (mode === 'retain') retained.push(session);
}

async function settledHeap(): Promise<number> {
  // Finalisation callbacks run after a collection, on a later turn of the event loop.
  for (let round = 0; round < 3; round++) {
    (gc as () => void)();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return process.memoryUsage().heapUsed;
}

for (let index = 0; index < 1_000; index++) runSession(index);
const heapBefore = await settledHeap();
for (let index = 1_000; index < 1_000 + count; index++) runSession(index);
const heapAfter = await settledHeap();
process.stdout.write(
  `${JSON.stringify({
    mode,
    sessions: count,
    heapGrowthBytes: heapAfter - heapBefore,
    busSequences: bus.trackedSessions,
    pipelineSessions: (pipeline as unknown as { liveSessions: number }).liveSessions,
    sharedCounters: sharedCounterCount(),
    retained: retained.length,
    delivered,
  })}\n`,
);
