export { bundledWorkloadNames, bundledWorkloadPath, bundledWorkloadsDir } from './bundled-workloads.js';
export { formatDuration, parseDuration } from './duration.js';
export { DEFAULT_MAX_EXPANSION_BYTES, type ExpansionEstimate, estimateExpansion } from './estimate-expansion.js';
export { SKILL_LOAD_TOOL } from './expand-workload.js';
export { type FillerKind, generateFiller } from './filler.js';
export { DEFAULT_MAX_WORKLOAD_FILE_BYTES, type LoadWorkloadOptions, loadWorkload, parseWorkload } from './load-workload.js';
export type {
  DiscoverableTool,
  Workload,
  WorkloadSkill,
  WorkloadStep,
  WorkloadTail,
  WorkloadTurn,
  WorkloadTurnParams,
  WorkloadWarning,
} from './workload.js';
export { workloadRequests } from './workload.js';
export { WorkloadError } from './workload-error.js';
export { PROVIDER_NAMES, type WorkloadFile, workloadFileSchema } from './workload-schema.js';
