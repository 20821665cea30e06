import { summarizeCauseAgreement } from '../../cache/break/compare-server-cause.js';
import { diffWireBodies } from '../../cache/break/diff-wire-bodies.js';
import { costAtPrice, uncachedCostAtPrice } from '../../cache/cost.js';
import type { CacheModel } from '../../cache/models/cache-verdict.js';
import { createCacheModel } from '../../cache/models/create-cache-model.js';
import { BlockCoreMemo } from '../../cache/wire/block-core-memo.js';
import type { ProviderCacheMissReason, Usage } from '../../model/usage.js';
import type { ProviderId } from '../../providers/adapter.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { openAICounterOrEstimate } from '../../tokens/counter-for-model.js';
import { conversationKey } from '../proxy/conversation-key.js';
import { type PlannedBody, planCacheFields } from '../proxy/plan-cache-fields.js';
import { wireRouteOfProvider } from '../proxy/wire-route.js';
import { type ActualRequest, alternativeUsage, inputTokensOf } from './alternative-figures.js';
import type { AnalyzedConversation, AnalyzedRequest, CaptureAnalysis, CauseSummary, MissCause } from './capture-analysis.js';
import { CAUSE_ADVICE } from './cause-advice.js';
import { keepsLockstep, plannedOnAnthropicRules } from './planned-lockstep.js';
import { PlannedMarkers } from './planned-markers.js';
import { PriceMemo } from './price-memo.js';
import type { CapturedRequest } from './read-capture.js';
import { cachedAfter, missCauseOf, providerOf, reportedUsage } from './request-facts.js';

export type {
  AnalyzedConversation,
  AnalyzedRequest,
  CaptureAnalysis,
  CauseSummary,
  MissCause,
} from './capture-analysis.js';

/** How much of each conversation `CaptureAnalyzer` keeps. */
export interface CaptureAnalyzerOptions {
  /**
   * Per-request records kept per conversation [all]; the conversation totals and causes always
   * count every request. The text report keeps only the rows it prints, so a capture of any
   * length is analysed in memory bounded by its conversations.
   */
  keepRequestsPerConversation?: number;
}

/**
 * Judge a captured sequence of wire bodies offline, conversation by conversation: what each
 * request read, wrote and cost, why it missed and which bytes changed; per conversation the
 * totals, the cost under Cachet's plan, and the top causes with advice. Requests are judged in
 * the order given (stable-sorted by `at` here; `CaptureAnalyzer` streams them in capture order).
 *
 * @example
 * const analysis = analyzeCapture(await readCapture('proxy-capture.jsonl'));
 * analysis.conversations[0]?.topCauses[0]?.advice;
 */
export function analyzeCapture(requests: readonly CapturedRequest[]): CaptureAnalysis {
  const analyzer = new CaptureAnalyzer();
  const order = requests.map((request, index) => ({ request, index }));
  order.sort((left, right) => left.request.at - right.request.at || left.index - right.index);
  for (const { request, index } of order) analyzer.add(request, index);
  return analyzer.finish();
}

/**
 * `analyzeCapture` one request at a time, for captures read line by line: each request is
 * judged as it arrives against the previous one of its conversation, so only each
 * conversation's cache state, previous body and running totals are held, never the capture.
 *
 * @example
 * const analyzer = new CaptureAnalyzer({ keepRequestsPerConversation: 20 });
 * for await (const { request } of readCaptureLines('capture.jsonl')) analyzer.add(request);
 * const analysis = analyzer.finish();
 */
export class CaptureAnalyzer {
  // One counter per rule set for every conversation's models (their memos are shared). A
  // conversation's models keep the blocks of its bodies that they compare with the next.
  private readonly counters = {
    // The models memoise counts by unit text: the estimator's own memo would hash every new block for nothing.
    anthropic: { counter: anthropicEstimator({ memoizeBlocks: false }), reuseEqualBlocks: true },
    openai: { counter: openAICounterOrEstimate() },
  };
  private readonly prices = new PriceMemo();
  private readonly conversations = new Map<string, ConversationJudge>();
  private readonly kept: AnalyzedRequest[] = [];
  private readonly keepPerConversation: number;
  private nextIndex = 0;

