/**
 * `npm run count:models`: every Anthropic, OpenAI, Google and DeepSeek chat model in the bundled
 * @pydantic/genai-prices data released since 2025-06, and who prices it in `cachet simulate
 * --model <id>` (Cachet's own row or the genai-prices fallback). Lists any unpriced and any id
 * the census table does not classify. Offline; src/cache/genai-model-census.test.ts checks the same.
 */
import { genaiModelCensus } from '../src/cache/genai-model-census.js';

const census = genaiModelCensus();
const by = (pricedBy: string | null) => census.recent.filter((line) => line.pricedBy === pricedBy).length;
for (const vendor of ['anthropic', 'openai', 'google', 'deepseek'] as const) {
  const lines = census.recent.filter((line) => line.vendor === vendor);
  const own = lines.filter((line) => line.pricedBy === 'cachet').length;
  const fallback = lines.filter((line) => line.pricedBy === 'genai-prices').length;
  console.log(
    `${vendor.padEnd(9)} ${String(lines.length).padStart(3)} recent chat models: ${own} own rows, ${fallback} fallback, ${lines.length - own - fallback} unpriced`,
  );
}
console.log(
  `total     ${census.recent.length} recent chat models: ${by('cachet')} own rows, ${by('genai-prices')} fallback, ${census.unpriced.length} unpriced` +
    ` (not counted: ${census.olderChat} older chat models, ${census.notChat} non-chat models)`,
);
if (census.unpriced.length > 0)
  console.log(`unpriced: ${census.unpriced.map((line) => `${line.vendor}/${line.model}`).join(', ')}`);
if (census.unclassified.length > 0)
  console.log(`not classified in src/cache/genai-model-census.ts: ${census.unclassified.join(', ')}`);
process.exitCode = census.unpriced.length > 0 || census.unclassified.length > 0 ? 1 : 0;
