import { ValidationError } from '../../model/errors.js';
import { type GeminiModelRow, resolveGeminiModel } from '../../providers/gemini/models.js';
import { openAiTokenCounter } from '../../tokens/openai-token-counter.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { CACHE_LIFETIMES_MS, unitTokensWithFraming } from '../wire/cache-rules.js';
import { isRecord } from '../wire/json-helpers.js';
import { normalizeWireBody } from '../wire/normalize-wire-body.js';
import { buildVerdict, type CacheModel, type CacheVerdict, formatAge, formatTokens, type JudgeContext } from './cache-verdict.js';
import { runningTotals, unitPrefixHashes } from './unit-prefix.js';

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
  const lifetime = options.implicitLifetimeMs ?? CACHE_LIFETIMES_MS.geminiImplicitIdle;
  let prompts: Prompt[] = [];
  let index = 0;

  function judge(rawBody: unknown, context: JudgeContext): CacheVerdict {
    if (!isRecord(rawBody) || typeof rawBody.model !== 'string' || !Array.isArray(rawBody.contents)) {
      throw new ValidationError('body', 'Gemini GenerateContentParameters (model, contents)');
    }
    const at = context.at;
    const requestIndex = index++;
    const row = resolveGeminiModel(rawBody.model, options.modelOverrides);
    const body = normalizeWireBody(rawBody, 'gemini');
    context.onNormalized?.(body, 'gemini');
    const units = body.units;
    // Counted as the break detector and the ideal count them, so reads and limits agree.
    const tokens = unitTokensWithFraming(body, counter);
    const explicitName =
      isRecord(rawBody.config) && typeof rawBody.config.cachedContent === 'string' ? rawBody.config.cachedContent : null;
    const explicitTokens = explicitName ? (options.explicitCaches?.get(explicitName) ?? null) : null;
    // The explicit cache's content is not in the body: it counts as input at the cache's place.
    const cacheUnit = units.findIndex((unit) => unit.path === 'config.cachedContent');
    if (explicitName && cacheUnit >= 0) tokens[cacheUnit] = explicitTokens ?? 0;
    const cumulative = runningTotals(tokens);
    const hashes = unitPrefixHashes(body);
    const total = cumulative.at(-1) ?? 0;
    const explanation: string[] = [];
    const warnings: string[] = [];
    let cacheReadTokens = 0;
    let readFrom: CacheVerdict['readFrom'] = null;
    let expired: Prompt | null = null;

    if (explicitName) {
      if (explicitTokens === null)
        warnings.push(`${explicitName}: unknown explicit cache (pass its size in options.explicitCaches)`);
      cacheReadTokens = explicitTokens ?? 0;
      readFrom = { path: 'config.cachedContent', writtenAt: at };
      explanation.push(`Read ${formatTokens(cacheReadTokens)} tokens from the explicit cache ${explicitName} (guaranteed).`);
    } else if (row.implicitCaching) {
      let best: { prompt: Prompt; length: number } | null = null;
      for (const prompt of prompts) {
        if (at >= prompt.expiresAt) {
          if (prompt.hashes[0] === hashes[0]) expired = prompt;
          continue;
        }
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
    if (cacheReadTokens === 0 && expired) {
      explanation.push(
        `The prompt of request #${expired.request} left the cache after ${formatAge(at - expired.writtenAt)} (implicit entries are planned to live ${formatAge(lifetime)} idle).`,
      );
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
      missCause: cacheReadTokens === 0 && expired ? 'ttl-expired' : null,
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
