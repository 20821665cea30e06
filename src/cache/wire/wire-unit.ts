import type { ProviderId } from '../../providers/adapter.js';
import type { ContentKind, CountableItem } from '../../tokens/token-counter.js';

/** Zones a wire body is compared in, in the words of the break report. */
export type WireZone = 'tools' | 'system' | 'messages' | 'params';

/** A cache marker's lifetime as written in the body (OpenAI's explicit markers inherit `30m`). */
export type WireTtl = '5m' | '1h' | '30m';

/**
 * One comparable piece of a wire body, in the order the provider reads its prefix: a
 * parameter that shapes the prefix, a tool definition, a system block or a message block.
 */
export interface WireUnit {
  zone: WireZone;
  /** Where the unit sits in the wire body: `tools[2]`, `system[0]`, `messages[4].content[1]`. */
  path: string;
  /**
   * The unit's bytes as compared between requests: its JSON with cache markers removed (a
   * marker moving does not change what is cached) and with the body's own key order (which
   * does change the bytes the provider sees).
   */
  text: string;
  /** What else makes the unit differ although `text` is equal: the message role. */
  role: string | null;
  /** Index of the message (or input item) the unit belongs to; null outside messages. */
  messageIndex: number | null;
  /** The unit's content as plain text (empty for parameters), for prefix comparisons within a unit. */
  tokenText: string;
  /** The kind of `tokenText` when the block's type says it; undefined for free text (detected when counted). */
  tokenKind: ContentKind | undefined;
  /**
   * The unit's content as a canonical block, counted with the same rules as the blocks of a
   * canonical request (`countableParts`), so simulated usage and zone sizes agree; null when
   * the unit has no text (parameters, media).
   */
  countable: CountableItem | null;
  /** Tokens counted without text (images, documents given by reference), added to `countable`'s. */
  fixedTokens: number;
  /** A content-block position in Anthropic's sense (parameters are not). */
  block: boolean;
  /** Kind of block, for rules that depend on it (no markers on thinking blocks; images). */
  kind: 'param' | 'tool' | 'text' | 'image' | 'document' | 'tool_use' | 'tool_result' | 'thinking' | 'other';
  /** Cache marker on this unit, when the body places one. */
  breakpoint: WireTtl | null;
}

/** A wire body reduced to what decides caching: its units in prefix order. */
export interface NormalizedWireBody {
  format: ProviderId;
  model: string;
  units: WireUnit[];
  /** The body carries a top-level automatic `cache_control` (Anthropic, OpenRouter). */
  automaticBreakpoint: WireTtl | null;
  /** Problems the provider would reject or silently ignore (markers on thinking blocks, ...). */
  warnings: string[];
  /** OpenAI cache options read from the body (null when absent). */
  retention: 'in_memory' | '24h' | null;
  /** `prompt_cache_options.mode` (GPT-5.6+): `explicit` disables the implicit breakpoint. */
  promptCacheMode: 'implicit' | 'explicit' | null;
}

/** Identity used for equality: text and role together. */
export function unitIdentity(unit: WireUnit): string {
  return unit.role === null ? unit.text : `${unit.role}\u0000${unit.text}`;
}

/**
 * `unitIdentity(left) === unitIdentity(right)` without building the two strings (the break
 * detector and the cache models compare every unit of every request).
 */
export function sameUnitIdentity(left: WireUnit, right: WireUnit): boolean {
  if (left.role === right.role) return left.text === right.text;
  return unitIdentity(left) === unitIdentity(right);
}
