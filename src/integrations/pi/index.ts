export { createKnownConversations, type ForkMatch, type KnownConversations } from '../shared/fork-recognition.js';
export {
  type CachetPiHooks,
  type CachetPiOptions,
  cachetPiHooks,
  type PiModelLike,
  type PiUsageLike,
} from './cachet-pi-hooks.js';
