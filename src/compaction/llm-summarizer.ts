import { canonicalJson } from '../model/canonical-json.js';
import type { Message } from '../model/content.js';
import type { JsonValue } from '../model/json.js';
import type { CanonicalRequest, ThinkingConfig } from '../model/request.js';
import type { ProviderAdapter } from '../providers/adapter.js';
import { assemble } from '../session/assemble.js';
import { forkRequest } from '../session/fork-request.js';
import { Session } from '../session/session.js';
import { counterForModel } from '../tokens/counter-for-model.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { createExtractiveSummarizer, mergeSummaries } from './extractive-summarizer.js';
import { forkCacheTtls, ttlMs } from './fork-cache-ttls.js';
import { measureRequest } from './request-tokens.js';
import { type StructuredSummary, SUMMARY_FIELDS, structuredSummarySchema } from './structured-summary.js';
import type { Summarizer, SummaryInput } from './summarizer.js';
import { chooseSummaryRoute, type SummaryRoute } from './summary-route.js';

export interface LlmSummarizerOptions<Body, AdapterOptions = unknown> {
  /** A Cachet adapter (anthropic, openai-chat, ...): the request is built like any other. */
  adapter: ProviderAdapter<Body, AdapterOptions>;
  /** Options for every call; a fork reads the parent's cache only with the parent's own options (same TTLs). */
  adapterOptions?: AdapterOptions;
  /** Sends a wire body and returns the provider's response; injected so tests need no network. */
  send: (body: Body) => Promise<unknown>;
  /** The (auxiliary) summariser model and its context window. */
  model: string;
  windowTokens: number;
  /** The session's main model: forks run on it, and it takes over when the auxiliary window is too small. */
  mainModel: string;
  mainWindowTokens: number;
  counter?: TokenCounter;
  maxOutputTokens?: number;
  /**
   * `auto` [default]: when the pipeline passes the parent session, fork it on the main model or
   * call the auxiliary model fresh, whichever `chooseSummaryRoute` prices lower for this call;
   * `always`: fork whenever there is a parent; `never`: always the fresh call.
   */
  fork?: 'auto' | 'always' | 'never';
  /**
   * Thinking tokens a fork of a thinking parent is priced at (billed as output at the main
   * model's rate) [the parent's `budgetTokens`; adaptive thinking: 4,000]. A fork keeps the
   * parent's thinking setting, since it is part of the messages cache key; its `max_tokens` is the
   * summary cap plus the budget (adaptive: plus this figure), so the thinking cannot crowd out the reply.
   */
  forkThinkingTokens?: number;
  /**
   * How long the parent's history entry lives after its last request, ms [the TTL of the history
   * breakpoint the adapter places with `adapterOptions`: 300,000 for 5 minutes, 3,600,000 for 1 hour].
   */
  parentTtlMs?: number;
  /** Reads the reply text out of a response; the default knows Anthropic, Chat Completions and Responses shapes. */
  extractText?: (response: unknown) => string;
  /** Used when no model can take the input or the reply cannot be parsed (default: extractive). */
  fallback?: Summarizer;
}

const INSTRUCTIONS =
  'You write compaction summaries of agent conversations. Read the transcript and reply with only a JSON object, ' +
  'no prose around it. Keys: userGoal (string), and arrays of short strings: activeTasks, completedWork, decisions, ' +
  'errorsAndResolutions, filesAndResources, keyFacts, constraintsAndPreferences, openQuestions, nextSteps, sessionNotes. ' +
  'Keep restore ids (ctx_...) next to the work they belong to. Copy session notes verbatim.';

/** Output tokens a summary is expected to take, for pricing the two ways (a summary rarely fills its cap). */
const EXPECTED_SUMMARY_TOKENS = 1_000;

/** Thinking a fork of an adaptive-thinking parent is allowed and priced at, unless `forkThinkingTokens` says otherwise. */
const ADAPTIVE_FORK_THINKING_TOKENS = 4_000;

