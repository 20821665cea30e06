export type { Workload, WorkloadSkill, WorkloadStep, WorkloadTail, WorkloadTurn, DiscoverableTool } from './workload.js';
export { workloadRequests } from './workload.js';
export { parseWorkload, loadWorkload } from './load-workload.js';
export { bundledWorkloadNames, bundledWorkloadPath, bundledWorkloadsDir } from './bundled-workloads.js';
export { WorkloadError } from './workload-error.js';
export { generateFiller, type FillerKind } from './filler.js';
export { parseDuration, formatDuration } from './duration.js';
export { workloadFileSchema, PROVIDER_NAMES, type WorkloadFile } from './workload-schema.js';
export { SKILL_LOAD_TOOL } from './expand-workload.js';
