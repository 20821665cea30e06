export { charsPerTokenCounter } from './chars-token-counter.js';
export { fitBreakpointBudget, type BreakpointCandidate, type BreakpointWarning } from './breakpoint-budget.js';
export { prefixCost, type CachePriceMultipliers, type PrefixCostInput } from './prefix-cost.js';
