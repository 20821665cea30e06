export { type BreakpointCandidate, type BreakpointWarning, fitBreakpointBudget } from './breakpoint-budget.js';
export { charsPerTokenCounter } from './chars-token-counter.js';
export { type DeferredToolPlacement, toolsWithDeferred } from './deferred-tool-placement.js';
export { type OpenAIUsageCounts, openAIUsage, tokenCountSchema, usagePayload } from './openai-usage.js';
export { type CachePriceMultipliers, type PrefixCostInput, prefixCost } from './prefix-cost.js';