/**
 * A fork's thinking: `allowance` goes on top of the summary cap in `max_tokens` (Anthropic refuses a
 * budget at or above `max_tokens`, and adaptive thinking counts against it); `priced` is what the
 * route charges for it. Priced at the budget by default: the fork may spend all of it, and the
 * fresh call, the simpler way, carries no such cost.
 */
function forkThinking(thinking: ThinkingConfig | undefined, override: number | undefined) {
  if (thinking?.type === 'enabled') return { allowance: thinking.budgetTokens, priced: override ?? thinking.budgetTokens };
  if (thinking?.type === 'adaptive') {
    const allowance = override ?? ADAPTIVE_FORK_THINKING_TOKENS;
    return { allowance, priced: allowance };
  }
  return { allowance: 0, priced: 0 };
}

/**
 * A summariser that asks a model, through a Cachet adapter, for the eleven-field summary.
 * Forks by default: given the parent session (the compaction pipeline passes it), it prices a
 * cache-safe fork on the main model (`forkRequest`: the parent's exact prefix, read from its
 * cache when warm, with the instruction after the last breakpoint) against a fresh call of the
 * auxiliary model with the transcript as text, takes the cheaper, and publishes both prices in
 * `compaction.summarized`. The fresh call is one-shot too: its prompt is sent after the last
 * breakpoint, so it writes no entry nobody reads.
 * Auxiliary model shield: when the summariser model's window cannot hold the input, it uses
 * the main model and emits `warning.raised`; when neither can, or the reply is unusable, it
 * falls back to the extractive summariser with a warning. It never throws for those reasons,
 * so a compaction never loses the session.
 *
 * @example
 * const summarizer = createLlmSummarizer({
 *   adapter: anthropicAdapter, send: (body) => client.messages.create(body),
 *   model: 'claude-haiku-4-5', windowTokens: 200_000, mainModel: 'claude-sonnet-4-5', mainWindowTokens: 200_000,
 * });
 */
export function createLlmSummarizer<Body, AdapterOptions = unknown>(
  options: LlmSummarizerOptions<Body, AdapterOptions>,
): Summarizer {
  const counter = options.counter ?? counterForModel(options.adapter.id, options.model);
  const context: CallContext<Body, AdapterOptions> = {
    options,
    counter,
    mainCounter: options.counter ?? counterForModel(options.adapter.id, options.mainModel),
    maxOutputTokens: options.maxOutputTokens ?? 2_000,
    extractText: options.extractText ?? defaultExtractText,
    fallback: options.fallback ?? createExtractiveSummarizer(),
  };
  return {
    name: `llm:${options.model}`,
    async summarize(input: SummaryInput): Promise<StructuredSummary> {
      const fresh = freshCall(context, input);
      const route = routeOf(context, input, fresh);
      if (route?.choice === 'fork' && route.fork) return complete(context, input, route.fork, options.mainModel);
      if (fresh.model !== options.model) {
        warn(
          input,
          `summariser model ${options.model} has a ${options.windowTokens}-token window but the summary needs ${fresh.needed}; using the main model ${options.mainModel}`,
        );
      }
      if (fresh.model === null || fresh.request === null) {
        warn(input, `no summariser model can take ${input.span.length} messages; using the extractive summariser`);
        return context.fallback.summarize(input);
      }
      return complete(context, input, fresh.request, fresh.model);
    },
  };
}

interface CallContext<Body, AdapterOptions> {
  options: LlmSummarizerOptions<Body, AdapterOptions>;
  counter: TokenCounter;
  mainCounter: TokenCounter;
  maxOutputTokens: number;
  extractText: (response: unknown) => string;
  fallback: Summarizer;
}

function warn(input: SummaryInput, message: string): void {
  input.bus?.emit('warning.raised', input.sessionId, input.now, { source: 'compaction.summarizer', message });
}

