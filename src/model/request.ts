import type { Message, ToolDefinition } from './content.js';

/** The four zones of every request, in prefix order. Nothing ever moves left. */
export type Zone = 'global' | 'session' | 'history' | 'tail';

export interface SystemSegment {
  zone: 'global' | 'session';
  /** What the segment is, for reports and break causes: `persona`, `skill-index`, `project`... */
  label: string;
  text: string;
}

/** Kinds of turn-tail content. Tail content is true for one request only and never persisted. */
export type TailKind = 'memory-recall' | 'time' | 'working-context' | 'skills' | 'overlay' | 'restart-notice' | 'custom';

export interface TailItem {
  kind: TailKind;
  text: string;
  /**
   * `before-user-text`: injected immediately before the user's own text of this turn (per-turn
   * matched skills). `end`: after everything else. Adapters decide the concrete role.
   */
  position: 'before-user-text' | 'end';
}

export interface TurnTail {
  items: TailItem[];
  /**
   * True when the last history message carries tool results: the request continues a tool loop,
   * so the tail must not read as a fresh user turn.
   */
  inToolLoop: boolean;
}

export type ToolChoice = { type: 'auto' } | { type: 'any' } | { type: 'none' } | { type: 'tool'; name: string };

export type ThinkingConfig = { type: 'disabled' } | { type: 'enabled'; budgetTokens: number } | { type: 'adaptive' };

export interface GenerationParams {
  maxTokens: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  toolChoice?: ToolChoice;
  thinking?: ThinkingConfig;
  effort?: 'minimal' | 'low' | 'medium' | 'high';
  parallelToolCalls?: boolean;
}

/** One block of the request with the zone it belongs to and its hashes. */
export interface BlockRecord {
  zone: Zone;
  /** Path in the canonical request: `tools[0]`, `system[1]`, `messages[4].content[2]`, `tail[0]`. */
  path: string;
  /** SHA-256 of the block's canonical bytes. */
  hash: string;
  /** SHA-256 chain over every block up to and including this one. */
  prefixHash: string;
}

export interface ZoneLayout {
  /** Tools declared at deployment level (global static). */
  globalToolCount: number;
  /** Tools discovered during the session, appended after the global ones in discovery order. */
  discoveredToolCount: number;
  /** Leading messages that belong to the session static zone (e.g. the `[CONTEXT]` pair). */
  sessionMessageCount: number;
  /** Messages of the append-only history (all messages after the session static ones). */
  historyMessageCount: number;
}

/**
 * A provider-neutral request: what every adapter converts to a wire body. Built by
 * `assemble()`; zones are recorded so adapters can place breakpoints and the tail precisely.
 */
export interface CanonicalRequest {
  sessionId: string;
  model: string;
  tools: ToolDefinition[];
  /** Global segments first, then session segments. */
  system: SystemSegment[];
  /** Session static messages first, then history. The tail is never in here. */
  messages: Message[];
  tail: TurnTail;
  params: GenerationParams;
  layout: ZoneLayout;
  /** Tools, system segments, message blocks, then tail items, in prefix order. */
  blocks: BlockRecord[];
}
