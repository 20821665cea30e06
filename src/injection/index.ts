export type { GuidanceSource } from './tool-guidance.js';
export { descriptionGuidance, TOOL_GUIDANCE_MARKER, ToolGuidance, toolGuidanceMessages } from './tool-guidance.js';
export type { WorkingMemory, WorkingMemorySection } from './working-memory.js';
export {
  CONTEXT_ACKNOWLEDGEMENT,
  CONTEXT_MARKER,
  contextPairMessages,
  renderWorkingMemory,
} from './working-memory.js';
