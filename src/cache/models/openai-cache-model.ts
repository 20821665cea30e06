import { ValidationError } from '../../model/errors.js';
import { type OpenAIModelFacts, resolveOpenAIModel } from '../../providers/openai-chat/models.js';
import { providerEntry } from '../../providers/registry.js';
import { openAICounterOrEstimate } from '../../tokens/counter-for-model.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { createBreakDetector } from '../break/break-detector.js';
import { CACHE_LIFETIMES_MS, cacheRulesFor, unitTokens, unitTokensWithFraming, upstreamModelOf } from '../wire/cache-rules.js';
import { modelOf } from '../wire/json-helpers.js';
import { detectWireFormat, normalizeWireBody } from '../wire/normalize-wire-body.js';
import { type NormalizedWireBody, unitIdentity } from '../wire/wire-unit.js';
import { buildVerdict, type CacheModel, type CacheVerdict, formatAge, formatTokens, type JudgeContext } from './cache-verdict.js';
import { runningTotals, unitPrefixHashes } from './unit-prefix.js';

/** OpenAI reads cached prefixes in steps of this many tokens past the 1,024-token minimum (prompt-caching guide). */
export const OPENAI_CACHE_INCREMENT = 128;
/** Explicit-breakpoint models consider this many of the latest breakpoints (SDK 6.49 docs). */
const MAX_CONSIDERED_BREAKPOINTS = 80;
/** Prompts kept for automatic matching; older ones have long been evicted in practice. */
const MAX_REMEMBERED_PROMPTS = 64;

export interface OpenAICacheModelOptions {
  /** Token counter; o200k_base (exact, gpt-tokenizer) by default. */
  counter?: TokenCounter;
  /** Rows that override the adapter's model table, first match wins. */
  modelOverrides?: readonly OpenAIModelFacts[];
  /**
   * Retention when the body sets no `prompt_cache_retention` [the model row's
   * `defaultRetention`: 24h on models that accept it, for organisations without ZDR].
   */
  defaultRetention?: 'in_memory' | '24h';
  /** The organisation has zero data retention: an unspecified retention is `in_memory` where accepted. */
  zeroDataRetention?: boolean;
}

interface Prompt {
  body: NormalizedWireBody;
  cumulative: number[];
  tokens: number[];
  total: number;
  writtenAt: number;
  expiresAt: number;
  request: number;
}

interface ExplicitEntry {
  tokens: number;
  path: string;
  writtenAt: number;
  expiresAt: number;
  request: number;
}

/**
 * OpenAI's automatic prompt cache (Chat Completions, Responses and OpenRouter's non-Anthropic
 * routes): prompts of at least 1,024 tokens; a hit is the longest prefix shared with an
 * earlier prompt of the same model, parameters and `prompt_cache_key`, rounded down to
 * 1,024 + k × 128 tokens; entries live 5 minutes idle (`in_memory`) or 24 hours. GPT-5.6 and
 * later also honour `prompt_cache_breakpoint` markers (writes billed 1.25×, 30-minute TTL, no
 * lookback limit over the latest 80 breakpoints, boundaries not rounded).
 *
 * @example
 * const model = createOpenAICacheModel();
 * model.judge(chatBody1, { at: 0 });
 * model.judge(chatBody2, { at: 30_000 }).cacheReadTokens; // a multiple of 128 past 1,024
 */
