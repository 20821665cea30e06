export type { AssembleOptions } from './assemble.js';
export { assemble, renderTail } from './assemble.js';
export {
  ANTHROPIC_TAIL_PRICING,
  chooseTailScope,
  type TailScopeChoice,
  type TailScopeInput,
  type TailScopePricing,
} from './choose-tail-scope.js';
export { EmptySessionForkError, type ForkOptions, forkRequest } from './fork-request.js';
export { type ResolvedTurnTail, type ResolveTurnTailOptions, resolveTurnTail, type ScopeDecision } from './resolve-turn-tail.js';
export type { SegmentInput, SerializedSession, SessionExpectations, SessionOptions } from './session.js';
export { SESSION_FORMAT_VERSION, Session } from './session.js';
export type { CurrentTimeOptions, TailContext, TailProvider } from './tail-provider.js';
export { currentTimeProvider, tailProvider } from './tail-provider.js';
