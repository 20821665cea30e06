import type { WorkloadStep } from './workload.js';
import { WorkloadContentError } from './workload-content-error.js';
import type { SubagentStepInput } from './workload-schema.js';

/** Default time from one subagent call to the next request of the turn: a fan-out starts its calls together. */
export const SUBAGENT_LATENCY_MS = 1_000;

/**
 * A subagent call forks the parent's previous request, so it needs one before it in the turn,
 * and the parent must answer after it (the turn's last step is the parent's final answer).
 */
export function subagentStep(input: SubagentStepInput, index: number, count: number, at: number, path: string): WorkloadStep {
  if (index === 0) {
    throw new WorkloadContentError(
      `${path}.subagent`,
      "a subagent call forks the parent's previous request: put it after a step of the turn that calls tools",
    );
  }
  if (index === count - 1) {
    throw new WorkloadContentError(
      `${path}.subagent`,
      "a turn must end with the parent's own answer: add a step after the subagent calls",
    );
  }
  return { step: index, at, reply: [], toolResults: [], discoveredTools: [], skillLoads: [], subagentTask: input.subagent.task };
}
