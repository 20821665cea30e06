import { ValidationError } from '../../model/errors.js';
import { sha256 } from '../../model/hash.js';
import { type GeminiModelRow, resolveGeminiModel } from '../../providers/gemini/models.js';
import { openAiTokenCounter } from '../../tokens/openai-token-counter.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { type GeminiUnit, geminiUnits, geminiUnitTokens } from '../wire/gemini-units.js';
import { isRecord } from '../wire/json-helpers.js';
import { buildVerdict, type CacheModel, type CacheVerdict, formatAge, formatTokens, type JudgeContext } from './cache-verdict.js';
import { runningTotals } from './unit-prefix.js';

export interface GeminiCacheModelOptions {
  /** Token counter [o200k_base as a stand-in; Gemini's tokenizer is not public]. */
  counter?: TokenCounter;
  modelOverrides?: readonly GeminiModelRow[];
  /**
   * How long an implicit entry lives without being read. Google documents no lifetime; five
   * idle minutes is the cautious figure Cachet plans with [5 min].
   */
  implicitLifetimeMs?: number;
  /** Tokens each explicit cache holds, by name, for bodies that read one (`explicit_cache.created` events carry them). */
  explicitCaches?: ReadonlyMap<string, number>;
}

interface Prompt {
  hashes: string[];
  cumulative: number[];
  writtenAt: number;
  expiresAt: number;
  request: number;
}

const FIVE_MINUTES = 5 * 60_000;

/**
 * Gemini's caches as documented: implicit caching (2.5 and later) reuses the longest prefix a
 * request shares with an earlier one of the same model once the prompt reaches the model's
 * minimum, bills no write and promises nothing (the model counts a hit whenever the prefix is
 * still held: an upper bound); a body that names an explicit cache (`config.cachedContent`)
 * reads all of that cache's tokens, guaranteed, and writes nothing per request (storage is
 * billed per hour, outside the request).
 *
 * @example
 * const model = createGeminiCacheModel();
 * model.judge(body1, { at: 0 });
 * model.judge(body2, { at: 30_000 }).cacheReadTokens;
 */
export function createGeminiCacheModel(options: GeminiCacheModelOptions = {}): CacheModel {
  const counter = options.counter ?? openAiTokenCounter('o200k_base');
  const lifetime = options.implicitLifetimeMs ?? FIVE_MINUTES;
  let prompts: Prompt[] = [];
  let index = 0;

  function judge(rawBody: unknown, context: JudgeContext): CacheVerdict {
    if (!isRecord(rawBody) || typeof rawBody.model !== 'string' || !Array.isArray(rawBody.contents)) {
      throw new ValidationError('body', 'Gemini GenerateContentParameters (model, contents)');
    }
    const at = context.at;
    const requestIndex = index++;
    const row = resolveGeminiModel(rawBody.model, options.modelOverrides);
    const units = geminiUnits(rawBody);
    const tokens = units.map((unit) => geminiUnitTokens(unit, counter));
    const explicitName =
      isRecord(rawBody.config) && typeof rawBody.config.cachedContent === 'string' ? rawBody.config.cachedContent : null;
    const explicitTokens = explicitName ? (options.explicitCaches?.get(explicitName) ?? null) : null;
    // The explicit cache's content is not in the body: it counts as input at the cache's place.
    if (explicitName) tokens[1] = explicitTokens ?? 0;
    const cumulative = runningTotals(tokens);
    const hashes = prefixHashes(units);
    const total = cumulative.at(-1) ?? 0;
    const explanation: string[] = [];
    const warnings: string[] = [];
    let cacheReadTokens = 0;
    let readFrom: CacheVerdict['readFrom'] = null;

    if (explicitName) {
      if (explicitTokens === null)
        warnings.push(`${explicitName}: unknown explicit cache (pass its size in options.explicitCaches)`);
      cacheReadTokens = explicitTokens ?? 0;
      readFrom = { path: 'config.cachedContent', writtenAt: at };
      explanation.push(`Read ${formatTokens(cacheReadTokens)} tokens from the explicit cache ${explicitName} (guaranteed).`);
    } else if (row.implicitCaching) {
      let best: { prompt: Prompt; length: number } | null = null;
      for (const prompt of prompts) {
        if (at >= prompt.expiresAt) continue;
        let length = 0;
        const limit = Math.min(prompt.hashes.length, hashes.length);
        while (length < limit && prompt.hashes[length] === hashes[length]) length++;
        if (!best || length > best.length) best = { prompt, length };
      }
      const shared = best && best.length > 0 ? cumulative[best.length - 1]! : 0;
      if (best && shared >= row.implicitMinimumTokens && total >= row.implicitMinimumTokens) {
        cacheReadTokens = shared;
        best.prompt.expiresAt = at + lifetime;
        readFrom = { path: units[best.length - 1]!.path, writtenAt: best.prompt.writtenAt };
        explanation.push(
          `Implicit hit: ${formatTokens(shared)} tokens shared with request #${best.prompt.request} (${formatAge(at - best.prompt.writtenAt)} ago). Google does not guarantee implicit hits; this is the most the request can read.`,
        );
      } else if (shared > 0) {
        explanation.push(
          `Only ${formatTokens(shared)} tokens are shared with an earlier prompt: below the ${formatTokens(row.implicitMinimumTokens)}-token minimum of ${row.family}.`,
        );
      }
    } else {
      explanation.push(`${row.family} has no implicit caching: only an explicit cache is read.`);
    }
    prompts = [
      ...prompts.filter((prompt) => at < prompt.expiresAt),
      { hashes, cumulative, writtenAt: at, expiresAt: at + lifetime, request: requestIndex },
    ].slice(-64);
    explanation.push(
      `Token counts from ${counter.name}${counter.exact ? '' : ' (estimates)'}; Gemini's tokenizer is not public.`,
    );
    return buildVerdict({
      index: requestIndex,
      at,
      inputTokens: total,
      cacheReadTokens,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      tokensEstimated: true,
      counter: counter.name,
      readFrom,
      missCause: null,
      explanation,
      warnings,
      rejected: null,
    });
  }

  return {
    rules: 'openai',
    judge,
    reset() {
      prompts = [];
      index = 0;
    },
  };
}

function prefixHashes(units: readonly GeminiUnit[]): string[] {
  let chain = '';
  return units.map((unit) => (chain = sha256(`${chain}\u0001${unit.identity}`)));
}