/** The fresh call: the transcript as one text after the instructions, on the first model whose window holds it. */
function freshCall<Body, AdapterOptions>(context: CallContext<Body, AdapterOptions>, input: SummaryInput) {
  const { options } = context;
  const prompt = buildPrompt(input);
  const candidates = [
    { model: options.model, window: options.windowTokens },
    { model: options.mainModel, window: options.mainWindowTokens },
  ];
  let needed = 0;
  for (const candidate of candidates) {
    const session = new Session({
      id: `${input.sessionId}/summary`,
      model: candidate.model,
      global: { system: [{ label: 'summarizer', text: INSTRUCTIONS }] },
      params: { maxTokens: context.maxOutputTokens },
      clock: () => input.now,
    });
    // The transcript goes after the last breakpoint: a one-shot call writes nothing.
    const request = assemble(session, {
      now: input.now,
      resolvedTail: [{ kind: 'custom', text: prompt, scope: 'request', position: 'end' }],
    });
    const promptTokens = measureRequest(request, context.counter).total;
    const total = promptTokens + context.maxOutputTokens;
    if (candidate.model === options.model) needed = total;
    if (total <= candidate.window) return { model: candidate.model, request, promptTokens, needed };
  }
  return { model: null, request: null, promptTokens: 0, needed };
}

/** Price the fork against the fresh call and publish `compaction.summarized`; null without a parent to fork. */
function routeOf<Body, AdapterOptions>(
  context: CallContext<Body, AdapterOptions>,
  input: SummaryInput,
  fresh: ReturnType<typeof freshCall>,
): (SummaryRoute & { fork: CanonicalRequest | null }) | null {
  const { options } = context;
  const parent = input.parent;
  if (!parent || (options.fork ?? 'auto') === 'never' || parent.session.history.length === 0) return null;
  const instruction = buildForkInstruction(input, parent.keptMessages);
  const forked = forkRequest(parent.session, { instruction, model: options.mainModel });
  // The fork keeps the parent's thinking setting (part of the messages cache key), and a thinking
  // budget must stay below max_tokens (Anthropic refuses the request otherwise): the summary's cap comes on top of it.
  const thinking = forkThinking(forked.params.thinking, options.forkThinkingTokens);
  const maxTokens = forkMaxTokens(context.maxOutputTokens, thinking.allowance, forked.params.maxTokens);
  const fork: CanonicalRequest = { ...forked, params: { ...forked.params, maxTokens } };
  const measure = measureRequest(fork, context.mainCounter);
  const measured = measure.total;
  const instructionTokens = context.mainCounter.countText(instruction);
  const prefixTokens = Math.max(0, measured - instructionTokens);
  const ttls = forkCacheTtls(() => options.adapter.convertRequest(fork, options.adapterOptions).metadata.breakpoints);
  const alive = (ms: number) =>
    parent.lastRequestAt !== null && input.now - parent.lastRequestAt < ms && parent.session.model === options.mainModel;
  const parentWarm = alive(options.parentTtlMs ?? ttlMs(ttls.history));
  const unsentPrefixTokens = unsentTokens(parent, context.mainCounter);
  const priced = chooseSummaryRoute({
    provider: options.adapter.id,
    mainModel: options.mainModel,
    auxModel: fresh.model ?? options.model,
    prefixTokens,
    parentWarm,
    unsentPrefixTokens,
    staticPrefixTokens: measure.static,
    staticWarm: alive(ttlMs(ttls.static)),
    writeTtls: ttls,
    forkInstructionTokens: instructionTokens,
    freshPromptTokens: fresh.promptTokens,
    expectedOutputTokens: Math.min(EXPECTED_SUMMARY_TOKENS, context.maxOutputTokens),
    forkThinkingTokens: thinking.priced,
    forkFits: measured + maxTokens <= options.mainWindowTokens,
    freshFits: fresh.model !== null,
  });
  const route = settleRoute(priced, options.fork ?? 'auto', forcedToolChoice(fork), fresh.model !== null);
  input.bus?.emit('compaction.summarized', input.sessionId, input.now, {
    summarizer: `llm:${options.model}`,
    choice: route.choice,
    model: route.choice === 'fork' ? options.mainModel : fresh.model,
    parentWarm,
    prefixTokens,
    freshPromptTokens: fresh.promptTokens,
    forkThinkingTokens: thinking.priced,
    forkCostUsd: route.forkCostUsd,
    freshCostUsd: route.freshCostUsd,
    forkInputCostUsd: route.forkInputCostUsd,
    freshInputCostUsd: route.freshInputCostUsd,
    reason: route.reason,
  });
  return { ...route, fork: route.choice === 'fork' ? fork : null };
}

