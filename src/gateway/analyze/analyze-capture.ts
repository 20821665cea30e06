import { type CauseAgreementSummary, summarizeCauseAgreement } from '../../cache/break/compare-server-cause.js';
import { diffWireBodies } from '../../cache/break/diff-wire-bodies.js';
import { costOf, uncachedCostOf } from '../../cache/cost.js';
import type { CacheModel, CacheVerdict } from '../../cache/models/cache-verdict.js';
import { createCacheModel } from '../../cache/models/create-cache-model.js';
import { anthropicBreakpoints, cacheRulesFor } from '../../cache/wire/cache-rules.js';
import { detectWireFormat, normalizeWireBody } from '../../cache/wire/normalize-wire-body.js';
import type { WireZone } from '../../cache/wire/wire-unit.js';
import type { CacheBreakCause } from '../../events/catalog.js';
import { ValidationError } from '../../model/errors.js';
import type { ProviderCacheMissReason, Usage } from '../../model/usage.js';
import type { ProviderId } from '../../providers/adapter.js';
import { isProviderId, PROVIDER_IDS, providerEntry } from '../../providers/registry.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { openAICounterOrEstimate } from '../../tokens/counter-for-model.js';
import { conversationKey } from '../proxy/conversation-key.js';
import { planCacheFields } from '../proxy/plan-cache-fields.js';
import { wireRouteOfProvider } from '../proxy/wire-route.js';
import { CAUSE_ADVICE } from './cause-advice.js';
import type { CapturedRequest } from './read-capture.js';

export type MissCause = CacheBreakCause | 'no-breakpoint';

/** One judged request. Token figures are the provider's when the capture has usage, else the model's. */
export interface AnalyzedRequest {
  /** Position in the capture, from 0. */
  index: number;
  conversation: string;
  at: number;
  provider: ProviderId;
  model: string;
  /** `reported`: figures from the captured usage; `modelled`: from Cachet's cache model. */
  source: 'reported' | 'modelled';
  readTokens: number;
  writeTokens: number;
  uncachedTokens: number;
  outputTokens: number;
  costUsd: number;
  /** What the cache model predicts for this body, for comparison with `reported` figures. */
  modelledReadTokens: number;
  missCause: MissCause | null;
  /** Tokens the previous request left cached that this one did not read. */
  missedTokens: number;
  /** First byte divergence from the conversation's previous request, with what it cost (computed for misses only; `cachet diff --sequence` has every pair). */
  changed: { zone: WireZone; path: string; byteOffset: number; before: string; after: string; cacheImpact: number } | null;
  /** The provider's own diagnosis, when the capture has one. */
  serverCause: string | null;
}

export interface CauseSummary {
  cause: MissCause;
  count: number;
  missedTokens: number;
  advice: string;
}

export interface AnalyzedConversation {
  id: string;
  provider: ProviderId;
  model: string;
  requests: number;
  readTokens: number;
  writeTokens: number;
  uncachedTokens: number;
  outputTokens: number;
  /** read ÷ (read + write + uncached). */
  readShare: number;
  costUsd: number;
  /** The same requests with no cache at all. */
  uncachedCostUsd: number;
  /** The same requests with Cachet's plan for cache fields (`cachet proxy --plan`), as modelled. */
  plannedCostUsd: number;
  plannedReadShare: number;
  /** Most frequent causes first, with what to change. */
  topCauses: CauseSummary[];
  /**
   * How often Cachet's miss cause agrees with the provider's own diagnosis (Anthropic
   * `diagnostics`), over the misses both named.
   */
  causeAgreement: CauseAgreementSummary;
}

export interface CaptureAnalysis {
  requests: AnalyzedRequest[];
  conversations: AnalyzedConversation[];
  totals: { requests: number; costUsd: number; plannedCostUsd: number; uncachedCostUsd: number; readShare: number };
}

/**
 * Judge a captured sequence of wire bodies offline, conversation by conversation: what each
 * request read, wrote and cost, why it missed and which bytes changed; per conversation the
 * totals, the cost under Cachet's plan, and the top causes with advice.
 *
 * @example
 * const analysis = analyzeCapture(await readCapture('proxy-capture.jsonl'));
 * analysis.conversations[0]?.topCauses[0]?.advice;
 */
