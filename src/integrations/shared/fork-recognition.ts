import type { ConversationStore } from './conversation-store.js';
import { type PromptBlockHash, type PromptPlan, type PromptPlanInput, planPromptBreakpoints } from './plan-prompt-breakpoints.js';

/** Why a call was planned as a fork of a known conversation. */
export interface ForkMatch {
  /** The conversation whose prefix the call repeats. */
  of: string;
  /**
   * `branch`: the call repeats its own conversation's last request up to a message boundary and
   * then says something else (a side question about the state so far: a title, a recap, a summary);
   * `new-conversation`: a call of a conversation not seen yet starts with a known conversation's
   * prefix, messages included (a subagent or side call given its own conversation id).
   */
  rule: 'branch' | 'new-conversation';
  /** Blocks of the call's prefix the known conversation had already sent. */
  sharedBlocks: number;
}

/**
 * The conversations whose prefixes forks are recognised against. A middleware's own
 * `ConversationStore` is one; drop-ins holding one conversation each (pi) share one of these
 * (`createKnownConversations()`) so a subagent's first call is recognised as a fork of its parent.
 */
export type KnownConversations = ConversationStore | { readonly knownConversations: true };

/** A scope of known conversations shared by several single-conversation drop-ins. */
export function createKnownConversations(): KnownConversations {
  return { knownConversations: true };
}

/** Conversations remembered for recognition, per scope (least recently planned dropped first). */
const MAX_REMEMBERED = 256;
const remembered = new WeakMap<KnownConversations, Map<string, readonly PromptBlockHash[]>>();

const MESSAGE_PATH = /^messages\[(\d+)\]/;
const messageIndexOf = (path: string): number | null => {
  const match = MESSAGE_PATH.exec(path);
  return match ? Number(match[1]) : null;
};

/**
 * Plan a call's Anthropic breakpoints, recognising forks: when the call's prefix, up to its last
 * message, is a prefix a known conversation of `store` has already sent (`recogniseFork`), its
 * last message is planned as tail — no marker at its end, since a one-shot call writes nothing
 * it will not read; the prefix keeps the markers that read the known conversation's cache.
 * A fork of the call's own conversation (`branch`) must not become that conversation's state:
 * `fork` tells the middleware to leave `previous` and `blocks` as they were.
 *
 * @example
 * const { planned, fork } = planWithForks(conversations, conversationId, planInput);
 * if (!fork || fork.rule !== 'branch') state.previous = planned.plan.cacheState;
 */
export function planWithForks(
  store: KnownConversations,
  conversationId: string,
  input: PromptPlanInput,
): { planned: PromptPlan; fork: ForkMatch | null } {
  let known = remembered.get(store);
  if (!known) {
    known = new Map();
    remembered.set(store, known);
  }
  const first = planPromptBreakpoints(input);
  const fork = recogniseFork(known, conversationId, first.blocks);
  if (!fork) {
    remember(known, conversationId, first.blocks);
    return { planned: first, fork: null };
  }
  if (fork.rule === 'new-conversation') remember(known, conversationId, first.blocks);
  const last = lastMessageIndex(first.blocks);
  const tailMessageParts = new Set(input.tailMessageParts);
  for (const block of first.blocks) if (messageIndexOf(block.path) === last) tailMessageParts.add(block.path);
  return { planned: planPromptBreakpoints({ ...input, tailMessageParts }), fork };
}

function remember(known: Map<string, readonly PromptBlockHash[]>, conversationId: string, blocks: readonly PromptBlockHash[]) {
  known.delete(conversationId);
  known.set(
    conversationId,
    blocks.filter((block) => block.zone !== 'tail'),
  );
  if (known.size > MAX_REMEMBERED) known.delete(known.keys().next().value as string);
}

function lastMessageIndex(blocks: readonly PromptBlockHash[]): number {
  let last = -1;
  for (const block of blocks) {
    if (block.zone === 'tail') continue;
    const index = messageIndexOf(block.path);
    if (index !== null && index > last) last = index;
  }
  return last;
}

/**
 * Whether a call (its blocks, in wire order with chained hashes) is a fork of a known
 * conversation. Never for a continuation: a conversation's next request extends its last one,
 * so a call is a `branch` only when it leaves its own conversation's last request before that
 * request ended; and a call of an unseen conversation is a fork only when it repeats another's
 * prefix past its tools and system, at least one message deep.
 */
export function recogniseFork(
  known: ReadonlyMap<string, readonly PromptBlockHash[]>,
  conversationId: string,
  blocks: readonly PromptBlockHash[],
): ForkMatch | null {
  const persisted = blocks.filter((block) => block.zone !== 'tail');
  const last = lastMessageIndex(persisted);
  if (last < 0) return null;
  // Blocks before the call's last message: the prefix the fork would read.
  const prefixLength = persisted.findIndex((block) => messageIndexOf(block.path) === last);
  if (prefixLength < 1) return null;
  const own = known.get(conversationId);
  if (own) {
    const branches =
      prefixLength < own.length &&
      own[prefixLength - 1]?.hash === persisted[prefixLength - 1]?.hash &&
      own[prefixLength]?.hash !== persisted[prefixLength]?.hash;
    return branches ? { of: conversationId, rule: 'branch', sharedBlocks: prefixLength } : null;
  }
  for (const [other, theirs] of known) {
    const staticBlocks = theirs.findIndex((block) => messageIndexOf(block.path) !== null);
    if (staticBlocks < 0) continue;
    const shared = Math.min(prefixLength, theirs.length);
    if (shared > staticBlocks && theirs[shared - 1]?.hash === persisted[shared - 1]?.hash) {
      return { of: other, rule: 'new-conversation', sharedBlocks: shared };
    }
  }
  return null;
}