/** Tokens of the parent's messages its last request did not carry: no cache entry holds them yet. */
function unsentTokens(parent: NonNullable<SummaryInput['parent']>, counter: TokenCounter): number {
  let total = 0;
  for (const message of parent.session.history.slice(parent.sentHistoryLength ?? parent.session.history.length)) {
    for (const block of message.content) total += counter.countBlock(block);
  }
  return total;
}

/**
 * The fork's `max_tokens`: the summary cap on top of the thinking allowance, but never above the
 * parent's own `max_tokens` when thinking is on. The parent's is one the model accepts, and a
 * budget just below it is common (Claude Code: 31,999 of 32,000, Opus 4.1's output limit): the
 * sum would pass the model's output limit and be refused. The parent's still exceeds its budget.
 */
function forkMaxTokens(cap: number, allowance: number, parentMaxTokens: number): number {
  if (allowance === 0 || parentMaxTokens <= allowance) return cap + allowance;
  return Math.min(cap + allowance, parentMaxTokens);
}

/** The parent's tool choice when it forces a tool call (`any`, or one named tool) and the fork has tools to call. */
function forcedToolChoice(fork: CanonicalRequest): string | null {
  const choice = fork.params.toolChoice;
  if (fork.tools.length === 0 || !choice) return null;
  if (choice.type === 'any') return 'any';
  return choice.type === 'tool' ? `tool ${choice.name}` : null;
}

/**
 * The route taken: the priced one, or the fork under `fork: 'always'`. A parent that forces a
 * tool call cannot be forked for a summary: the fork keeps its tool choice (on Anthropic a
 * change of tool choice re-bills the messages), so the reply would be a tool call and the fork's
 * cost would buy the extractive fallback. Then the fresh call goes, or none when it does not fit.
 */
function settleRoute(priced: SummaryRoute, mode: 'auto' | 'always' | 'never', forced: string | null, freshFits: boolean) {
  if (forced !== null) {
    const reason = `the parent forces a tool call (tool_choice ${forced}), so a fork would answer with a tool call, not the summary`;
    return { ...priced, choice: freshFits ? ('fresh' as const) : ('none' as const), reason };
  }
  if (mode === 'always' && priced.choice !== 'none') return { ...priced, choice: 'fork' as const, reason: 'fork: always' };
  return priced;
}

/** Send one summary request and parse its reply; any failure falls back to the extractive summary. */
async function complete<Body, AdapterOptions>(
  context: CallContext<Body, AdapterOptions>,
  input: SummaryInput,
  request: CanonicalRequest,
  model: string,
): Promise<StructuredSummary> {
  const { options } = context;
  try {
    const response = await options.send(options.adapter.convertRequest(request, options.adapterOptions).body);
    const parsed = parseSummary(context.extractText(response));
    parsed.sessionNotes = [...input.notes];
    return input.previous ? mergeSummaries(input.previous, parsed) : parsed;
  } catch (error) {
    warn(input, `summariser ${model} failed (${(error as Error).message}); using the extractive summariser`);
    return context.fallback.summarize(input);
  }
}