export function analyzeCapture(requests: readonly CapturedRequest[]): CaptureAnalysis {
  // One counter per rule set for every conversation's models (their memos are shared).
  const counters = { anthropic: { counter: anthropicEstimator() }, openai: { counter: openAICounterOrEstimate() } };
  const groups = new Map<string, Array<{ request: CapturedRequest; index: number; provider: ProviderId }>>();
  requests.forEach((request, index) => {
    const provider = providerOf(request, index);
    const id = request.conversation ?? conversationKey(wireRouteOfProvider(provider), request.body, null).id;
    let group = groups.get(id);
    if (!group) {
      group = [];
      groups.set(id, group);
    }
    group.push({ request, index, provider });
  });

  const analyzed: AnalyzedRequest[] = [];
  const conversations: AnalyzedConversation[] = [];
  for (const [id, group] of groups) {
    group.sort((left, right) => left.request.at - right.request.at || left.index - right.index);
    const provider = group[0]!.provider;
    const actual = createCacheModel(provider, counters);
    const planned = createCacheModel(provider, counters);
    const results = judgeConversation(id, group, actual, planned);
    analyzed.push(...results.requests);
    conversations.push(results.conversation);
  }
  analyzed.sort((left, right) => left.index - right.index);
  const sum = (pick: (conversation: AnalyzedConversation) => number) =>
    conversations.reduce((total, conversation) => total + pick(conversation), 0);
  const read = sum((conversation) => conversation.readTokens);
  const input = sum((conversation) => conversation.readTokens + conversation.writeTokens + conversation.uncachedTokens);
  return {
    requests: analyzed,
    conversations,
    totals: {
      requests: analyzed.length,
      costUsd: sum((conversation) => conversation.costUsd),
      plannedCostUsd: sum((conversation) => conversation.plannedCostUsd),
      uncachedCostUsd: sum((conversation) => conversation.uncachedCostUsd),
      readShare: input === 0 ? 0 : read / input,
    },
  };
}

function judgeConversation(
  id: string,
  group: ReadonlyArray<{ request: CapturedRequest; index: number; provider: ProviderId }>,
  actual: CacheModel,
  planned: CacheModel,
): { requests: AnalyzedRequest[]; conversation: AnalyzedConversation } {
  const results: AnalyzedRequest[] = [];
  const serverReasons: Array<ProviderCacheMissReason | null> = [];
  let previous: { body: Record<string, unknown>; cachedTokens: number } | null = null;
  let previousBreakpointPosition: number | null = null;
  let costUsd = 0;
  let uncachedCostUsd = 0;
  let plannedCostUsd = 0;
  let plannedRead = 0;
  let plannedInput = 0;
  for (const { request, index, provider } of group) {
    const model = typeof request.body.model === 'string' ? request.body.model : '';
    const verdict = actual.judge(request.body, { at: request.at });
    const reported = request.usage ? reportedUsage(provider, request.usage, request.diagnostics, index) : null;
    const usage = reported ?? verdict.usage;
    const readTokens = usage.cacheReadTokens;
    const writeTokens = usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
    const cost = costOf(usage, provider, model).costUsd;
    costUsd += cost;
    uncachedCostUsd += uncachedCostOf(usage, provider, model).costUsd;

    const plan = planCacheFields(wireRouteOfProvider(provider), request.body, {
      conversationId: id,
      previousResponseId: null,
      previousBreakpointPosition,
    });
    previousBreakpointPosition = plan.lastBreakpointPosition;
    const plannedVerdict = planned.judge(plan.body, { at: request.at });
    plannedCostUsd += costOf(plannedVerdict.usage, provider, model).costUsd;
    plannedRead += plannedVerdict.cacheReadTokens;
    plannedInput += plannedVerdict.inputTokens;

    const serverReason = request.cacheMissReason ?? reported?.cacheMissReason ?? null;
    const missedTokens = previous ? Math.max(0, previous.cachedTokens - readTokens) : 0;
    // The byte diff costs as much as judging the body again: it is computed for misses only.
    let changed: AnalyzedRequest['changed'] = null;
    if (previous && missedTokens > 0) {
      const diff = diffWireBodies(previous.body, request.body, { format: provider });
      if (diff.byteDivergence) changed = { ...diff.byteDivergence, cacheImpact: diff.cacheImpact };
    }
    results.push({
      index,
      conversation: id,
      at: request.at,
      provider,
      model,
      source: reported ? 'reported' : 'modelled',
      readTokens,
      writeTokens,
      uncachedTokens: usage.uncachedInputTokens,
      outputTokens: usage.outputTokens,
      costUsd: cost,
      modelledReadTokens: verdict.cacheReadTokens,
      missCause: previous && missedTokens > 0 ? missCauseOf(verdict, request.body, provider) : null,
      missedTokens,
      changed,
      serverCause: serverReason?.type ?? null,
    });
    serverReasons.push(serverReason);
    previous = { body: request.body, cachedTokens: cachedAfter(actual.rules, verdict, reported) };
  }
  const first = group[0]!;
  const totals = results.reduce(
    (sum, result) => ({
      read: sum.read + result.readTokens,
      write: sum.write + result.writeTokens,
      uncached: sum.uncached + result.uncachedTokens,
      output: sum.output + result.outputTokens,
    }),
    { read: 0, write: 0, uncached: 0, output: 0 },
  );
  const input = totals.read + totals.write + totals.uncached;
  return {
    requests: results,
    conversation: {
      id,
      provider: first.provider,
      model: typeof first.request.body.model === 'string' ? first.request.body.model : '',
      requests: results.length,
      readTokens: totals.read,
      writeTokens: totals.write,
      uncachedTokens: totals.uncached,
      outputTokens: totals.output,
      readShare: input === 0 ? 0 : totals.read / input,
      costUsd,
      uncachedCostUsd,
      plannedCostUsd,
      plannedReadShare: plannedInput === 0 ? 0 : plannedRead / plannedInput,
      topCauses: topCauses(results),
      causeAgreement: summarizeCauseAgreement(
        results.flatMap((result, position) =>
          result.missCause ? [{ cause: result.missCause, serverCause: serverReasons[position] ?? null }] : [],
        ),
      ),
    },
  };
}

