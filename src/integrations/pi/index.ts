export type { ContainedHookOptions, HookErrorContext } from '../shared/contained-hooks.js';
export type { ConversationState, ConversationStore } from '../shared/conversation-store.js';
export { createKnownConversations, type ForkMatch, type KnownConversations } from '../shared/fork-recognition.js';
export type { ExistingMarkers, PromptBlockHash } from '../shared/plan-prompt-breakpoints.js';
export type { TurnTailState } from '../shared/turn-tail.js';
export type { VolatileState } from '../shared/volatile-auto.js';
export {
  type CachetPiHooks,
  type CachetPiOptions,
  cachetPiHooks,
  type PiModelLike,
  type PiUsageLike,
} from './cachet-pi-hooks.js';