/** The fork's instruction: which messages to summarise (all but the last `kept`), and the reply's shape. */
export function buildForkInstruction(input: SummaryInput, kept: number): string {
  const which =
    kept > 0
      ? `Summarise the conversation above except its last ${kept} message${kept === 1 ? '' : 's'}, which stay verbatim after your summary.`
      : 'Summarise the whole conversation above.';
  const parts = ['<compaction_request>', `${INSTRUCTIONS} Do not call tools; this reply is not part of the conversation.`, which];
  if (input.restoreIds.size > 0) {
    parts.push('Restore ids of tool results (tool_use id → restore id):');
    for (const [toolUseId, restoreId] of input.restoreIds) parts.push(`- ${toolUseId} → ${restoreId}`);
  }
  if (input.previous) parts.push('<previous_summary>', JSON.stringify(input.previous), '</previous_summary>');
  if (input.notes.length > 0) parts.push('<session_notes>', ...input.notes.map((note) => `- ${note}`), '</session_notes>');
  parts.push(
    `Reply with the JSON object (keys: ${SUMMARY_FIELDS.map((field) => field.key).join(', ')}).`,
    '</compaction_request>',
  );
  return parts.join('\n');
}

/** The fresh call's prompt text: the instructions (its system prompt) and the transcript after them. */
export function freshSummaryText(input: SummaryInput): string {
  return `${INSTRUCTIONS}\n${buildPrompt(input)}`;
}

function buildPrompt(input: SummaryInput): string {
  const parts = ['<transcript>', ...input.span.map((message) => renderMessage(message, input.restoreIds)), '</transcript>'];
  if (input.previous) parts.push('<previous_summary>', JSON.stringify(input.previous), '</previous_summary>');
  if (input.notes.length > 0) parts.push('<session_notes>', ...input.notes.map((note) => `- ${note}`), '</session_notes>');
  parts.push(`Reply with the JSON object (keys: ${SUMMARY_FIELDS.map((field) => field.key).join(', ')}).`);
  return parts.join('\n');
}

function renderMessage(message: Message, restoreIds: ReadonlyMap<string, string>): string {
  return message.content
    .map((block) => {
      switch (block.type) {
        case 'text':
          return `${message.role.toUpperCase()}: ${block.text}`;
        case 'tool_use':
          return `TOOL CALL ${block.name} ${canonicalJson(block.input as JsonValue)} (id ${block.id})`;
        case 'tool_result':
          return `TOOL RESULT${block.isError ? ' (error)' : ''} for ${block.toolUseId}${restoreIds.has(block.toolUseId) ? ` (restore id ${restoreIds.get(block.toolUseId)})` : ''}: ${block.content.map((inner) => (inner.type === 'text' ? inner.text : '[image]')).join('\n')}`;
        case 'image':
          return `${message.role.toUpperCase()}: [image]`;
        case 'document':
          return `${message.role.toUpperCase()}: [document${block.title ? ` ${block.title}` : ''}]`;
        case 'thinking':
        case 'redacted_thinking':
          return '';
        default:
          return '';
      }
    })
    .filter(Boolean)
    .join('\n');
}

/** Parse a reply into the eleven fields; throws when it holds no JSON object of that shape. */
export function parseSummary(text: string): StructuredSummary {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end <= start) throw new Error('the reply holds no JSON object');
  return structuredSummarySchema.parse(JSON.parse(text.slice(start, end + 1))) as StructuredSummary;
}

function defaultExtractText(response: unknown): string {
  const value = response as Record<string, unknown> | null;
  if (!value || typeof value !== 'object') return '';
  if (Array.isArray(value.content)) {
    return (value.content as Array<{ type?: string; text?: string }>)
      .flatMap((block) => (block.type === 'text' && block.text ? [block.text] : []))
      .join('');
  }
  if (Array.isArray(value.choices)) {
    const first = (value.choices as Array<{ message?: { content?: unknown } }>)[0];
    return typeof first?.message?.content === 'string' ? first.message.content : '';
  }
  if (typeof value.output_text === 'string') return value.output_text;
  if (Array.isArray(value.output)) {
    return (value.output as Array<{ content?: Array<{ text?: string }> }>)
      .flatMap((item) => item.content ?? [])
      .flatMap((part) => (typeof part.text === 'string' ? [part.text] : []))
      .join('');
  }
  return '';
}