/** What the next request can read at best: under Anthropic rules what this one read or wrote; elsewhere its whole prompt. */
function cachedAfter(rules: CacheModel['rules'], verdict: CacheVerdict, reported: Usage | null): number {
  if (rules !== 'anthropic') return verdict.inputTokens;
  const usage = reported ?? verdict.usage;
  return usage.cacheReadTokens + usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
}

function missCauseOf(verdict: CacheVerdict, body: Record<string, unknown>, provider: ProviderId): MissCause {
  if (verdict.missCause) return verdict.missCause;
  const normalized = normalizeWireBody(body, provider);
  if (cacheRulesFor(normalized) === 'anthropic' && anthropicBreakpoints(normalized).length === 0) return 'no-breakpoint';
  return 'unknown';
}

function topCauses(results: readonly AnalyzedRequest[]): CauseSummary[] {
  const byCause = new Map<MissCause, CauseSummary>();
  for (const result of results) {
    if (!result.missCause) continue;
    const entry = byCause.get(result.missCause) ?? {
      cause: result.missCause,
      count: 0,
      missedTokens: 0,
      advice: CAUSE_ADVICE[result.missCause],
    };
    entry.count++;
    entry.missedTokens += result.missedTokens;
    byCause.set(result.missCause, entry);
  }
  return [...byCause.values()].sort((left, right) => right.missedTokens - left.missedTokens || right.count - left.count);
}

function providerOf(request: CapturedRequest, index: number): ProviderId {
  if (request.provider === undefined) return detectWireFormat(request.body);
  if (!isProviderId(request.provider)) {
    throw new ValidationError(`requests[${index}].provider`, PROVIDER_IDS.join(', '), `got ${JSON.stringify(request.provider)}`);
  }
  return request.provider;
}

function reportedUsage(provider: ProviderId, usage: Record<string, unknown>, diagnostics: unknown, index: number): Usage {
  try {
    // Anthropic puts `diagnostics` beside `usage` in the response: parsed together, the usage keeps the server's cause.
    return providerEntry(provider).adapter.parseUsage(diagnostics === undefined ? { usage } : { usage, diagnostics });
  } catch (error) {
    throw new ValidationError(`requests[${index}].usage`, `a ${provider} usage object`, (error as Error).message);
  }
}
