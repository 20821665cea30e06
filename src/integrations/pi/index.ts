export {
  type CachetPiHooks,
  type CachetPiOptions,
  cachetPiHooks,
  type PiModelLike,
  type PiUsageLike,
} from './cachet-pi-hooks.js';