  constructor(options: CaptureAnalyzerOptions = {}) {
    this.keepPerConversation = options.keepRequestsPerConversation ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Judge the next request; `index` is its position in the capture [the count added so far].
   * `rereadBody` gives the body again when it is needed later (the byte diff of the next request
   * of the conversation, on a miss): a streaming reader passes one that parses its line again,
   * so the parsed body is not held until then [the body is held].
   */
  add(request: CapturedRequest, index: number = this.nextIndex, rereadBody?: () => Record<string, unknown>): AnalyzedRequest {
    this.nextIndex = Math.max(this.nextIndex, index + 1);
    const provider = providerOf(request, index);
    const id = request.conversation ?? conversationKey(wireRouteOfProvider(provider), request.body, null).id;
    let judge = this.conversations.get(id);
    if (!judge) {
      judge = new ConversationJudge(id, provider, request, this.counters, this.prices);
      this.conversations.set(id, judge);
    }
    const analyzed = judge.judge(request, index, provider, rereadBody);
    if (judge.requests <= this.keepPerConversation) this.kept.push(analyzed);
    return analyzed;
  }

  /** The analysis of everything added (requests in capture order, conversations by first appearance). */
  finish(): CaptureAnalysis {
    const requests = [...this.kept].sort((left, right) => left.index - right.index);
    const conversations = [...this.conversations.values()].map((judge) => judge.summary());
    let requestCount = 0;
    let costUsd = 0;
    let plannedCostUsd = 0;
    let clientCostUsd: number | null = null;
    let uncachedCostUsd = 0;
    let read = 0;
    let input = 0;
    for (const conversation of conversations) {
      requestCount += conversation.requests;
      costUsd += conversation.costUsd;
      plannedCostUsd += conversation.plannedCostUsd;
      if (conversation.clientCostUsd !== null) clientCostUsd = (clientCostUsd ?? 0) + conversation.clientCostUsd;
      uncachedCostUsd += conversation.uncachedCostUsd;
      read += conversation.readTokens;
      input += conversation.readTokens + conversation.writeTokens + conversation.uncachedTokens;
    }
    return {
      requests,
      conversations,
      totals: {
        requests: requestCount,
        costUsd,
        plannedCostUsd,
        clientCostUsd,
        uncachedCostUsd,
        readShare: input === 0 ? 0 : read / input,
      },
    };
  }
}

/** One conversation's running state: its cache models, previous request and totals. */
class ConversationJudge {
  requests = 0;
  private readonly actual: CacheModel;
  private readonly actualBlocks = new BlockCoreMemo();
  /**
   * The cache under Cachet's plan; null while every planned body so far kept the client's
   * markers (`planKeepsClientMarkers`): the planned cache is then the client's, and each planned
   * verdict the client body's. It is forked from the client's model when the two first differ.
   */
  private planned: CacheModel | null;
  private readonly counters: NonNullable<Parameters<typeof createCacheModel>[1]>;
  private readonly provider: ProviderId;
  private readonly model: string;
  /** The previous request's body (or how to read it again) and what it left cached. */
  private previous: { body: (() => Record<string, unknown>) | Record<string, unknown>; cachedTokens: number } | null = null;
  private previousBreakpointPosition: number | null = null;
  private readonly markers = new PlannedMarkers();
  private readonly totals = { read: 0, write: 0, uncached: 0, output: 0, cost: 0, uncachedCost: 0 };
  private readonly plan = { cost: 0, read: 0, input: 0 };
  /** The client's own bodies of a `--plan` capture, judged on their own cache; null until a line has `sent`. */
  private clientOwn: { model: CacheModel; cost: number; read: number; input: number } | null = null;
  private readonly causes = new Map<MissCause, CauseSummary>();
  private readonly agreement: Array<{ cause: MissCause; serverCause: ProviderCacheMissReason | null }> = [];

