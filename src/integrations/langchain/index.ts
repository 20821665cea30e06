export {
  type CachetLangChainCallInfo,
  type CachetLangChainOptions,
  type CachetModelRequest,
  cachetMiddleware,
} from './cachet-middleware.js';
export { type LangChainUsageSource, usageFromLangChain } from './usage-from-langchain.js';
