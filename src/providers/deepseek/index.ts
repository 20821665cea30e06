export { DEEPSEEK_MODELS, type DeepSeekModelRow, resolveDeepSeekModel } from './models.js';
export { deepSeekUsageSchema, parseDeepSeekUsage } from './parse-usage.js';
export { DEEPSEEK_PRICES } from './prices.js';