  constructor(
    readonly id: string,
    provider: ProviderId,
    first: CapturedRequest,
    counters: NonNullable<Parameters<typeof createCacheModel>[1]>,
    private readonly prices: PriceMemo,
  ) {
    this.provider = provider;
    this.model = typeof first.body.model === 'string' ? first.body.model : '';
    this.counters = counters;
    this.actual = createCacheModel(provider, this.withMemo(this.actualBlocks));
    this.planned = this.actual.fork ? null : this.newPlannedModel();
  }

  private withMemo(blockMemo: BlockCoreMemo): NonNullable<Parameters<typeof createCacheModel>[1]> {
    return { ...this.counters, anthropic: { ...this.counters.anthropic, blockMemo } };
  }

  /** The planned body copies the client's blocks: its model takes their cores from the actual model's memo. */
  private newPlannedModel(): CacheModel {
    const blockMemo = new BlockCoreMemo(this.actualBlocks);
    return this.actual.fork ? this.actual.fork({ blockMemo }) : createCacheModel(this.provider, this.withMemo(blockMemo));
  }

  judge(
    request: CapturedRequest,
    index: number,
    provider: ProviderId,
    rereadBody: (() => Record<string, unknown>) | undefined,
  ): AnalyzedRequest {
    const model = typeof request.body.model === 'string' ? request.body.model : '';
    // A `--plan` capture's usage is the sent body's: that body is judged, and it is the plan.
    const judged = request.sent ?? request.body;
    const plannedBody = request.sent ? null : this.plannedBody(request, provider);
    const verdict = this.actual.judge(judged, { at: request.at });
    const reported = request.usage ? reportedUsage(provider, request.usage, request.diagnostics, index) : null;
    const usage = reported ?? verdict.usage;
    const readTokens = usage.cacheReadTokens;
    const writeTokens = usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
    const price = this.prices.of(provider, model);
    const cost = costAtPrice(usage, price, provider, model).costUsd;
    this.totals.cost += cost;
    this.totals.uncachedCost += uncachedCostAtPrice(usage, price, provider, model).costUsd;
    const actual = { usage, verdict };
    const plannedVerdict = plannedBody ? this.planned!.judge(plannedBody, { at: request.at }) : verdict;
    const costOf = (alternative: Usage) =>
      alternative === usage ? cost : costAtPrice(alternative, price, provider, model).costUsd;
    this.countPlan(alternativeUsage(actual, plannedVerdict), costOf);
    if (request.sent) this.countClientOwn(request, actual, costOf);

    const serverReason = request.cacheMissReason ?? reported?.cacheMissReason ?? null;
    const previous = this.previous;
    // Against what the previous request left cached; a prefix it never wrote (no breakpoint
    // covered it) is lost too, though nothing cached was: the model's detector measures that.
    const lostCached = previous ? Math.max(0, previous.cachedTokens - readTokens) : 0;
    const neverWritten = previous && verdict.missCause === 'no-breakpoint' ? (verdict.missedTokens ?? 0) : 0;
    const missedTokens = Math.max(lostCached, neverWritten);
    // The byte diff costs as much as judging the body again: it is computed only where something cached was lost.
    let changed: AnalyzedRequest['changed'] = null;
    if (previous && lostCached > 0) {
      const before = typeof previous.body === 'function' ? previous.body() : previous.body;
      const diff = diffWireBodies(before, judged, { format: provider });
      if (diff.byteDivergence) changed = { ...diff.byteDivergence, cacheImpact: diff.cacheImpact };
    }
    const missCause = previous && missedTokens > 0 ? missCauseOf(verdict, judged, provider) : null;
    const analyzed: AnalyzedRequest = {
      index,
      conversation: this.id,
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
      missCause,
      missedTokens,
      changed,
      serverCause: serverReason?.type ?? null,
    };
    this.count(analyzed, serverReason);
    // A body held until the conversation's next request outlives the young generation: every
    // body of an interleaved capture was promoted, and collecting them cost more than parsing.
    const body = request.sent ?? rereadBody ?? request.body;
    this.previous = { body, cachedTokens: cachedAfter(this.actual.rules, verdict, reported, model) };
    return analyzed;
  }

