import { canonicalJson } from '../model/canonical-json.js';
import type { Message } from '../model/content.js';
import type { JsonValue } from '../model/json.js';
import type { ProviderAdapter } from '../providers/adapter.js';
import { assemble } from '../session/assemble.js';
import { Session } from '../session/session.js';
import { counterForModel } from '../tokens/counter-for-model.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { createExtractiveSummarizer, mergeSummaries } from './extractive-summarizer.js';
import { measureRequest } from './request-tokens.js';
import { type StructuredSummary, SUMMARY_FIELDS, structuredSummarySchema } from './structured-summary.js';
import type { Summarizer, SummaryInput } from './summarizer.js';

export interface LlmSummarizerOptions<Body, AdapterOptions = unknown> {
  /** A Cachet adapter (anthropic, openai-chat, ...): the request is built like any other. */
  adapter: ProviderAdapter<Body, AdapterOptions>;
  adapterOptions?: AdapterOptions;
  /** Sends a wire body and returns the provider's response; injected so tests need no network. */
  send: (body: Body) => Promise<unknown>;
  /** The (auxiliary) summariser model and its context window. */
  model: string;
  windowTokens: number;
  /** The session's main model: used when the auxiliary window is too small for the input. */
  mainModel: string;
  mainWindowTokens: number;
  counter?: TokenCounter;
  maxOutputTokens?: number;
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

/**
 * A summariser that asks a model, through a Cachet adapter, for the eleven-field summary.
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
  const maxOutputTokens = options.maxOutputTokens ?? 2_000;
  const extractText = options.extractText ?? defaultExtractText;
  const fallback = options.fallback ?? createExtractiveSummarizer();
  return {
    name: `llm:${options.model}`,
    async summarize(input: SummaryInput): Promise<StructuredSummary> {
      const warn = (message: string) =>
        input.bus?.emit('warning.raised', input.sessionId, input.now, { source: 'compaction.summarizer', message });
      const prompt = buildPrompt(input);
      const candidates = [
        { model: options.model, window: options.windowTokens },
        { model: options.mainModel, window: options.mainWindowTokens },
      ];
      for (const [index, candidate] of candidates.entries()) {
        const session = new Session({
          id: `${input.sessionId}/summary`,
          model: candidate.model,
          global: { system: [{ label: 'summarizer', text: INSTRUCTIONS }] },
          params: { maxTokens: maxOutputTokens },
          clock: () => input.now,
        });
        session.appendUserText(prompt);
        const request = assemble(session, { now: input.now });
        const needed = measureRequest(request, counter).total + maxOutputTokens;
        if (needed > candidate.window) {
          if (index === 0) {
            warn(
              `summariser model ${candidate.model} has a ${candidate.window}-token window but the summary needs ${needed}; using the main model ${options.mainModel}`,
            );
          }
          continue;
        }
        try {
          const response = await options.send(options.adapter.convertRequest(request, options.adapterOptions).body);
          const parsed = parseSummary(extractText(response));
          parsed.sessionNotes = [...input.notes];
          return input.previous ? mergeSummaries(input.previous, parsed) : parsed;
        } catch (error) {
          warn(`summariser ${candidate.model} failed (${(error as Error).message}); using the extractive summariser`);
          return fallback.summarize(input);
        }
      }
      warn(`no summariser model can take ${input.span.length} messages; using the extractive summariser`);
      return fallback.summarize(input);
    },
  };
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