export function createOpenAICacheModel(options: OpenAICacheModelOptions = {}): CacheModel {
  const counter = options.counter ?? openAICounterOrEstimate('o200k_base');
  let prompts: Prompt[] = [];
  let explicit = new Map<string, ExplicitEntry>();
  let detector = createBreakDetector({ counter });
  let index = 0;

  function judge(rawBody: unknown, context: JudgeContext): CacheVerdict {
    const detected = detectWireFormat(rawBody);
    // A local engine's body judged by OpenAI's rules is read as Chat Completions.
    const local = providerEntry(detected).route(modelOf(rawBody)).rules === 'local';
    const format = local ? 'openai-chat' : detected;
    const body = normalizeWireBody(rawBody, format);
    context.onNormalized?.(body, format);
    if (cacheRulesFor(body) !== 'openai') {
      throw new ValidationError(
        'body',
        'an OpenAI Chat Completions or Responses body (or an OpenRouter non-Anthropic body)',
        `got a ${body.format} body`,
      );
    }
    const at = context.at;
    const requestIndex = index++;
    const facts = resolveOpenAIModel(upstreamModelOf(body), options.modelOverrides);
    const tokens = unitTokensWithFraming(body, counter);
    const cumulative = runningTotals(tokens);
    const total = cumulative.at(-1) ?? 0;
    const unspecified =
      options.defaultRetention ??
      (options.zeroDataRetention && facts.retention.includes('in_memory') ? 'in_memory' : facts.defaultRetention);
    const retention = body.retention ?? (facts.retention.includes(unspecified) ? unspecified : facts.retention[0]!);
    const lifetime = retention === '24h' ? CACHE_LIFETIMES_MS.openAI24h : CACHE_LIFETIMES_MS.openAIInMemoryIdle;
    const explanation: string[] = [];
    let cacheReadTokens = 0;
    let cacheWrite5mTokens = 0;
    let readFrom: CacheVerdict['readFrom'] = null;
    const current: Prompt = { body, cumulative, tokens, total, writtenAt: at, expiresAt: at + lifetime, request: requestIndex };

    if (facts.explicitBreakpoints) {
      ({ cacheReadTokens, cacheWrite5mTokens, readFrom } = judgeExplicitBreakpoints({
        body,
        cumulative,
        explicit,
        at,
        requestIndex,
        retention,
        minimumPrefixTokens: facts.minimumPrefixTokens,
        explanation,
      }));
    } else {
      ({ cacheReadTokens, readFrom } = judgeImplicitPrefix({
        prompts,
        current,
        counter,
        minimumPrefixTokens: facts.minimumPrefixTokens,
        lifetime,
        retention,
        explanation,
      }));
      prompts = [...prompts.filter((prompt) => at < prompt.expiresAt), current].slice(-MAX_REMEMBERED_PROMPTS);
    }
    explanation.push(`Token counts from ${counter.name}${counter.exact ? '' : ' (estimates)'}.`);
    const structural = detector.observeNormalized(body, {
      at,
      usage: {
        uncachedInputTokens: 0,
        cacheReadTokens,
        cacheWrite5mTokens,
        cacheWrite1hTokens: 0,
        outputTokens: 0,
        reasoningTokens: 0,
        raw: null,
      },
    });
    if (structural) explanation.push(structural.explanation);
    return buildVerdict({
      index: requestIndex,
      at,
      inputTokens: total,
      cacheReadTokens,
      cacheWrite5mTokens,
      cacheWrite1hTokens: 0,
      tokensEstimated: !counter.exact,
      counter: counter.name,
      readFrom,
      missCause: structural?.cause ?? null,
      explanation,
      warnings: [...body.warnings],
      rejected: null,
    });
  }

  return {
    rules: 'openai',
    judge,
    reset() {
      prompts = [];
      explicit = new Map();
      detector = createBreakDetector({ counter });
      index = 0;
    },
  };
}

/**
 * Cached tokens for a shared prefix: nothing below the minimum, then the minimum plus whole
 * 128-token increments.
 *
 * @example
 * roundToIncrement(1_300, 1_024); // 1_280
 */
export function roundToIncrement(sharedTokens: number, minimum: number): number {
  if (sharedTokens < minimum) return 0;
  return minimum + Math.floor((sharedTokens - minimum) / OPENAI_CACHE_INCREMENT) * OPENAI_CACHE_INCREMENT;
}

