import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import type { CachetEvent } from '../../events/catalog.js';
import { EventBus } from '../../events/event-bus.js';
import type { Message, ToolDefinition } from '../../model/content.js';
import type { GenerationParams } from '../../model/request.js';
import { anthropicAdapter } from '../../providers/anthropic/index.js';
import type { AnthropicOptions } from '../../providers/anthropic/options.js';
import { Session } from '../../session/session.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { createLlmSummarizer, type LlmSummarizerOptions } from '../llm-summarizer.js';
import { emptySummary } from '../structured-summary.js';
import type { SummaryInput } from '../summarizer.js';

/** The span the summary-route tests replace: a ~31k-token build log and the agent's acknowledgement. */
export function buildLogSpan(): Message[] {
  return [
    { role: 'user', content: [{ type: 'text', text: `Read the build log:\n${'log line: cache ok\n'.repeat(8_000)}` }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Read it.' }] },
  ];
}

export interface SummaryParentOptions {
  /** The parent's generation parameters (default: 8,000 max tokens). */
  params?: Partial<GenerationParams>;
  tools?: ToolDefinition[];
}

/** A Sonnet 4.5 parent session with a careful-agent persona and its clock at 0. */
export function summaryParent(id: string, options: SummaryParentOptions = {}): Session {
  return new Session({
    id,
    model: 'claude-sonnet-4-5',
    global: {
      system: [{ label: 'persona', text: 'You are a careful coding agent.' }],
      ...(options.tools ? { tools: options.tools } : {}),
    },
    params: options.params ?? { maxTokens: 8_000 },
    clock: () => 0,
  });
}

/** That parent holding `span`, then the user's "Now the next file." (callers append the rest). */
export function buildLogParent(id: string, span: readonly Message[], options: SummaryParentOptions = {}): Session {
  const parent = summaryParent(id, options);
  for (const message of span) parent.append(message);
  parent.appendUserText('Now the next file.');
  return parent;
}

type AnthropicSummarizerOptions = LlmSummarizerOptions<MessageCreateParamsNonStreaming, AnthropicOptions>;

/** The summariser model's default answer: an empty summary whose goal is "Fix the build". */
function fixTheBuild(): unknown {
  return { content: [{ type: 'text', text: JSON.stringify({ ...emptySummary(), userGoal: 'Fix the build' }) }] };
}

/**
 * An LLM summariser on Anthropic (Haiku 4.5 beside a Sonnet 4.5 main model, 200k-token windows, the Anthropic
 * estimator) that records every body it sends and every `compaction.summarized` payload published on `bus`.
 * The model answers with `reply` (default: a summary whose goal is "Fix the build"); `options` override the rest.
 */
export function recordingSummarizer(
  options: Partial<AnthropicSummarizerOptions> & { reply?: (body: MessageCreateParamsNonStreaming) => unknown } = {},
) {
  const { reply = fixTheBuild, ...overrides } = options;
  const bus = new EventBus();
  const summarized: CachetEvent<'compaction.summarized'>['payload'][] = [];
  bus.on('compaction.summarized', (event: CachetEvent<'compaction.summarized'>) => summarized.push(event.payload));
  const sent: MessageCreateParamsNonStreaming[] = [];
  const summarizer = createLlmSummarizer({
    adapter: anthropicAdapter,
    send: async (body) => {
      sent.push(body);
      return reply(body);
    },
    model: 'claude-haiku-4-5',
    windowTokens: 200_000,
    mainModel: 'claude-sonnet-4-5',
    mainWindowTokens: 200_000,
    counter: anthropicEstimator(),
    ...overrides,
  });
  return { summarizer, bus, summarized, sent };
}

/** What a summariser is asked for `span` of `sessionId` with no previous summary, restore ids or notes. */
export function summaryInput(
  sessionId: string,
  span: readonly Message[],
  rest: Pick<SummaryInput, 'bus' | 'now' | 'parent'>,
): SummaryInput {
  return { sessionId, span, previous: null, restoreIds: new Map(), notes: [], ...rest };
}
