export type { VolatileOption } from '../shared/volatile-auto.js';
export {
  type CachetLangChainCallInfo,
  type CachetLangChainMiddleware,
  type CachetLangChainOptions,
  type CachetModelRequest,
  cachetMiddleware,
} from './cachet-middleware.js';

export type { LangChainRequestParts } from './langchain-prompt-view.js';
export { type LangChainUsageSource, usageFromLangChain } from './usage-from-langchain.js';
