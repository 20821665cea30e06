/** DeepSeek API prices, USD per million tokens (cache hit / cache miss / output); no write premium. */
const SOURCE = 'api-docs.deepseek.com/quick_start/pricing (deepseek-chat and deepseek-reasoner, V3.2)';
const CHECKED = '2026-11-23';

function deepseek(model: string, miss: number, hit: number, output: number) {
  return {
    vendor: 'deepseek',
    model,
    inputPerMTok: miss,
    cacheWrite5mPerMTok: miss,
    cacheWrite1hPerMTok: miss,
    cacheReadPerMTok: hit,
    outputPerMTok: output,
    source: SOURCE,
    checked: CHECKED,
  };
}

export const DEEPSEEK_PRICES = [
  deepseek('deepseek-chat', 0.28, 0.028, 0.42),
  deepseek('deepseek-reasoner', 0.28, 0.028, 0.42),
] as const;
