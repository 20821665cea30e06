import { createCompactionPipeline } from '../compaction/pipeline.js';
import { MemoryCheckpointStore } from '../compaction/checkpoint-store.js';
import { MemoryOffloadStore } from '../compaction/offload-store.js';
import type { CompactionHookFactory } from './commands/simulate.js';

/**
 * `cachet simulate --compaction`: the compaction pipeline runs before every request of the
 * `cachet` strategy, synchronously, with in-memory offload and checkpoint stores (a simulation
 * writes nothing to disk). Its `compaction.*` events go to the session's bus like the others.
 */
export const simulationCompaction: CompactionHookFactory = ({ provider, windowTokens }) => {
  const pipeline = createCompactionPipeline({
    provider,
    windowTokens,
    offloadStore: new MemoryOffloadStore(),
    checkpointStore: new MemoryCheckpointStore(),
  });
  return ({ driver, at, remainingRequests }) => {
    if (driver.name !== 'cachet') return;
    pipeline.beforeRequestSync(driver.session, { now: at, remainingRequests });
  };
};
