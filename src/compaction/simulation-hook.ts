import type { Session } from '../session/session.js';
import { MemoryCheckpointStore } from './checkpoint-store.js';
import { contextWindowFor } from './context-windows.js';
import { MemoryOffloadStore } from './offload-store.js';
import { type CompactionPipeline, type CompactionPipelineOptions, createCompactionPipeline } from './pipeline.js';

/** What the simulator hands the hook before each request (structurally its `CompactionHook` context). */
export interface SimulationHookContext {
  driver: { name?: string; session: Session };
  at: number;
  /** Requests left in the workload, this one included: the cost model's horizon. */
  remainingRequests?: number;
}

export interface SimulationCompactionOptions extends Partial<CompactionPipelineOptions> {
  provider: string;
  model: string;
}

/**
 * The compaction hook for `cachet simulate --compaction`: before each request of the `cachet`
 * strategy it runs `beforeRequestSync` on the strategy's session with the workload's clock.
 * Stores are in memory and the summariser is extractive, so the simulation stays synchronous
 * and offline; events go to the session's bus (and so to `--events`). The window defaults to
 * the model's (`CONTEXT_WINDOW_RULES`); harness strategies are left alone.
 *
 * @example
 * registerSimulateCommand(program, (options) => createSimulationCompactionHook(options));
 */
export function createSimulationCompactionHook(options: SimulationCompactionOptions): ((
  context: SimulationHookContext,
) => void) & {
  pipeline: CompactionPipeline;
} {
  const { provider, model, ...rest } = options;
  const pipeline = createCompactionPipeline({
    windowTokens: contextWindowFor(model),
    provider,
    offloadStore: new MemoryOffloadStore(),
    checkpointStore: new MemoryCheckpointStore(),
    ...rest,
  });
  const hook = (context: SimulationHookContext) => {
    // Only Cachet's own session is compacted; the harness strategies are baselines.
    if (context.driver.name !== undefined && context.driver.name !== 'cachet') return;
    pipeline.beforeRequestSync(context.driver.session, {
      now: context.at,
      ...(context.remainingRequests === undefined ? {} : { remainingRequests: context.remainingRequests }),
    });
  };
  return Object.assign(hook, { pipeline });
}