/**
 * Tokens two prompts share from the start: whole equal units, then the common text of the
 * first differing unit (OpenAI caches by token, not by block), less one token for the token
 * that straddles the difference.
 */
function sharedPrefixTokens(earlier: Prompt, current: Prompt, counter: TokenCounter): number {
  const units = current.body.units;
  const length = Math.min(earlier.body.units.length, units.length);
  for (let index = 0; index < length; index++) {
    const before = earlier.body.units[index]!;
    const after = units[index]!;
    if (unitIdentity(before) === unitIdentity(after)) continue;
    const previous = index > 0 ? current.cumulative[index - 1]! : 0;
    if (before.role !== after.role || before.kind !== after.kind || before.kind === 'param') return previous;
    const common = commonPrefix(before.tokenText, after.tokenText);
    const own = unitTokens(after, counter);
    const framing = current.tokens[index]! - own;
    // The common text is counted on its own; it never reaches the whole unit, which differs.
    const commonTokens = common ? counter.countText(common, after.tokenKind) : 0;
    return previous + framing + Math.max(0, Math.min(commonTokens, own) - 1);
  }
  return length > 0 ? current.cumulative[length - 1]! : 0;
}

function commonPrefix(left: string, right: string): string {
  const length = Math.min(left.length, right.length);
  let index = 0;
  while (index < length && left.charCodeAt(index) === right.charCodeAt(index)) index++;
  return left.slice(0, index);
}

function pathAtTokens(body: NormalizedWireBody, cumulative: readonly number[], tokens: number): string {
  const index = cumulative.findIndex((value) => value >= tokens);
  return body.units[index === -1 ? body.units.length - 1 : index]!.path;
}

/** @deprecated renamed `createOpenAICacheModel`; this alias goes in the next release. */
export const createOpenAiCacheModel = createOpenAICacheModel;
/** @deprecated renamed `OpenAICacheModelOptions`; this alias goes in the next release. */
export type OpenAiCacheModelOptions = OpenAICacheModelOptions;

/** OpenAI's explicit `prompt_cache_breakpoint`s: read the longest live entry, write up to four new ones. */
function judgeExplicitBreakpoints(input: {
  body: NormalizedWireBody;
  cumulative: readonly number[];
  explicit: Map<string, ExplicitEntry>;
  at: number;
  requestIndex: number;
  retention: string;
  minimumPrefixTokens: number;
  explanation: string[];
}): { cacheReadTokens: number; cacheWrite5mTokens: number; readFrom: CacheVerdict['readFrom'] } {
  const { body, cumulative, explicit, at, requestIndex, retention, minimumPrefixTokens, explanation } = input;
  let readFrom: CacheVerdict['readFrom'] = null;
  let cacheWrite5mTokens = 0;
  const hashes = unitPrefixHashes(body);
  const explicitLifetime = Math.max(CACHE_LIFETIMES_MS.openAIExplicit, retention === '24h' ? CACHE_LIFETIMES_MS.openAI24h : 0);
  let readEnd = -1;
  for (let unitIndex = body.units.length - 1; unitIndex >= 0; unitIndex--) {
    const entry = explicit.get(hashes[unitIndex]!);
    if (entry && entry.request < requestIndex && at < entry.expiresAt) {
      readEnd = unitIndex;
      entry.expiresAt = at + explicitLifetime;
      readFrom = { path: entry.path, writtenAt: entry.writtenAt };
      break;
    }
  }
  const cacheReadTokens = readEnd >= 0 ? cumulative[readEnd]! : 0;
  if (readFrom)
    explanation.push(
      `Read ${formatTokens(cacheReadTokens)} tokens up to the breakpoint at ${readFrom.path}, written ${formatAge(at - readFrom.writtenAt)} ago.`,
    );
  const marks = body.units.flatMap((unit, unitIndex) => (unit.breakpoint ? [unitIndex] : []));
  const mode = body.promptCacheMode ?? 'implicit';
  const written = mode === 'explicit' ? marks.slice(-4) : [...marks.slice(-3), body.units.length - 1];
  let writtenUpTo = readEnd;
  for (const mark of [...new Set(written)].sort((left, right) => left - right)) {
    if (mark <= readEnd || mark < 0) continue;
    if (cumulative[mark]! < minimumPrefixTokens) continue;
    cacheWrite5mTokens += cumulative[mark]! - (writtenUpTo >= 0 ? cumulative[writtenUpTo]! : 0);
    writtenUpTo = mark;
    explicit.set(hashes[mark]!, {
      tokens: cumulative[mark]!,
      path: body.units[mark]!.path,
      writtenAt: at,
      expiresAt: at + explicitLifetime,
      request: requestIndex,
    });
  }
  while (explicit.size > MAX_CONSIDERED_BREAKPOINTS) explicit.delete(explicit.keys().next().value!);
  if (cacheWrite5mTokens > 0)
    explanation.push(`Wrote ${formatTokens(cacheWrite5mTokens)} tokens up to ${body.units[writtenUpTo]!.path} (billed 1.25×).`);
  if (mode === 'explicit' && marks.length === 0)
    explanation.push('prompt_cache_options.mode is explicit and the body has no breakpoint: no caching.');
  return { cacheReadTokens, cacheWrite5mTokens, readFrom };
}