  summary(): AnalyzedConversation {
    const { read, write, uncached, output } = this.totals;
    const input = read + write + uncached;
    return {
      id: this.id,
      provider: this.provider,
      model: this.model,
      requests: this.requests,
      readTokens: read,
      writeTokens: write,
      uncachedTokens: uncached,
      outputTokens: output,
      readShare: input === 0 ? 0 : read / input,
      costUsd: this.totals.cost,
      uncachedCostUsd: this.totals.uncachedCost,
      plannedCostUsd: this.plan.cost,
      plannedReadShare: this.plan.input === 0 ? 0 : this.plan.read / this.plan.input,
      clientCostUsd: this.clientOwn?.cost ?? null,
      clientReadShare: this.clientOwn ? (this.clientOwn.input === 0 ? 0 : this.clientOwn.read / this.clientOwn.input) : null,
      topCauses: [...this.causes.values()].sort(
        (left, right) => right.missedTokens - left.missedTokens || right.count - left.count,
      ),
      causeAgreement: summarizeCauseAgreement(this.agreement),
    };
  }

  /**
   * The body under Cachet's plan for cache fields, or null while the plan keeps the client's
   * markers (the planned cache is then the client's). While it does, the markers alone are read
   * (`PlannedMarkers`), not a planned body built; the planned model is forked from the client's,
   * before the client's judges this body (so the copy holds the state both shared), when they first differ.
   */
  private plannedBody(request: CapturedRequest, provider: ProviderId): Record<string, unknown> | null {
    if (this.planned === null && plannedOnAnthropicRules(request.body, provider)) {
      const kept = this.markers.keptPlan(request.body, this.previousBreakpointPosition);
      if (kept) {
        this.previousBreakpointPosition = kept.lastBreakpointPosition;
        return null;
      }
    }
    const plan = this.planFor(request, provider);
    if (this.planned === null && !keepsLockstep(request.body, plan, provider)) this.planned = this.newPlannedModel();
    return this.planned === null ? null : plan.body;
  }

  /** The same request under Cachet's plan for cache fields. */
  private planFor(request: CapturedRequest, provider: ProviderId): PlannedBody {
    const plan = planCacheFields(wireRouteOfProvider(provider), request.body, {
      conversationId: this.id,
      previousResponseId: null,
      previousBreakpointPosition: this.previousBreakpointPosition,
    });
    this.previousBreakpointPosition = plan.lastBreakpointPosition;
    return plan;
  }

  /** The planned body's figures, on the conversation's planned cache. */
  private countPlan(usage: Usage, costOf: (usage: Usage) => number): void {
    this.plan.cost += costOf(usage);
    this.plan.read += usage.cacheReadTokens;
    this.plan.input += inputTokensOf(usage);
  }

  /** A `--plan` capture line: the client's own body, judged on a cache of the client's own bodies. */
  private countClientOwn(request: CapturedRequest, actual: ActualRequest, costOf: (usage: Usage) => number): void {
    this.clientOwn ??= {
      model: createCacheModel(this.provider, this.withMemo(new BlockCoreMemo(this.actualBlocks))),
      cost: 0,
      read: 0,
      input: 0,
    };
    const usage = alternativeUsage(actual, this.clientOwn.model.judge(request.body, { at: request.at }));
    this.clientOwn.cost += costOf(usage);
    this.clientOwn.read += usage.cacheReadTokens;
    this.clientOwn.input += inputTokensOf(usage);
  }

  private count(analyzed: AnalyzedRequest, serverReason: ProviderCacheMissReason | null): void {
    this.requests++;
    this.totals.read += analyzed.readTokens;
    this.totals.write += analyzed.writeTokens;
    this.totals.uncached += analyzed.uncachedTokens;
    this.totals.output += analyzed.outputTokens;
    const cause = analyzed.missCause;
    if (!cause) return;
    const entry = this.causes.get(cause) ?? { cause, count: 0, missedTokens: 0, advice: CAUSE_ADVICE[cause] };
    entry.count++;
    entry.missedTokens += analyzed.missedTokens;
    this.causes.set(cause, entry);
    this.agreement.push({ cause, serverCause: serverReason });
  }
}
