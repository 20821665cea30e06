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

/**
 * How long a tail item lives. `request`: sent after the cached prefix of every request and
 * never persisted (re-billed at every tool-loop step). `turn`: persisted once into the user
 * message that opens the turn, so the rest of the tool loop reads it from the cache; from then
 * on it is history. `auto` [default]: chosen by cost from the turn's expected steps and the
 * session's expected remaining requests (`chooseTailScope`).
 */
export type TailScope = 'request' | 'turn' | 'auto';

export interface TailItem {
  kind: TailKind;
  text: string;
  /** `auto` when absent; see `TailScope`. */
  scope?: TailScope;
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
  /**
   * Tools declared deferred (`SessionOptions.deferredTools`), in declaration order, and the
   * names loaded so far by `toolReferences` in history. Absent when the session declares none.
   * Deferred definitions are not in `tools` and not in `blocks`: where the provider supports
   * deferral they are outside the cached prefix.
   */
  deferredTools?: DeferredTools;
  /** Tools, system segments, message blocks, then tail items, in prefix order. */
  blocks: BlockRecord[];
}

export interface DeferredTools {
  /** Every deferred tool, in declaration order. */
  tools: ToolDefinition[];
  /** Names loaded so far (by `tool_result.toolReferences`), in load order. */
  loaded: string[];
}