/**
 * Automatic prefix caching (no explicit breakpoints): the longest prefix `current` shares with a
 * live earlier prompt, rounded down to the model's increments; refreshes that prompt's lifetime.
 */
function judgeImplicitPrefix(input: {
  prompts: readonly Prompt[];
  current: Prompt;
  counter: TokenCounter;
  minimumPrefixTokens: number;
  lifetime: number;
  retention: string;
  explanation: string[];
}): { cacheReadTokens: number; readFrom: CacheVerdict['readFrom'] } {
  const { prompts, current, counter, lifetime, retention, explanation } = input;
  const { body, cumulative, total, writtenAt: at } = current;
  const minimum = input.minimumPrefixTokens;
  let readFrom: CacheVerdict['readFrom'] = null;
  let best: { prompt: Prompt; tokens: number } | null = null;
  for (const prompt of prompts) {
    if (at >= prompt.expiresAt) continue;
    const shared = Math.min(sharedPrefixTokens(prompt, current, counter), prompt.total);
    if (!best || shared > best.tokens) best = { prompt, tokens: shared };
  }
  const shared = best?.tokens ?? 0;
  const cacheReadTokens = roundToIncrement(shared, minimum);
  if (best && cacheReadTokens > 0) {
    best.prompt.expiresAt = Math.max(best.prompt.expiresAt, at + lifetime);
    readFrom = { path: pathAtTokens(body, cumulative, cacheReadTokens), writtenAt: best.prompt.writtenAt };
    explanation.push(
      `Read ${formatTokens(cacheReadTokens)} tokens: ${formatTokens(shared)} shared with request #${best.prompt.request + 1} (${formatAge(at - best.prompt.writtenAt)} ago), rounded down to 1,024 + k × 128.`,
    );
  } else if (shared > 0) {
    explanation.push(
      `Only ${formatTokens(shared)} tokens are shared with an earlier prompt: below the ${formatTokens(minimum)}-token minimum.`,
    );
  }
  if (total < minimum) {
    explanation.push(
      `The prompt is ${formatTokens(total)} tokens, below the ${formatTokens(minimum)}-token minimum: not cached.`,
    );
  }
  const expired = prompts.filter((prompt) => at >= prompt.expiresAt);
  if (cacheReadTokens === 0 && expired.length > 0 && prompts.length === expired.length) {
    explanation.push(`Earlier prompts left the cache (${retention} retention).`);
  }
  return { cacheReadTokens, readFrom };
}
