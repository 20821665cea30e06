import type { AssistantContentBlock, ImageBlock, ToolDefinition, ToolResultBlock } from '../model/content.js';
import type { ThinkingConfig, ToolChoice } from '../model/request.js';
import type { ProviderId } from '../providers/adapter.js';

/**
 * A workload after loading: every `repeat` expanded, every time resolved on the workload's
 * clock, every sized tool result filled with deterministic content. Strategies and the
 * simulator read only this shape.
 */
export interface Workload {
  name: string;
  title: string;
  description: string;
  /** The file it came from, when loaded from disk. */
  file: string | null;
  provider: ProviderId;
  model: string;
  maxTokens: number;
  /** Global static zone. */
  persona: string;
  guidelines: string | null;
  tools: ToolDefinition[];
  /** Session static zone. */
  sessionInstructions: string | null;
  workingMemory: string | null;
  /** Documents attached at session start, as rendered text. */
  sessionDocuments: Array<{ title: string; text: string }>;
  skills: WorkloadSkill[];
  /** Tools that can be discovered mid-session, by name. */
  toolLibrary: DiscoverableTool[];
  turns: WorkloadTurn[];
  /** Things in the file that load but are probably not what the author meant. */
  warnings: WorkloadWarning[];
}

/** A workload problem that does not stop it from running (`{ code, message }` plus where). */
export interface WorkloadWarning {
  code: 'after-ignored';
  message: string;
  /** Path inside the file (`turns[0].after`). */
  path: string;
  /** `file:line: path: message` once the loader knows the file and line; else `path: message`. */
  text: string;
  line: number | null;
}

export interface WorkloadSkill {
  name: string;
  description: string;
  body: string;
}

export interface DiscoverableTool {
  tool: ToolDefinition;
  guidance: string | null;
  /** Declared deferred (Anthropic `defer_loading`): passed to adapters that support it. */
  deferLoading: boolean;
}

/** Request parameters of one turn, as the session takes them, plus OpenAI's retention. */
export interface WorkloadTurnParams {
  toolChoice?: ToolChoice;
  thinking?: ThinkingConfig;
  effort?: 'minimal' | 'low' | 'medium' | 'high';
  parallelToolCalls?: boolean;
  retention?: 'in_memory' | '24h';
}

export interface WorkloadTail {
  memoryRecall: string | null;
  time: boolean;
  workingContext: string | null;
  skills: string[];
}

export interface WorkloadTurn {
  /** 1-based. */
  turn: number;
  /** Time of the turn's first request (ms since the epoch, on the workload's clock). */
  at: number;
  user: string;
  images: ImageBlock[];
  tail: WorkloadTail;
  steps: WorkloadStep[];
  /** The model this turn switches to (it stays until another switch); null when it does not switch. */
  modelSwitch: string | null;
  /** Parameters for this turn's requests; empty when the turn sets none. */
  params: WorkloadTurnParams;
  /** Tools that connect at the start of this turn, before its user message (no tool call). */
  connectedTools: DiscoverableTool[];
}

/**
 * One model call of a turn. The request for step `k` is sent at `at`; `reply` is what the
 * model answers; when it calls tools, `toolResults` answer them and step `k + 1` follows.
 */
export interface WorkloadStep {
  /** 0-based within the turn. */
  step: number;
  at: number;
  reply: AssistantContentBlock[];
  toolResults: ToolResultBlock[];
  /** Tools that become available after this step (appended after the known ones). */
  discoveredTools: DiscoverableTool[];
  /** Skills loaded by `skill_load` calls of this step. */
  skillLoads: string[];
  /**
   * Set on a subagent call (a step kind): the instruction a side request sends after the
   * parent's previous request's exact prefix. Its reply never enters the parent's history, so
   * `reply`, `toolResults`, `discoveredTools` and `skillLoads` are empty. Null on the parent's own steps.
   */
  subagentTask: string | null;
}

/**
 * The model each turn runs on: turns' `model` switches apply on the workload's own provider
 * only (on another provider the simulation runs one counterpart model throughout).
 */
export function turnModels(workload: Workload, provider: ProviderId, model: string): string[] {
  let current = model;
  return workload.turns.map((turn) => {
    if (turn.modelSwitch && provider === workload.provider) current = turn.modelSwitch;
    return current;
  });
}

/** Every request of a workload in order, with its turn and step. */
export function workloadRequests(workload: Workload): Array<{ turn: WorkloadTurn; step: WorkloadStep }> {
  return workload.turns.flatMap((turn) => turn.steps.map((step) => ({ turn, step })));
}
